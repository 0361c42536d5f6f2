"""The one exception the package raises for a caller's mistake."""


class ModelError(ValueError):
    """Bad input to the model or the widget: the message is one plain sentence naming what is wrong."""
