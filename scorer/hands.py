"""Reading the end of a hand: players, winner or knocker, and what each player holds.

Shared by the games' ``score_hand`` (numbertiles.py, remino.py, gin.py, domino_gin.py) so that
the same mistake gets the same message in every game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from scorer.errors import HandError
from scorer.game import HandScore
from scorer.messages import Message, names, say
from scorer.pieces import Piece
from scorer.sets import check_available

# the pieces a game's parse makes (Domino for the domino games, ...)
P = TypeVar("P", bound=Piece)


def read_players(hand: Mapping[str, Any], game: str, least: int, most: int) -> list[str]:
    """The player names: a list of ``least``..``most`` different, non-blank names."""
    players = hand.get("players")
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise HandError(say("players.not-a-list", "players must be a list of player names"))
    if not all(isinstance(name, str) and name.strip() for name in players):
        raise HandError(say("players.no-name", "every player needs a name"))
    if not least <= len(players) <= most:
        if least == most:
            raise HandError(
                say(
                    "players.count",
                    "{game} is played by {least} players, not {count}",
                    game=game,
                    least=least,
                    count=len(players),
                )
            )
        raise HandError(
            say(
                "players.count-range",
                "{game} is played by {least} to {most} players, not {count}",
                game=game,
                least=least,
                most=most,
                count=len(players),
            )
        )
    twice = next((name for name in players if players.count(name) > 1), None)
    if twice is not None:
        raise HandError(
            say(
                "players.twice",
                "players must have different names: player {name} is named twice",
                name=repr(twice),
            )
        )
    return list(players)


def read_player(
    hand: Mapping[str, Any], role: str, players: Sequence[str], optional: bool = False
) -> str | None:
    """The player named under ``role`` (winner, knocker); None only when ``optional``."""
    name = hand.get(role)
    if name is None and optional:
        return None
    if name not in players:
        if role == "knocker":
            raise HandError(
                say(
                    "players.unknown-knocker",
                    "the knocker {name} is not one of the players",
                    name=repr(name),
                )
            )
        raise HandError(
            say(
                "players.unknown-winner",
                "the winner {name} is not one of the players",
                name=repr(name),
            )
        )
    return str(name)


def read_from_hand(hand: Mapping[str, Any]) -> bool:
    from_hand = hand.get("from_hand", False)
    if not isinstance(from_hand, bool):
        raise HandError(say("hand.from-hand-not-bool", "from_hand must be true or false"))
    return from_hand


def read_holdings(
    hand: Mapping[str, Any], key: str, players: Sequence[str], meaning: Message
) -> Mapping[str, Any]:
    """``hand[key]``: a map from players to piece names (``meaning`` says what is listed)."""
    given = hand.get(key)
    if not isinstance(given, Mapping):
        raise HandError(
            say(
                "hand.not-a-map",
                "{key} must map each player to {meaning}",
                key=key,
                meaning=meaning,
            )
        )
    unknown = [name for name in given if name not in players]
    if unknown:
        raise HandError(
            say(
                "hand.unknown-players",
                "{key} name unknown player(s): {names}",
                key=key,
                names=names(unknown),
            )
        )
    return given


def read_pieces(
    given: Any, what: Message, parse: Callable[[str], P], piece_word: str = "tiles"
) -> list[P]:
    """Parse a list of piece names; ``what`` ("ann's rack") names the list in the error."""
    if isinstance(given, str) or not isinstance(given, Sequence):
        if piece_word == "cards":
            raise HandError(say("hand.not-card-list", "{what} must be a list of cards", what=what))
        raise HandError(say("hand.not-tile-list", "{what} must be a list of tiles", what=what))
    return [parse(text) for text in given]


def read_racks(
    hand: Mapping[str, Any],
    players: Sequence[str],
    winner: str | None,
    parse: Callable[[str], P],
    universe: Counter[Piece],
) -> dict[str, list[P]]:
    """Each player's rack at the end of a hand (rummy games where one player goes out).

    The winner's rack may be left out and must be empty; every other rack is given and not
    empty (with no winner named, an empty rack means that player went out); no piece is in the
    racks more often than the set holds it.
    """
    meaning = say("hand.rack-meaning", "the tiles left on their rack")
    given = read_holdings(hand, "racks", players, meaning)
    racks: dict[str, list[P]] = {}
    for name in players:
        if name not in given:
            if name != winner:
                raise HandError(
                    say("hand.no-rack", "{name} has no rack: list the tiles left on it", name=name)
                )
            racks[name] = []
            continue
        racks[name] = read_pieces(
            given[name], say("hand.rack-of", "{name}'s rack", name=name), parse
        )
    check_available(
        [p for rack in racks.values() for p in rack],
        universe,
        say("where.racks", "across the racks"),
    )
    for name in players:
        if name == winner and racks[name]:
            raise HandError(
                say(
                    "hand.winner-rack-not-empty",
                    "the winner {name} went out, so their rack must be empty",
                    name=name,
                )
            )
        if name != winner and not racks[name]:
            if winner is not None:
                raise HandError(
                    say(
                        "hand.rack-empty-not-winner",
                        "{name}'s rack is empty, but only the winner {winner} went out",
                        name=name,
                        winner=winner,
                    )
                )
            raise HandError(
                say(
                    "hand.rack-empty-so-winner",
                    "{name}'s rack is empty: then {name} went out and is the winner",
                    name=name,
                )
            )
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
