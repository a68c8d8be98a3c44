import pytest

from scorer.errors import HandError, OptionError
from scorer.options import OptionSpec, parse_option_pairs, resolve_options
from scorer.tally import tally

SPECS = (
    OptionSpec("numbers", int, 13, "highest number", choices=(13, 17)),
    OptionSpec("opening", int, 30, "threshold", minimum=0),
    OptionSpec("layoff_on_layoffs", bool, False, "lay off on layoffs"),
)


def test_defaults_and_overrides():
    assert resolve_options("g", SPECS, None) == {
        "numbers": 13,
        "opening": 30,
        "layoff_on_layoffs": False,
    }
    resolved = resolve_options("g", SPECS, {"numbers": "17", "layoff_on_layoffs": "true"})
    assert resolved["numbers"] == 17 and resolved["layoff_on_layoffs"] is True


@pytest.mark.parametrize(
    "given, message",
    [
        ({"colour": "red"}, "g has no option 'colour'"),
        ({"numbers": "15"}, "cannot be '15': use one of 13, 17"),
        ({"opening": "-1"}, "at least 0"),
        ({"opening": "many"}, "whole number"),
        ({"layoff_on_layoffs": "maybe"}, "true or false"),
    ],
)
def test_bad_options(given, message):
    with pytest.raises(OptionError, match=message):
        resolve_options("g", SPECS, given)


def test_option_pairs():
    assert parse_option_pairs(["numbers=17", " jokers = 4 "]) == {"numbers": "17", "jokers": "4"}
    with pytest.raises(OptionError, match="KEY=VALUE"):
        parse_option_pairs(["numbers"])


def test_tally_to_target():
    state = tally(["ann", "bob"], [{"ann": 37, "bob": -37}, {"ann": -10, "bob": 10}])
    assert state.totals == {"ann": 27, "bob": -27}
    assert [r["ann"] for r in state.running] == [37, 27]
    assert not state.finished and state.winner is None

    ended = tally(["ann", "bob"], [{"ann": 60}, {"bob": 120}], target=100)
    assert ended.finished and ended.winner == "bob"


def test_tally_by_number_of_hands_and_ties():
    state = tally(["a", "b", "c"], [{"a": 5, "b": -5}, {"b": 10, "a": -10}], hands_limit=2)
    assert state.finished and state.winner == "b"
    tied = tally(["a", "b"], [{"a": 5}, {"b": 5}], hands_limit=2)
    assert tied.finished and tied.winner is None and tied.leaders == ("a", "b")


def test_tally_rejects_impossible_input():
    with pytest.raises(HandError, match="unknown player"):
        tally(["a", "b"], [{"c": 5}])
    with pytest.raises(HandError, match="after the match has ended"):
        tally(["a", "b"], [{"a": 100}, {"b": 1}], target=100)
    with pytest.raises(HandError, match="distinct"):
        tally(["a", "a"], [])
