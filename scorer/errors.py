"""Errors for input that cannot be judged. Each message is meant for a player to read: a
``scorer.messages.Message`` (English when printed, translatable by the web app) or text."""

from __future__ import annotations

from typing import Any


class MeldcamError(ValueError):
    """Base class: bad input that gets a clear message instead of an answer."""

    def __init__(self, message: Any) -> None:
        super().__init__(message)
        self.message = message  # a Message (or the web app's lazy text): str() is English


class PieceError(MeldcamError):
    """A piece name that does not exist, or a piece that is not in the chosen set."""


class OptionError(MeldcamError):
    """An unknown game, option or option value."""


class HandError(MeldcamError):
    """A hand that cannot happen: too many copies, wrong hand size, unknown player..."""
