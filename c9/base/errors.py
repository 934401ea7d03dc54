"""The one exception the widgets show to readers: bad input, with a message in Chinese."""


class InputError(ValueError):
    """Bad reader input. ``message_zh`` is shown in the widget; ``str(e)`` is for logs and tests."""

    def __init__(self, message_zh: str, detail: str = ""):
        super().__init__(detail or message_zh)
        self.message_zh = message_zh
