"""The scorer's messages are ids with parameters (issue 25): tested by code and parameters, not by
wording; English text as before; one code, one English text."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from scorer import api
from scorer.errors import HandError, OptionError, PieceError
from scorer.games import make_rules
from scorer.messages import Message, joined, say, say_n

SCORER = Path(__file__).resolve().parents[2] / "scorer"


def bracket(text: str) -> str:
    return f"[{text}]"


def bracket_plural(singular: str, plural: str, count: int) -> str:
    return f"[{singular if count == 1 else plural}]"


def test_a_message_is_its_english_text_and_keeps_its_id():
    message = say("meld.too-short", "a meld needs at least 3 tiles; this one has {size}", size=2)
    assert message == "a meld needs at least 3 tiles; this one has 2"
    assert isinstance(message, str) and message.code == "meld.too-short"
    assert message.params == {"size": 2}
    assert message.render(bracket) == "[a meld needs at least 3 tiles; this one has 2]"


def test_plurals_and_nested_messages_are_said_in_the_same_language():
    jokers = say_n("run.jokers", "only {count} joker", "only {count} jokers", "count", count=2)
    gap = say("run.gap", "the run has a gap: {gap} missing, {filled}", gap="red-4", filled=jokers)
    assert gap == "the run has a gap: red-4 missing, only 2 jokers"
    assert (
        gap.render(bracket, bracket_plural) == "[the run has a gap: red-4 missing, [only 2 jokers]]"
    )
    both = joined([gap, say("opening.no-meld", "an opening needs at least one meld")], "; ")
    assert both.code == "run.gap+opening.no-meld"
    assert both.render(bracket, bracket_plural).count("[") == 3


@pytest.mark.parametrize(
    ("game", "meld", "code", "params"),
    [
        ("rummikub", ["red-1", "blue-2", "red-3"], "run.colours-differ",
         {"a": "red-1", "b": "blue-2"}),
        ("remik", ["red-1", "red-2"], "meld.too-short", {"size": 2}),
        ("remino", ["3-8", "4-8", "6-8"], "run.gap-no-joker",
         {"suit": 8, "tiles": "5-8", "count": 1}),
        ("domino-gin", ["3-3", "3-4"], "meld.too-short-4", {"size": 2}),
        ("gin", ["AH", "2H", "4H"], "run.rank-gap", {"low": "2H", "high": "4H"}),
    ],
)  # fmt: skip
def test_verdicts_carry_the_reasons_id_and_parameters(game, meld, code, params):
    rules = make_rules(game)
    reason = rules.check_meld([rules.parse(name) for name in meld]).reason
    assert isinstance(reason, Message)
    assert (reason.code, dict(reason.params)) == (code, params)


def test_errors_carry_the_message():
    with pytest.raises(PieceError) as bad_piece:
        make_rules("rummikub").parse("red-14")
    assert bad_piece.value.message.code == "piece.tile-out-of-set"
    with pytest.raises(OptionError) as bad_option:
        make_rules("remik", {"numbers": 15})
    assert bad_option.value.message.code == "option.not-a-choice"
    with pytest.raises(HandError) as bad_hand:
        api.score("gin", None, {"players": ["a", "b"], "knocker": "c", "hands": {}})
    assert bad_hand.value.message.params == {"name": "'c'"}
    assert str(bad_hand.value) == "the knocker 'c' is not one of the players"


def test_the_api_adds_the_reason_in_the_asked_language_only_when_asked():
    melds = [["red-1", "red-2"]]
    english = api.check("rummikub", None, melds)
    assert set(english["melds"][0]) == {"pieces", "valid", "kind", "value", "reason"}
    said = api.check("rummikub", None, melds, translate=lambda m: m.render(bracket))
    assert said["melds"][0]["reason_id"] == "meld.too-short"
    assert said["melds"][0]["reason_text"] == f"[{english['melds'][0]['reason']}]"


def _said_in_sources() -> dict[str, set[str]]:
    """code -> every English text given to say() / say_n() under that code in scorer/."""
    found: dict[str, set[str]] = {}
    for path in SCORER.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in {"say", "say_n"}:
                code, text = (ast.literal_eval(arg) for arg in node.args[:2])
                found.setdefault(code, set()).add(text)
    return found


def test_one_code_one_english_text():
    codes = _said_in_sources()
    assert len(codes) > 100
    twice = {code: texts for code, texts in codes.items() if len(texts) > 1}
    assert not twice, twice
