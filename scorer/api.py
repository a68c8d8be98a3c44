"""JSON-in, JSON-out entry points shared by the CLI and the web API (same shapes in both)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scorer.errors import HandError, PieceError
from scorer.games import make_rules
from scorer.pieces import Piece


def _pieces(rules: Any, names: Sequence[str]) -> list[Piece]:
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise PieceError("pieces must be given as a list of piece names")
    return [rules.parse(name) for name in names]


def split_meld(text: str) -> list[str]:
    """``"red-1,red-2, red-3"`` -> ``["red-1", "red-2", "red-3"]``."""
    parts = [part.strip() for part in text.split(",")]
    if any(not part for part in parts):
        raise PieceError(f"empty piece name in meld {text!r}")
    return parts


def check(
    game: str,
    options: Mapping[str, Any] | None,
    melds: Sequence[Sequence[str]],
    opening: bool = False,
) -> dict[str, Any]:
    """Judge each meld; with ``opening``, also judge them together as a first meld."""
    rules = make_rules(game, options)
    if not melds:
        raise PieceError("give at least one meld to check")
    parsed = [_pieces(rules, meld) for meld in melds]
    verdicts = [rules.check_meld(meld) for meld in parsed]
    result: dict[str, Any] = {
        "valid": all(v.valid for v in verdicts),
        "melds": [v.to_json() for v in verdicts],
        "opening": None,
    }
    if opening:
        opening_verdict = rules.check_opening(parsed)
        result["opening"] = opening_verdict.to_json()
        if opening_verdict.reason:
            result["opening"]["reason"] = opening_verdict.reason
        result["valid"] = result["valid"] and opening_verdict.valid
    return result


def table(game: str, options: Mapping[str, Any] | None, pieces: Sequence[str]) -> dict[str, Any]:
    """Can these pieces be arranged into legal melds? One arrangement if so."""
    rules = make_rules(game, options)
    return rules.arrange_table(_pieces(rules, pieces)).to_json()


def score(game: str, options: Mapping[str, Any] | None, hand: Mapping[str, Any]) -> dict[str, Any]:
    """Score one hand (JSON as documented in README)."""
    if not isinstance(hand, Mapping):
        raise HandError("a hand must be a JSON object")
    rules = make_rules(game, options)
    return rules.score_hand(hand).to_json()


def hint(
    game: str,
    options: Mapping[str, Any] | None,
    position: Mapping[str, Any],
    budget: float | None = None,
) -> dict[str, Any]:
    """The best move for ``{"table": [...], "rack": [...], "opened": bool}`` (see scorer.hints).

    ``budget`` (seconds): past it, the best found so far with ``"exact": false`` and a note.
    """
    from scorer.hints import hint as best_move

    rules = make_rules(game, options)
    return best_move(rules, position, budget).to_json()
