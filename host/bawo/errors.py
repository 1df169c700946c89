"""Errors raised by the Bawo host tools."""


class BawoError(Exception):
    """Base class: str(e) is one line a user can act on."""
