"""One vocabulary (issue 23 item 3): piece names, domino sets and recogniser kinds live in
``meldcam.vocabulary``, which imports nothing; the rules (``scorer.pieces``, ``scorer.sets``),
the recognisers (``vision.labels``, ``vision.api``), the generators (``datasets``) and the web app
(``webapp.matches``, ``webapp.facts`` for the page scripts) take them from there. These tests tie
every label the recognisers and generators can produce to a piece the scorer parses back to the
same name, and every piece the scorer knows back to the recognisers' heads."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from datasets import cards_synth, dominoes_synth, tiles_synth
from meldcam import vocabulary
from scorer import pieces, sets
from scorer.errors import PieceError
from vision import api as vision_api
from vision import labels
from webapp import matches

TILE_LABELS = [
    labels.tile_label(value, colour)
    for value in range(len(labels.TILE_VALUES))
    for colour in range(len(labels.TILE_COLOURS))
]
DOMINO_LABELS = [
    labels.domino_label(a, b)
    for a in range(labels.MAX_PIP + 1)
    for b in range(a, labels.MAX_PIP + 1)
]
CARD_LABELS = [
    labels.card_label(rank, suit)
    for rank in range(labels.CARD_JOKER_INDEX + 1)
    for suit in range(len(labels.CARD_SUITS))
]


@pytest.mark.parametrize(
    ("kind", "vocabulary_labels"),
    [("tile", TILE_LABELS), ("domino", DOMINO_LABELS), ("card", CARD_LABELS)],
)
def test_every_recogniser_label_is_a_piece_of_its_kind(kind: str, vocabulary_labels: list[str]):
    for label in vocabulary_labels:
        piece = pieces.parse_piece(label)
        assert piece.name == label
        assert pieces.piece_kind(piece) == kind


def test_labels_split_back_to_the_heads_they_came_from():
    for value in range(len(labels.TILE_VALUES)):
        for colour in range(len(labels.TILE_COLOURS)):
            split = labels.split_tile_label(labels.tile_label(value, colour))
            assert split == ((value, -1) if value == labels.JOKER_INDEX else (value, colour))
    for label in DOMINO_LABELS:
        assert labels.domino_label(*labels.split_domino_label(label)) == label
    for label in CARD_LABELS:
        assert labels.card_label(*labels.split_card_label(label)) == label


def every_scorer_piece() -> list[pieces.Piece]:
    universe = sets.number_tiles(numbers=pieces.MAX_TILE_NUMBER, jokers=4) + sets.cards()
    for name in vocabulary.DOMINO_SETS:
        universe += sets.dominoes(name)
    return [*universe, pieces.CardJoker()]


def test_every_scorer_piece_is_a_recogniser_label_and_back():
    """The other way round: each piece of every set the scorer knows splits into the heads of
    the recogniser of its kind, and those heads give its name again."""
    for piece in every_scorer_piece():
        kind = pieces.piece_kind(piece)
        if kind == "tile":
            back = labels.tile_label(*labels.split_tile_label(piece.name))
        elif kind == "domino":
            back = labels.domino_label(*labels.split_domino_label(piece.name))
        else:
            back = labels.card_label(*labels.split_card_label(piece.name))
        assert back == piece.name
        assert pieces.parse_piece(back) == piece


def test_the_recognisers_cover_every_piece_the_scorer_knows():
    every_tile = {pieces.Tile(c, n).name for c in pieces.COLOURS for n in range(1, 18)}
    assert set(TILE_LABELS) == every_tile | {"joker"}
    assert set(DOMINO_LABELS) == {p.name for p in sets.dominoes("double-twelve")}
    assert set(CARD_LABELS) == {p.name for p in sets.cards()} | {"JK"}
    with pytest.raises(PieceError):
        pieces.parse_tile(f"red-{labels.MAX_TILE_NUMBER + 1}")


def test_generated_labels_are_the_readers_labels():
    assert set(cards_synth.all_labels()) == set(CARD_LABELS)
    assert set(tiles_synth.all_labels()) == set(TILE_LABELS)
    assert set(dominoes_synth.all_labels("double-twelve")) == set(DOMINO_LABELS)
    for name in vocabulary.DOMINO_SETS:
        assert set(dominoes_synth.all_labels(name)) == {p.name for p in sets.dominoes(name)}


def test_every_layer_takes_the_one_vocabulary():
    """Not copies that agree: the same objects, defined once."""
    assert pieces.COLOURS is labels.TILE_COLOURS is vocabulary.TILE_COLOURS
    assert pieces.RANKS is labels.CARD_RANKS is cards_synth.RANKS is vocabulary.CARD_RANKS
    assert pieces.SUITS is labels.CARD_SUITS is cards_synth.SUITS is vocabulary.CARD_SUITS
    assert labels.CARD_JOKER == cards_synth.JOKER == pieces.CardJoker().name
    assert sets.DOMINO_SETS is dominoes_synth.DOMINO_SETS is vocabulary.DOMINO_SETS
    assert vision_api.KINDS is vocabulary.KINDS
    assert matches.RECOGNISER_KINDS is vocabulary.RECOGNISER_KINDS
    assert set(vocabulary.RECOGNISER_KINDS) == {"tile", "domino", "card"}
    assert labels.MAX_PIP == pieces.MAX_PIP == vocabulary.MAX_PIP


def test_domino_sets_read_from_a_photo_are_the_sets_of_one_copy():
    assert vocabulary.DOMINO_SET_TOPS == {"double-six": 6, "double-nine": 9, "double-twelve": 12}
    for name, top in vocabulary.DOMINO_SET_TOPS.items():
        assert sets.DOMINO_SETS[name] == (top, 1)
    # a set's photos are read for the set of one copy with its top pip (two look like one)
    assert vocabulary.DOMINO_PHOTO_SETS == {
        "double-six": "double-six",
        "double-nine": "double-nine",
        "double-twelve": "double-twelve",
        "2x-double-six": "double-six",
    }
    for name, photo_set in vocabulary.DOMINO_PHOTO_SETS.items():
        assert photo_set in vocabulary.PHOTO_SETS["dominoes"]
        assert sets.domino_photo_set({"set": name}) == photo_set


def test_the_pages_get_the_vocabulary_from_the_server():
    """The page scripts' facts (``webapp.facts``) are the vocabulary itself, not a copy."""
    from webapp import facts

    given = facts.vocabulary_facts()
    assert given["tiles"]["colours"] == list(vocabulary.TILE_COLOURS)
    assert given["cards"]["ranks"] == list(vocabulary.CARD_RANKS)
    assert given["cards"]["suits"] == list(vocabulary.CARD_SUITS)
    assert given["cards"]["suit_symbols"] == vocabulary.SUIT_SYMBOLS
    assert given["dominoes"]["sets"] == {k: list(v) for k, v in vocabulary.DOMINO_SETS.items()}
    assert given["kinds"] == vocabulary.RECOGNISER_KINDS
    words = facts.vocabulary_words()
    assert set(vocabulary.SUIT_NAMES.values()) | set(vocabulary.RANK_NAMES.values()) <= set(words)


