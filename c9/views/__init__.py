"""The widgets: one module per widget, named as the widget, beside its template (NAME.html) and page script
(NAME.js); ``api`` is the Web Worker's entry point and maps widget names to modules."""
