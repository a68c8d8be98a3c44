"""Piece names are written in several places until they share one module (issue 23 item 3):
``scorer.pieces`` (the rules), ``vision.labels`` and ``vision.api.KINDS`` (the recognisers),
``datasets.cards_synth`` (generated card scenes) and ``webapp.matches`` (which reader a game
needs). These tests tie every label the recognisers and generators can produce to a piece the
scorer parses back to the same name, and the copied constants to each other."""

from __future__ import annotations

import pytest

from datasets import cards_synth
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
    ("kind", "vocabulary"),
    [("tile", TILE_LABELS), ("domino", DOMINO_LABELS), ("card", CARD_LABELS)],
)
def test_every_recogniser_label_is_a_piece_of_its_kind(kind: str, vocabulary: list[str]):
    for label in vocabulary:
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


def test_the_recognisers_cover_every_piece_the_scorer_knows():
    every_tile = {pieces.Tile(c, n).name for c in pieces.COLOURS for n in range(1, 18)}
    assert set(TILE_LABELS) == every_tile | {"joker"}
    top = max(sets.DOMINO_SETS.values())[0]
    assert set(DOMINO_LABELS) == {p.name for p in sets.dominoes("double-twelve")}
    assert top == labels.MAX_PIP == pieces.MAX_PIP
    assert set(CARD_LABELS) == {p.name for p in sets.cards()} | {"JK"}
    with pytest.raises(PieceError):
        pieces.parse_tile(f"red-{labels.MAX_TILE_NUMBER + 1}")


def test_generated_card_labels_are_the_readers_labels():
    assert set(cards_synth.all_labels()) == set(CARD_LABELS)
    assert cards_synth.RANKS == labels.CARD_RANKS == pieces.RANKS
    assert cards_synth.SUITS == labels.CARD_SUITS == pieces.SUITS
    assert cards_synth.JOKER == labels.CARD_JOKER


def test_copied_constants_agree():
    assert labels.TILE_COLOURS == pieces.COLOURS
    assert labels.MAX_TILE_NUMBER == pieces.MAX_TILE_NUMBER
    for name, top in labels.DOMINO_SET_TOPS.items():
        assert sets.DOMINO_SETS[name] == (top, 1)
    assert tuple(matches.RECOGNISER_KINDS.values()) == vision_api.KINDS
    assert set(matches.RECOGNISER_KINDS) == {"tile", "domino", "card"}
