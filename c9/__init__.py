"""Chapter C9's computations, in standard-library Python that runs unchanged in CPython 3.11+ (the build,
the tests) and in Pyodide (the page's Web Worker).

Four layers, each a subpackage; a module imports only from its own layer or one below
(tests/test_layers.py checks it):

- ``base``: what knows no format and no model: reader-facing errors, units and number text, the typed-number
  parser, file locations.
- ``core``: the numerics, exact and markup-free: number formats and block scaling, ledgers of named bytes,
  eq. 1 and per-tensor activations, model configs and parameter counts.
- ``views``: one module per widget (``WIDGET``, ``page_context()``, ``view(params)``), beside its template
  (NAME.html) and page script (NAME.js); ``views.api.handle`` is the worker's entry point.
- ``figures``: build only (never shipped to the page): the figures the lessons quote, for build_numbers.py.
"""
