"""Match tally: running totals over hands, match end by target or number of hands, winner."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scorer.errors import HandError
from scorer.messages import names as listed
from scorer.messages import say


@dataclass(frozen=True)
class MatchState:
    players: tuple[str, ...]
    running: tuple[dict[str, int], ...]  # totals after each hand
    totals: dict[str, int]
    finished: bool
    winner: str | None  # None while playing, or on a tie for the lead at the end
    leaders: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "players": list(self.players),
            "running": [dict(r) for r in self.running],
            "totals": dict(self.totals),
            "finished": self.finished,
            "winner": self.winner,
            "leaders": list(self.leaders),
        }


def tally(
    players: Sequence[str],
    hands: Sequence[Mapping[str, int]],
    target: int | None = None,
    hands_limit: int | None = None,
) -> MatchState:
    """Add up ``hands`` (each: points added per player) in order.

    The match ends after the first hand in which someone reaches ``target``, or after
    ``hands_limit`` hands. The winner has the most points; a tie for most leaves it open
    (``winner`` None, ``leaders`` names them). A hand after the end is an error.
    """
    names = tuple(players)
    if len(set(names)) != len(names) or not names:
        raise HandError(say("tally.players-distinct", "players must be distinct names"))
    totals = {name: 0 for name in names}
    running: list[dict[str, int]] = []
    finished = False
    for number, deltas in enumerate(hands, start=1):
        if finished:
            raise HandError(
                say(
                    "tally.after-the-end",
                    "hand {number} comes after the match has ended",
                    number=number,
                )
            )
        unknown = set(deltas) - set(names)
        if unknown:
            raise HandError(
                say(
                    "tally.unknown-players",
                    "hand {number} names unknown player(s): {names}",
                    number=number,
                    names=listed(sorted(unknown)),
                )
            )
        for name, points in deltas.items():
            totals[name] += int(points)
        running.append(dict(totals))
        reached = target is not None and any(t >= target for t in totals.values())
        finished = reached or (hands_limit is not None and number >= hands_limit)
    best = max(totals.values())
    leaders = tuple(name for name in names if totals[name] == best)
    winner = leaders[0] if finished and len(leaders) == 1 else None
    return MatchState(names, tuple(running), totals, finished, winner, leaders)
