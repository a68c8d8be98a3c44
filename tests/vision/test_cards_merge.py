"""Merging a card's two corner readings into one card (pure logic, no model)."""

from __future__ import annotations

import numpy as np

from vision.cards import merge_corners
from vision.kinds import CARDS
from vision.labels import CARD_NONE, CARD_SUITS, card_label, split_card_label


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
