"""meldcam's rules engine: piece types, the five games' rules, hand scoring and match tally.

Pure Python: no vision or web imports.
"""

from scorer.errors import HandError, MeldcamError, OptionError, PieceError
from scorer.games import describe_games, make_rules

__all__ = ["HandError", "MeldcamError", "OptionError", "PieceError", "describe_games", "make_rules"]
