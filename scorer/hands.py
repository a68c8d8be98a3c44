"""Reading the end of a hand: players, winner or knocker, and what each player holds.

Shared by the games' ``score_hand`` (numbertiles.py, remino.py, gin.py, domino_gin.py) so that
the same mistake gets the same message in every game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scorer.errors import HandError
from scorer.game import HandScore
from scorer.pieces import Piece
from scorer.sets import check_available


def read_players(hand: Mapping[str, Any], game: str, least: int, most: int) -> list[str]:
    """The player names: a list of ``least``..``most`` different, non-blank names."""
    players = hand.get("players")
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise HandError("players must be a list of player names")
    if not all(isinstance(name, str) and name.strip() for name in players):
        raise HandError("every player needs a name")
    if not least <= len(players) <= most:
        allowed = f"{least}" if least == most else f"{least} to {most}"
        raise HandError(f"{game} is played by {allowed} players, not {len(players)}")
    twice = next((name for name in players if players.count(name) > 1), None)
    if twice is not None:
        raise HandError(f"players must have different names: player {twice!r} is named twice")
    return list(players)


def read_player(
    hand: Mapping[str, Any], role: str, players: Sequence[str], optional: bool = False
) -> str | None:
    """The player named under ``role`` (winner, knocker); None only when ``optional``."""
    name = hand.get(role)
    if name is None and optional:
        return None
    if name not in players:
        raise HandError(f"the {role} {name!r} is not one of the players")
    return str(name)


def read_from_hand(hand: Mapping[str, Any]) -> bool:
    from_hand = hand.get("from_hand", False)
    if not isinstance(from_hand, bool):
        raise HandError("from_hand must be true or false")
    return from_hand


def read_holdings(
    hand: Mapping[str, Any], key: str, players: Sequence[str], meaning: str
) -> Mapping[str, Any]:
    """``hand[key]``: a map from players to piece names (``meaning`` says what is listed)."""
    given = hand.get(key)
    if not isinstance(given, Mapping):
        raise HandError(f"{key} must map each player to {meaning}")
    unknown = [name for name in given if name not in players]
    if unknown:
        raise HandError(f"{key} name unknown player(s): {', '.join(map(str, unknown))}")
    return given


def read_pieces(
    names: Any, what: str, parse: Callable[[str], Piece], piece_word: str = "tiles"
) -> list[Piece]:
    """Parse a list of piece names; ``what`` ("ann's rack") names the list in the error."""
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise HandError(f"{what} must be a list of {piece_word}")
    return [parse(text) for text in names]


def read_racks(
    hand: Mapping[str, Any],
    players: Sequence[str],
    winner: str | None,
    parse: Callable[[str], Piece],
    universe: Counter[Piece],
) -> dict[str, list[Piece]]:
    """Each player's rack at the end of a hand (rummy games where one player goes out).

    The winner's rack may be left out and must be empty; every other rack is given and not
    empty (with no winner named, an empty rack means that player went out); no piece is in the
    racks more often than the set holds it.
    """
    given = read_holdings(hand, "racks", players, "the tiles left on their rack")
    racks: dict[str, list[Piece]] = {}
    for name in players:
        if name not in given:
            if name != winner:
                raise HandError(f"{name} has no rack: list the tiles left on it")
            racks[name] = []
            continue
        racks[name] = read_pieces(given[name], f"{name}'s rack", parse)
    check_available([p for rack in racks.values() for p in rack], universe, "across the racks")
    for name in players:
        if name == winner and racks[name]:
            raise HandError(f"the winner {name} went out, so their rack must be empty")
        if name != winner and not racks[name]:
            if winner is not None:
                raise HandError(f"{name}'s rack is empty, but only the winner {winner} went out")
            raise HandError(f"{name}'s rack is empty: then {name} went out and is the winner")
    return racks


def lowest_racks(values: Mapping[str, int]) -> list[str]:
    """The stock ran out: the players whose racks are worth the least (one winner, or a tie)."""
    lowest = min(values.values())
    return [name for name, value in values.items() if value == lowest]


def tied_hand(values: Mapping[str, int], tied: Sequence[str]) -> HandScore:
    """The stock ran out and ``tied`` players share the lowest rack: nobody wins the hand and
    everybody scores 0 (RULES.md's Remino default, used by every game where racks are counted).
    Outcome ``tie``; ``details`` gives ``rack_values`` and the ``tied`` players."""
    details = {"rack_values": dict(values), "tied": list(tied)}
    return HandScore("tie", None, {name: 0 for name in values}, None, details)
