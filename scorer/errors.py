"""Errors for input that cannot be judged. Each message is meant for a player to read."""


class MeldcamError(ValueError):
    """Base class: bad input that gets a clear message instead of an answer."""


class PieceError(MeldcamError):
    """A piece name that does not exist, or a piece that is not in the chosen set."""


class OptionError(MeldcamError):
    """An unknown game, option or option value."""


class HandError(MeldcamError):
    """A hand that cannot happen: too many copies, wrong hand size, unknown player..."""
