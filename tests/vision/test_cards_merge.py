"""Merging a card's two corner readings into one card (pure logic, no model)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from meldcam.vocabulary import OTHER_LETTERS
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


def _glyphs(*read: tuple[str, float]) -> np.ndarray:
    """Glyph reader probabilities for boxes each read as (glyph, probability), the rest "none"."""
    from vision.cards import GLYPHS

    rows = np.zeros((len(read), len(GLYPHS)), np.float32)
    for row, (glyph, p) in zip(rows, read, strict=True):
        row[GLYPHS.index(glyph)], row[GLYPHS.index("none")] = p, 1.0 - p
    return rows


def test_each_letter_set_is_told_by_the_letters_only_it_prints():
    from vision.cards import GLYPHS, OWN_GLYPHS

    own = {name: [GLYPHS[g] for g in glyphs] for name, glyphs in OWN_GLYPHS.items()}
    assert own == {"en": ["J", "Q"], "pl": ["W"], "de": ["B"], "fr": ["V", "R"]}


def test_only_the_jacks_letters_weigh_a_set_readers_ranks():
    """A set reader's reading joins the glyph reader's by ``JACK_GLYPHS``: the jack by every
    letter some deck prints for it (J W B V), every other rank by the rest, queens', kings' and
    aces' letters among them (the glyph reader reads a real deck's 10 as a D)."""
    from meldcam.vocabulary import CARD_RANKS
    from vision.cards import GLYPHS, JACK_GLYPHS

    shown = {
        rank: [GLYPHS[g] for g in glyphs]
        for rank, glyphs in zip((*CARD_RANKS, "joker"), JACK_GLYPHS, strict=True)
    }
    assert shown.pop("J") == ["J", "W", "B", "V"]
    assert all(glyphs == ["none", "Q", "K", "A", "D", "R"] for glyphs in shown.values())
    assert CARDS.heads.first == (*CARD_RANKS, "joker")  # the reader's classes, in that order


def guess_letter_set(glyphs: np.ndarray) -> str | None:
    """The shipped rule (``vision.kinds.CARDS.set_guess``)."""
    return CARDS.set_guess.guess(glyphs)


def test_a_deck_is_told_by_its_courts_and_not_by_what_every_deck_prints():
    assert guess_letter_set(_glyphs(("W", 0.99), ("K", 0.99), ("W", 0.98), ("none", 0.0))) == "pl"
    assert guess_letter_set(_glyphs(("W", 0.99), ("K", 0.99))) is None  # one W: not enough
    assert guess_letter_set(_glyphs(("W", 1.0))) == "pl"  # ... unless read as certain
    assert guess_letter_set(_glyphs(("J", 0.97), ("Q", 0.96), ("A", 0.99))) == "en"
    assert guess_letter_set(_glyphs(("V", 0.97), ("R", 0.99), ("D", 0.99))) == "fr"
    # an unsure V: not told French, but R and D are no English deck's letters
    assert guess_letter_set(_glyphs(("V", 0.6), ("R", 0.99), ("D", 0.99))) == OTHER_LETTERS
    assert guess_letter_set(_glyphs(("B", 0.99), ("B", 0.97))) == "de"
    # K, D and A are printed by several sets; numbers by all: nothing told by one D
    assert guess_letter_set(_glyphs(("K", 0.99), ("D", 0.99), ("A", 0.99))) is None
    assert guess_letter_set(_glyphs(("none", 1.0))) is None
    assert guess_letter_set(np.zeros((0, 10), np.float32)) is None


def test_unsure_or_conflicting_letters_tell_nothing():
    assert guess_letter_set(_glyphs(("W", 0.9), ("W", 0.9), ("W", 0.9))) is None  # each unsure
    assert guess_letter_set(_glyphs(("W", 0.99), ("J", 0.99))) is None  # a jack of each
    assert guess_letter_set(_glyphs(("W", 0.99), ("W", 0.99), ("J", 0.96))) is None
    assert guess_letter_set(_glyphs(("W", 0.99), ("W", 0.99), ("W", 0.99), ("J", 0.9))) == "pl"


def test_a_deck_showing_its_queens_d_but_not_which_deck_is_told_to_print_other_letters():
    """D is every set's queen but the English one: two Ds tell a deck with other letters
    (``OTHER_LETTERS``, read by their reader) where nothing says which; as sure as a set's own
    letters must be, and outweighing the English ones three times."""
    assert guess_letter_set(_glyphs(("D", 0.99), ("D", 0.97), ("K", 0.99))) == OTHER_LETTERS
    assert guess_letter_set(_glyphs(("D", 0.99), ("D", 0.9))) is None  # one read unsurely
    assert guess_letter_set(_glyphs(("D", 0.99), ("D", 0.99), ("Q", 0.99))) is None  # an English Q
    assert guess_letter_set(_glyphs(*[("D", 0.99)] * 3, ("J", 0.97))) == OTHER_LETTERS
    # a W and a B: a deck with other letters, which undecided
    assert guess_letter_set(_glyphs(("W", 0.99), ("B", 0.99), ("D", 0.98))) == OTHER_LETTERS
    assert guess_letter_set(_glyphs(("W", 0.99), ("D", 0.99), ("D", 0.99))) == OTHER_LETTERS
    readers = dict(CARDS.set_readers)
    other = readers.pop(OTHER_LETTERS)  # the same reader, at the strictest threshold
    assert other.sure_threshold == max(reader.sure_threshold for reader in readers.values())
    assert {reader.reader_file for reader in readers.values()} == {other.reader_file}


def test_a_box_enclosing_a_surer_small_box_is_no_index_and_one_surer_than_it_is():
    """``drop_enclosing``: a box round a smaller box's centre (a quarter of its area or less) is
    a whole card or a patch of pips when the small box is as sure; a large index whose suit pip
    was boxed too, less surely (a close-up), is kept."""
    from vision.cards import drop_enclosing
    from vision.detector import Detection

    whole_card = Detection((0.0, 0.0, 200.0, 280.0), 0.4, 0)
    index = Detection((10.0, 10.0, 40.0, 70.0), 0.8, 0)
    assert drop_enclosing([whole_card, index]) == [index]
    large_index = Detection((0.0, 0.0, 60.0, 170.0), 0.75, 0)
    suit_pip = Detection((25.0, 150.0, 40.0, 176.0), 0.5, 0)
    assert drop_enclosing([large_index, suit_pip]) == [large_index, suit_pip]
    assert drop_enclosing([replace(large_index, score=0.5), suit_pip]) == [suit_pip]
