import pytest

from scorer.errors import HandError, PieceError
from scorer.pieces import (
    Card,
    CardJoker,
    Domino,
    Joker,
    Tile,
    parse_card,
    parse_domino,
    parse_piece,
    parse_tile,
)
from scorer.sets import cards, check_available, dominoes, number_tiles


def test_tile_names_round_trip():
    assert parse_tile("red-7") == Tile("red", 7)
    assert parse_tile(" Black-13 ").name == "black-13"
    assert parse_tile("yellow-3") == Tile("orange", 3)
    assert parse_tile("joker") == Joker()
    assert str(Tile("blue", 17)) == "blue-17"


@pytest.mark.parametrize(
    "text, message",
    [
        ("red-0", "1 to 17"),
        ("red-18", "1 to 17"),
        ("purple-3", "unknown colour 'purple'"),
        ("", "empty"),
        ("   ", "empty"),
        ("red7", "not a number tile"),
    ],
)
def test_bad_tiles_are_rejected_with_a_reason(text, message):
    with pytest.raises(PieceError, match=message):
        parse_tile(text)


def test_dominoes_print_smaller_half_first():
    assert parse_domino("8-3") == parse_domino("3-8") == Domino(3, 8)
    assert Domino(8, 3).name == "3-8"
    assert parse_domino("[12-12]").is_double
    assert parse_domino("6|0").pips == 6


@pytest.mark.parametrize("text", ["13-2", "3-", "a-b", "1-2-3", ""])
def test_bad_dominoes(text):
    with pytest.raises(PieceError):
        parse_domino(text, max_pip=12)


def test_domino_outside_a_smaller_set():
    with pytest.raises(PieceError, match="0 to 6"):
        parse_domino("3-7", max_pip=6)


def test_cards():
    assert parse_card("QH") == Card(12, "H")
    assert parse_card("10s") == Card(10, "S")
    assert parse_card("AD").value == 1
    assert parse_card("KC").value == 10
    assert parse_card("JK") == CardJoker()
    assert Card(10, "D").name == "10D"


@pytest.mark.parametrize("text", ["1H", "11H", "QX", "Q", "H", "10", ""])
def test_bad_cards(text):
    with pytest.raises(PieceError):
        parse_card(text)


def test_parse_piece_decides_the_kind_by_shape():
    assert parse_piece("red-7") == Tile("red", 7)
    assert parse_piece("joker") == Joker()
    assert parse_piece("8-3") == Domino(3, 8)
    assert parse_piece("10S") == Card(10, "S")
    assert parse_piece("JK") == CardJoker()
    with pytest.raises(PieceError, match="not a piece name"):
        parse_piece("purple")


def test_pieces_are_immutable_and_hashable():
    tile = Tile("red", 7)
    with pytest.raises(AttributeError):
        tile.number = 8  # type: ignore[misc]
    assert len({Tile("red", 7), parse_tile("red-7")}) == 1


def test_set_sizes():
    assert sum(number_tiles(13, 2).values()) == 106
    assert sum(number_tiles(17, 4).values()) == 140
    assert sum(number_tiles(13, 0).values()) == 104
    assert sum(dominoes("double-six").values()) == 28
    assert sum(dominoes("double-nine").values()) == 55
    assert sum(dominoes("double-twelve").values()) == 91
    assert sum(dominoes("2x-double-six").values()) == 56
    assert sum(cards().values()) == 52


def test_check_available():
    universe = dominoes("double-six")
    check_available([Domino(0, 0), Domino(1, 2)], universe)
    with pytest.raises(HandError, match="1-2 appears 2 times, but the set holds it only once"):
        check_available([Domino(1, 2), Domino(2, 1)], universe)
    with pytest.raises(HandError, match="3-7 is not in this set"):
        check_available([Domino(3, 7)], universe)
    with pytest.raises(HandError, match="only 2 times"):
        check_available([Tile("red", 1)] * 3, number_tiles())
