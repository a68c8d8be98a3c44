"""Players' records across matches: statistics computed from stored hands, never typed twice.

Pure functions over plain data (``MatchRecord`` / ``HandRecord``); the web app reads a club's
matches from its database (``webapp.clubs``) and hands them here. Nothing is cached: an edited
or undone hand changes the figures the next time they are asked for.

Choices (see docs/choices/webapp.md):
- A match counts as played once it has a hand; it is won by the tally's winner once it has
  ended (a tie for the lead at the end wins nobody the match). ``win_rate`` is wins over ended
  matches.
- A hand is won by its scorer's winner (went out, gin, domino, undercut); a tied hand by nobody.
- Points are the hand's deltas as the game scores them. ``points`` is their sum;
  ``points_plus`` / ``points_minus`` add the positive / negative ones apart;
  ``average_points`` is ``points`` per hand played, ``average_plus`` the mean of the hands
  that scored plus and ``average_minus`` the mean of those that scored minus.
- Caught: a hand whose result says what each player still held (gin games' deadwood, rack
  games' rack values) catches the player(s) holding the most, when that is more than 0.
  ``caught_of`` counts the hands that say it.
- Streaks: ``longest_streak`` is matches won in a row among ended matches, in the order they
  were started (a match still being played neither extends nor breaks it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from scorer.tally import tally


@dataclass(frozen=True)
class HandRecord:
    """One stored hand: points per player, its winner, and what each player still held at its
    end (deadwood or rack value; None where the game's result does not say)."""

    deltas: Mapping[str, int]
    winner: str | None = None
    held: Mapping[str, int] | None = None


@dataclass(frozen=True)
class MatchLine:
    """One player's hands of one match, added up (``match_lines``; the web app keeps one per
    club match and seat, rewritten with every hand saved, edited or undone: ``webapp.clubs``)."""

    hands: int = 0
    hands_won: int = 0
    points: int = 0
    points_plus: int = 0
    plus_hands: int = 0
    points_minus: int = 0
    minus_hands: int = 0
    best_hand: int | None = None
    worst_hand: int | None = None
    caught: int = 0
    caught_of: int = 0


@dataclass(frozen=True)
class HandMark:
    """One player's part of one hand: points, won (1/0), what they still held (None: the
    result does not say) and caught (1: held the most of the hand, and more than 0)."""

    points: int
    won: int
    held: int | None
    caught: int


def hand_marks(players: Sequence[str], hand: HandRecord) -> list[HandMark]:
    """Each player's ``HandMark`` in ``hand``, in the order of ``players``."""
    held = hand.held or None
    most = max(held.values(), default=0) if held else 0
    marks = []
    for name in players:
        mine = None if held is None else held.get(name)
        marks.append(
            HandMark(
                points=int(hand.deltas.get(name, 0)),
                won=int(hand.winner is not None and hand.winner == name),
                held=mine,
                caught=int(mine is not None and most > 0 and mine == most),
            )
        )
    return marks


def line_of(marks: Iterable[HandMark]) -> MatchLine:
    """A player's ``MatchLine`` from their marks in a match's hands."""
    found = list(marks)
    points = [mark.points for mark in found]
    return MatchLine(
        hands=len(found),
        hands_won=sum(mark.won for mark in found),
        points=sum(points),
        points_plus=sum(p for p in points if p > 0),
        plus_hands=sum(1 for p in points if p > 0),
        points_minus=sum(p for p in points if p < 0),
        minus_hands=sum(1 for p in points if p < 0),
        best_hand=max(points, default=None),
        worst_hand=min(points, default=None),
        caught=sum(mark.caught for mark in found),
        caught_of=sum(1 for mark in found if mark.held is not None),
    )


def match_lines(players: Sequence[str], hands: Iterable[HandRecord]) -> dict[str, MatchLine]:
    """Each player's ``MatchLine`` over ``hands``."""
    marks: list[list[HandMark]] = [[] for _ in players]
    for hand in hands:
        for seat, mark in enumerate(hand_marks(players, hand)):
            marks[seat].append(mark)
    return {name: line_of(found) for name, found in zip(players, marks, strict=True)}


@dataclass(frozen=True)
class MatchRecord:
    """One match of a club, its players named as the club names them, with each player's line."""

    match_id: str
    game: str
    played_at: datetime
    players: tuple[str, ...]
    lines: Mapping[str, MatchLine]
    hands: int
    finished: bool
    winner: str | None


def match_end(
    totals: Mapping[str, int], hands: int, target: int | None, hands_limit: int | None
) -> tuple[bool, str | None]:
    """(ended, winner) of a match from its final totals, as ``scorer.tally`` finds them: a match
    ends with the hand in which someone reaches ``target`` (no hand is stored after it) or with
    its ``hands_limit``-th hand; its winner is the one player with the most points."""
    if not totals or not hands:
        return False, None
    best = max(totals.values())
    finished = (target is not None and best >= target) or (
        hands_limit is not None and hands >= hands_limit
    )
    leaders = [name for name, total in totals.items() if total == best]
    return finished, leaders[0] if finished and len(leaders) == 1 else None


def match_record(
    match_id: str,
    game: str,
    played_at: datetime,
    players: Sequence[str],
    lines: Mapping[str, MatchLine],
    target: int | None,
    hands_limit: int | None,
) -> MatchRecord:
    """A match with its end and winner (``match_end``)."""
    names = tuple(players)
    full = {name: lines.get(name, MatchLine()) for name in names}
    hands = max((line.hands for line in full.values()), default=0)
    totals = {name: line.points for name, line in full.items()}
    finished, winner = match_end(totals, hands, target, hands_limit)
    return MatchRecord(match_id, game, played_at, names, full, hands, finished, winner)


def hands_record(
    match_id: str,
    game: str,
    played_at: datetime,
    players: Sequence[str],
    hands: Sequence[HandRecord],
    target: int | None,
    hands_limit: int | None,
) -> MatchRecord:
    """``match_record`` from the hands themselves (checked by the tally as it adds them up)."""
    tally(tuple(players), [h.deltas for h in hands], target, hands_limit)
    lines = match_lines(players, hands)
    return match_record(match_id, game, played_at, players, lines, target, hands_limit)


@dataclass
class PlayerRecord:
    """One player's figures over the matches given (``player_records``)."""

    matches: int = 0
    finished: int = 0
    wins: int = 0
    hands: int = 0
    hands_won: int = 0
    points: int = 0
    points_plus: int = 0
    points_minus: int = 0
    plus_hands: int = 0
    minus_hands: int = 0
    best_hand: int | None = None
    worst_hand: int | None = None
    longest_streak: int = 0
    caught: int = 0
    caught_of: int = 0
    # the running average points per hand after each match: (played_at, match id, average)
    running_average: list[tuple[datetime, str, float]] = field(default_factory=list)
    wins_by_month: dict[str, int] = field(default_factory=dict)  # "2026-12": matches won
    games: set[str] = field(default_factory=set)
    _streak: int = 0

    @property
    def win_rate(self) -> float | None:
        return _ratio(self.wins, self.finished)

    @property
    def hand_win_rate(self) -> float | None:
        return _ratio(self.hands_won, self.hands)

    @property
    def average_points(self) -> float | None:
        return _ratio(self.points, self.hands, 2)

    @property
    def average_plus(self) -> float | None:
        return _ratio(self.points_plus, self.plus_hands, 2)

    @property
    def average_minus(self) -> float | None:
        return _ratio(self.points_minus, self.minus_hands, 2)

    @property
    def caught_rate(self) -> float | None:
        return _ratio(self.caught, self.caught_of)

    def to_json(self, series: bool = False) -> dict[str, Any]:
        answer: dict[str, Any] = {
            "matches": self.matches,
            "finished": self.finished,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "hands": self.hands,
            "hands_won": self.hands_won,
            "hand_win_rate": self.hand_win_rate,
            "points": self.points,
            "points_plus": self.points_plus,
            "points_minus": self.points_minus,
            "average_points": self.average_points,
            "average_plus": self.average_plus,
            "average_minus": self.average_minus,
            "best_hand": self.best_hand,
            "worst_hand": self.worst_hand,
            "longest_streak": self.longest_streak,
            "caught": self.caught,
            "caught_of": self.caught_of,
            "caught_rate": self.caught_rate,
            "games": sorted(self.games),
        }
        if series:
            answer["running_average"] = [
                {"match": match_id, "played_at": at.isoformat(), "average": average}
                for at, match_id, average in self.running_average
            ]
            answer["wins_by_month"] = dict(self.wins_by_month)
        return answer


def _ratio(part: int, whole: int, digits: int = 4) -> float | None:
    return None if whole == 0 else round(part / whole, digits)


# the figures a leaderboard and the CSV export show, in order
COLUMNS: tuple[str, ...] = (
    "matches",
    "wins",
    "win_rate",
    "hands",
    "hands_won",
    "points",
    "average_points",
    "average_plus",
    "average_minus",
    "best_hand",
    "worst_hand",
    "longest_streak",
    "caught",
    "caught_of",
)


def player_records(
    matches: Iterable[MatchRecord], players: Iterable[str] = (), series: bool = True
) -> dict[str, PlayerRecord]:
    """Every player's figures over ``matches`` (taken in the order of ``played_at``, then as
    given); ``players`` adds those who played none of them (all figures 0). ``series`` adds
    the running average after each match and the wins per month (the charts')."""
    records: dict[str, PlayerRecord] = {name: PlayerRecord() for name in players}
    for match in sorted(matches, key=lambda found: found.played_at):
        if not match.hands:
            continue
        month = f"{match.played_at.year:04d}-{match.played_at.month:02d}"
        lines = match.lines
        for name in match.players:
            record = records.get(name)
            if record is None:
                record = records[name] = PlayerRecord()
            line = lines[name]
            record.matches += 1
            record.games.add(match.game)
            if match.finished:
                record.finished += 1
                if match.winner == name:
                    record.wins += 1
                    record._streak += 1
                    if record._streak > record.longest_streak:
                        record.longest_streak = record._streak
                    if series:
                        record.wins_by_month[month] = record.wins_by_month.get(month, 0) + 1
                else:
                    record._streak = 0
            record.hands += line.hands
            record.hands_won += line.hands_won
            record.points += line.points
            record.points_plus += line.points_plus
            record.plus_hands += line.plus_hands
            record.points_minus += line.points_minus
            record.minus_hands += line.minus_hands
            best, worst = line.best_hand, line.worst_hand
            if best is not None and (record.best_hand is None or best > record.best_hand):
                record.best_hand = best
            if worst is not None and (record.worst_hand is None or worst < record.worst_hand):
                record.worst_hand = worst
            record.caught += line.caught
            record.caught_of += line.caught_of
            if series and record.hands:
                average = round(record.points / record.hands, 2)
                record.running_average.append((match.played_at, match.match_id, average))
    return records


def records_by_game(
    matches: Iterable[MatchRecord], players: Iterable[str] = ()
) -> dict[str, dict[str, PlayerRecord]]:
    """``player_records`` per game, without the charts' series (each game's own figures:
    points are never added across games that score differently)."""
    grouped: dict[str, list[MatchRecord]] = {}
    for match in matches:
        grouped.setdefault(match.game, []).append(match)
    names = list(players)
    return {
        game: player_records(found, names, series=False) for game, found in sorted(grouped.items())
    }


def leaderboard(records: Mapping[str, PlayerRecord]) -> list[tuple[str, PlayerRecord]]:
    """Players who played, best first: most matches won, then win rate, then average points
    per hand, then name."""
    played = [(name, record) for name, record in records.items() if record.matches]
    return sorted(
        played,
        key=lambda item: (
            -item[1].wins,
            -(item[1].win_rate or 0.0),
            -(item[1].average_points or 0.0),
            item[0].casefold(),
        ),
    )