def test_a_deck_is_named_by_the_letters_it_prints():
    """The Gin option's choices are what each letter set prints on J Q K A, and name it back;
    the card recogniser's sets are those letter sets, and a deck a photo tells only to print
    other letters than English ones, which no player names."""
    from scorer.gin import OPTIONS
    from vision.kinds import CARDS

    assert [vocabulary.printed_letters(name) for name in vocabulary.INDEX_LETTERS] == [
        "JQKA",
        "WDKA",
        "BDKA",
        "VDRA",
    ]
    for printed, name in vocabulary.LETTER_SETS_BY_PRINT.items():
        assert vocabulary.printed_letters(name) == printed
    option = next(o for o in OPTIONS if o.name == "index_letters")
    assert option.choices == (*vocabulary.LETTER_SETS_BY_PRINT, vocabulary.LETTERS_FROM_PHOTO)
    assert option.default == vocabulary.LETTERS_FROM_PHOTO  # told from each photo unless named
    sets = [name for name, _labels in CARDS.sets]
    assert sets == [*vocabulary.INDEX_LETTERS, vocabulary.OTHER_LETTERS]
    assert vocabulary.OTHER_LETTERS not in vocabulary.PHOTO_SETS["cards"]


def test_the_vocabulary_imports_nothing():
    """So that every layer can import it: a fresh interpreter loads no other module of ours and
    nothing outside the standard library's start-up set."""
    code = (
        "import sys, json\n"
        "before = set(sys.modules)\n"
        "import meldcam.vocabulary\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert json.loads(done.stdout) == ["meldcam", "meldcam.vocabulary"]
