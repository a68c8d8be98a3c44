"""JSON-in, JSON-out entry points shared by the CLI and the web API (same shapes in both)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scorer.errors import HandError, PieceError
from scorer.games import make_rules
from scorer.messages import Message, say
from scorer.pieces import Piece

# the web app's way to say a Message in the asked language; with it, each ``reason`` (and a
# hint's ``note``) gets ``reason_text`` and ``reason_id`` beside it (the CLI passes none)
Translate = Callable[[Message], str]


def _said(
    answer: dict[str, Any], key: str, message: str | None, translate: Translate | None
) -> None:
    if translate is not None and isinstance(message, Message):
        answer[f"{key}_id"] = message.code
        answer[f"{key}_text"] = translate(message)


def _pieces(rules: Any, names: Sequence[str]) -> list[Piece]:
    if isinstance(names, str) or not isinstance(names, Sequence):
        raise PieceError(say("pieces.not-a-list", "pieces must be given as a list of piece names"))
    return [rules.parse(name) for name in names]


def split_meld(text: str) -> list[str]:
    """``"red-1,red-2, red-3"`` -> ``["red-1", "red-2", "red-3"]``."""
    parts = [part.strip() for part in text.split(",")]
    if any(not part for part in parts):
        raise PieceError(
            say("pieces.empty-in-meld", "empty piece name in meld {meld}", meld=repr(text))
        )
    return parts


def check(
    game: str,
    options: Mapping[str, Any] | None,
    melds: Sequence[Sequence[str]],
    opening: bool = False,
    translate: Translate | None = None,
) -> dict[str, Any]:
    """Judge each meld; with ``opening``, also judge them together as a first meld."""
    rules = make_rules(game, options)
    if not melds:
        raise PieceError(say("pieces.no-meld", "give at least one meld to check"))
    parsed = [_pieces(rules, meld) for meld in melds]
    verdicts = [rules.check_meld(meld) for meld in parsed]
    result: dict[str, Any] = {
        "valid": all(v.valid for v in verdicts),
        "melds": [v.to_json() for v in verdicts],
        "opening": None,
    }
    for answer, verdict in zip(result["melds"], verdicts, strict=True):
        _said(answer, "reason", verdict.reason, translate)
    if opening:
        opening_verdict = rules.check_opening(parsed)
        result["opening"] = opening_verdict.to_json()
        if opening_verdict.reason:
            result["opening"]["reason"] = opening_verdict.reason
            _said(result["opening"], "reason", opening_verdict.reason, translate)
        result["valid"] = result["valid"] and opening_verdict.valid
    return result


def table(
    game: str,
    options: Mapping[str, Any] | None,
    pieces: Sequence[str],
    translate: Translate | None = None,
) -> dict[str, Any]:
    """Can these pieces be arranged into legal melds? One arrangement if so."""
    rules = make_rules(game, options)
    verdict = rules.arrange_table(_pieces(rules, pieces))
    answer = verdict.to_json()
    _said(answer, "reason", verdict.reason, translate)
    return answer


def score(game: str, options: Mapping[str, Any] | None, hand: object) -> dict[str, Any]:
    """Score one hand (JSON as documented in README; anything else: a HandError)."""
    if not isinstance(hand, Mapping):
        raise HandError(say("hand.not-an-object", "a hand must be a JSON object"))
    rules = make_rules(game, options)
    return rules.score_hand(hand).to_json()


def hint(
    game: str,
    options: Mapping[str, Any] | None,
    position: object,
    budget: float | None = None,
    translate: Translate | None = None,
) -> dict[str, Any]:
    """The best move for ``{"table": [...], "rack": [...], "opened": bool}`` (see scorer.hints).

    ``budget`` (seconds): past it, the best found so far with ``"exact": false`` and a note.
    """
    from scorer.hints import INEXACT_NOTE
    from scorer.hints import hint as best_move

    rules = make_rules(game, options)
    answer = best_move(rules, position, budget).to_json()
    if "note" in answer:
        _said(answer, "note", INEXACT_NOTE, translate)
    return answer
