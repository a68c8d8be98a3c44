"""Errors of the vision package."""

from __future__ import annotations


class ImageError(ValueError):
    """The input is not a usable photo: unreadable, truncated, not an image, or absurdly large."""


class RecogniserUnavailable(RuntimeError):
    """No recogniser for this piece kind yet (or its model files are missing)."""


class UnknownSet(ValueError):
    """A piece set the recogniser does not know (``--set double-ten``)."""
