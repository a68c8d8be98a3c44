"""Merging a card's two corner readings into one card (pure logic, no model)."""

from __future__ import annotations

import numpy as np

from vision.cards import group, merge_corners
from vision.kinds import CARDS
from vision.labels import CARD_NONE, CARD_SUITS, card_label, split_card_label
from vision.pipeline import SURENESS


def corner(label: str, x: float, y: float, size: float = 20.0) -> dict:
    return {"label": label, "bbox": [x, y, x + size * 0.5, y + size]}


def test_the_two_indices_of_one_card_are_one_card():
    corners = [corner("QH", 100, 100), corner("QH", 160, 200), corner("3C", 300, 100)]
    assert merge_corners(corners) == [[0, 1], [2]]


def test_the_same_label_far_apart_is_two_cards():
    # Two decks: 12 index lengths (240 px) is as far as one card's two indices lie.
    corners = [corner("7S", 0, 0), corner("7S", 900, 0)]
    assert merge_corners(corners) == [[0], [1]]


def test_a_four_index_card_is_one_card_and_never_more_than_four_corners():
    corners = [
        corner("AS", 0, 0),
        corner("AS", 80, 0),
        corner("AS", 0, 120),
        corner("AS", 80, 120),
        corner("AS", 40, 60),
    ]
    assert merge_corners(corners) == [[0, 1, 2, 3], [4]]


def test_different_labels_never_merge():
    assert merge_corners([corner("AS", 0, 0), corner("AH", 10, 10)]) == [[0], [1]]


def test_labels_round_trip_and_rank_without_none():
    for label in ("AC", "10D", "QH", "KS", "JK"):
        assert card_label(*split_card_label(label)) == label
    rank = np.zeros(CARD_NONE + 1)
    rank[11], rank[CARD_NONE] = 0.3, 0.7  # Q, and "not a card" (dropped before ranking)
    suit = np.array([0.1, 0.1, 0.7, 0.1])
    best, p = CARDS.heads.rank(rank, suit)[0]
    assert best == "QH" and abs(p - 0.7) < 1e-9 and len(CARD_SUITS) == 4


def read(label: str, x: float, y: float, p: float, score: float) -> dict:
    """A corner as the pipeline hands it to ``group``: reported keys and private ones."""
    return corner(label, x, y) | {"confidence": round(p * score**0.25, 4), "_p": p, "_score": score}


def test_a_cards_corners_score_takes_each_index_read_alike_as_a_witness():
    """Two indices of one card read QH at 0.6 and 0.7 (probability x score^(1/4)): the card's
    "corners" score is 1 - 0.4 x 0.3; a card seen by one index keeps that index's confidence,
    the score the other kinds' pieces (no corners) get too."""
    pieces, _ = group(
        [
            read("QH", 100, 100, 0.6, 1.0),
            read("QH", 160, 200, 0.7, 1.0),
            read("3C", 400, 90, 0.5, 0.0625),
        ]
    )
    queen, three = sorted(pieces, key=lambda piece: piece["label"], reverse=True)
    assert queen["label"] == "QH" and len(queen["corners"]) == 2
    assert abs(SURENESS["corners"](queen) - (1 - 0.4 * 0.3)) < 1e-9
    assert SURENESS["confidence"](queen) == 0.7  # the surer index alone
    assert abs(SURENESS["corners"](three) - 0.25) < 1e-9  # 0.5 x 0.0625^(1/4)
    assert SURENESS["corners"]({"_p": 0.8, "_score": 1.0}) == SURENESS["confidence"](
        {"_p": 0.8, "_score": 1.0}
    )
