"""What every game's rules module provides, and the verdicts it returns.

Each game module (``rummikub``, ``remik``, ``remino``, ``domino_gin``, ``gin``) exposes
``OPTIONS: tuple[OptionSpec, ...]``, ``PRESETS: dict[str, dict]``, ``GAME_TYPE: GameType``
(the game's facts, which the web app and CLI ask instead of keeping their own lists) and
``make_rules(options: dict) -> Rules`` where ``options`` is already resolved and checked.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from scorer.messages import joined, say
from scorer.options import OptionSpec
from scorer.pieces import Piece

# How a hand can end (``HandScore.outcome``): the codes every game's scorer returns.
OUTCOMES: tuple[str, ...] = (
    "out",  # a player went out (number tiles, Remino)
    "remik-from-hand",  # Remik: out in one turn, every score doubled
    "stock-exhausted",  # the pool ran dry: the lowest rack wins
    "gin",  # the gin games: a knock with no deadwood
    "big-gin",  # gin with every card melded before the discard (no game scores it yet)
    "knock",
    "undercut",
    "tie",  # the pool ran dry and the lowest racks tie (scorer.hands.tied_hand)
)


def no_photo_set(options: Mapping[str, Any]) -> str | None:
    """A game whose photos are read for no particular set (number tiles)."""
    return None


@dataclass(frozen=True)
class GameType:
    """One game's facts, known before any rules are made (as OpenSpiel's ``GameType`` with its
    parameter spec): who plays, how a hand ends, which pieces, and its options."""

    name: str  # the registry key: "rummikub", "domino-gin", ...
    title: str  # for people: "Domino Gin"
    players: tuple[int, int]  # fewest and most players
    # "racks": the winner goes out and the others' racks are counted; "knock": a player knocks
    # and every player's hand is given as laid down
    hand_style: str
    # pieces dealt to each player, by number of players; empty where the scorer needs none
    hand_sizes: Mapping[int, int]
    piece_kind: str  # "tile", "domino" or "card" (scorer.pieces.piece_kind)
    # the physical sets it is played with (domino games: scorer.sets.DOMINO_SETS names, chosen
    # by the ``set`` option)
    sets: tuple[str, ...]
    hints: str | None  # the best-move finder (scorer.hints): "number-tiles", "layout" or None
    from_hand: bool  # a hand gone out in one turn ("remik z reki") can double its scores
    winner_opens: bool  # the last hand's winner opens the next; otherwise the deal passes left
    options: tuple[OptionSpec, ...]
    presets: Mapping[str, Mapping[str, Any]]
    # the set its photos are read for (``meldcam.vocabulary.PHOTO_SETS``), from its resolved
    # options: a domino game's set, a deck's index letters; None for none
    photo_set: Callable[[Mapping[str, Any]], str | None] = no_photo_set


@dataclass(frozen=True)
class MeldVerdict:
    """One meld judged: its kind (``run``, ``group``, ...) and value, or why it is not legal.

    ``readings`` lists every consistent value when jokers make the value ambiguous;
    ``value`` is then the highest (RULES.md default).
    """

    pieces: tuple[Piece, ...]
    valid: bool
    kind: str | None = None
    value: int | None = None
    reason: str | None = None
    readings: tuple[int, ...] = ()

    def to_json(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "pieces": [p.name for p in self.pieces],
            "valid": self.valid,
            "kind": self.kind,
            "value": self.value,
            "reason": self.reason,
        }
        if len(self.readings) > 1:  # jokers make the value ambiguous: show every reading
            result["readings"] = list(self.readings)
        return result


@dataclass(frozen=True)
class OpeningVerdict:
    """Melds judged together as a player's first meld."""

    value: int
    threshold: int
    valid: bool
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "threshold": self.threshold, "valid": self.valid}


def judge_opening(
    verdicts: Sequence[MeldVerdict], threshold: int = 0, min_melds: int = 1
) -> OpeningVerdict:
    """Melds judged together as a first meld, the same way in every game: at least one meld
    (and ``min_melds``), every meld valid, the valid melds' values reaching ``threshold`` (0
    where a game has none). The reason lists every problem, so a player sees them all at once."""
    value = sum(v.value or 0 for v in verdicts if v.valid)
    problems = [
        say(
            "opening.meld-invalid",
            "meld {number} is not valid: {reason}",
            number=number,
            reason=verdict.reason,
        )
        for number, verdict in enumerate(verdicts, start=1)
        if not verdict.valid
    ]
    if not verdicts:
        problems.append(say("opening.no-meld", "an opening needs at least one meld"))
    else:
        if value < threshold:
            problems.append(
                say(
                    "opening.too-few-points",
                    "{value} of {threshold} points: an opening needs {threshold}",
                    value=value,
                    threshold=threshold,
                )
            )
        if len(verdicts) < min_melds:
            problems.append(
                say(
                    "opening.too-few-melds",
                    "{count} of {least} melds: an opening needs at least {least} melds",
                    count=len(verdicts),
                    least=min_melds,
                )
            )
    reason = None if not problems else problems[0] if len(problems) == 1 else joined(problems, "; ")
    return OpeningVerdict(value, threshold, not problems, reason)


@dataclass(frozen=True)
class TableVerdict:
    """Whether a multiset of pieces can be laid out as legal melds, with one such layout."""

    valid: bool
    melds: tuple[tuple[Piece, ...], ...] | None
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "melds": None if self.melds is None else [[p.name for p in m] for m in self.melds],
            "reason": self.reason,
        }


@dataclass(frozen=True)
class HandScore:
    """The result of one hand.

    ``deltas``: points added to each player's running total. ``deadwood``: gin games only,
    each player's deadwood after layoffs. ``details``: game-specific extras for display
    (melds found, layoffs, penalties), JSON-ready.
    """

    outcome: str
    winner: str | None
    deltas: dict[str, int]
    deadwood: dict[str, int] | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "outcome": self.outcome,
            "winner": self.winner,
            "deltas": dict(self.deltas),
            "deadwood": None if self.deadwood is None else dict(self.deadwood),
        }
        result.update(self.details)
        return result


class Rules(Protocol):
    """The rules of one game with its options fixed."""

    game: str
    options: Mapping[str, Any]
    universe: Counter[Piece]
    target: int | None  # match ends when a player reaches this many points
    hands_limit: int | None  # or after this many hands (Remik); None when unused

    def parse(self, text: str) -> Piece:
        """A piece name of this game's set, or PieceError."""
        ...

    def check_meld(self, pieces: Sequence[Piece]) -> MeldVerdict: ...

    def check_opening(self, melds: Sequence[Sequence[Piece]]) -> OpeningVerdict: ...

    def arrange_table(self, pieces: Sequence[Piece]) -> TableVerdict: ...

    def score_hand(self, hand: Mapping[str, Any]) -> HandScore:
        """Score one hand given as the CLI's JSON (see scorer/api.py); HandError if impossible."""
        ...
