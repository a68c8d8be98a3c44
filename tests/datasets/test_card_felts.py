"""Printed casino felts: the cards' scenes on them, and the printed glyphs boxed as no card."""

from __future__ import annotations

import numpy as np

from datasets.card_felts import INDEX_LIKE, printed_felt
from datasets.cards_synth import CROSSED_Q_LOOK, _font, rank_fonts, render_bare_felt, render_scene
from training.readers import NOT_A_PIECE
from training.scenes import scene_renderer


def _font_for(size: int):
    return _font(rank_fonts()[0], size)


def test_a_felt_is_reproducible_and_boxes_its_printed_glyphs_inside_it():
    first, boxes = printed_felt(np.random.default_rng(3), 600, 800, _font_for)
    again, boxes_again = printed_felt(np.random.default_rng(3), 600, 800, _font_for)
    assert first.shape == (600, 800, 3) and first.dtype == np.uint8
    assert np.array_equal(first, again)
    assert len(boxes) == len(boxes_again) and len(boxes) > 0
    for quad in boxes:
        assert quad.shape == (4, 2)
        width, height = quad.max(axis=0) - quad.min(axis=0)
        assert 2 < width < 300 and 2 < height < 300


def test_only_what_an_index_could_be_taken_for_is_boxed():
    assert {"A", "K", "Q", "J", "1", "7"} <= INDEX_LIKE
    assert not {"S", "P", "Y", "L", "C", "E", "'"} & INDEX_LIKE


def test_a_scene_on_a_felt_holds_the_same_cards_and_its_glyphs_as_decoys():
    """The felt is drawn from a stream of its own: the cards and their labels are the plain
    scene's (so a held-back plain scene is the felt one's control); the glyphs no card hides are
    decoys."""
    for seed in range(4):
        plain = render_scene(seed, size=(800, 600), **CROSSED_Q_LOOK)
        felt = render_scene(seed, size=(800, 600), **CROSSED_Q_LOOK, printed_felt=True)
        assert felt.corner_labels() == plain.corner_labels()
        assert [c.label for c in felt.partly_shown] == [c.label for c in plain.partly_shown]
        assert not np.array_equal(felt.image, plain.image)
        assert plain.decoys == ()
        for x1, y1, x2, y2 in felt.decoys:
            assert 0 <= x1 < x2 <= 800 and 0 <= y1 < y2 <= 600
    seeds_with_decoys = sum(
        bool(render_scene(seed, size=(800, 600), printed_felt=True).decoys) for seed in range(6)
    )
    assert seeds_with_decoys >= 4


def test_the_felt_renderers_label_decoys_as_no_card_only_when_asked():
    image, labels = scene_renderer("cards_felt")(5)
    _image, with_decoys = scene_renderer("cards_felt@decoys")(5)
    assert NOT_A_PIECE not in {label for label, _box in labels}
    nones = [box for label, box in with_decoys if label == NOT_A_PIECE]
    assert nones and [row for row in with_decoys if row[0] != NOT_A_PIECE] == labels
    assert image.ndim == 3


def test_a_bare_felt_holds_no_card():
    image, labels = scene_renderer("cards_bare_felt")(2)
    assert labels == [] and image.ndim == 3
    assert np.array_equal(render_bare_felt(2), image)
