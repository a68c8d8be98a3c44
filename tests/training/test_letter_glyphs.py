"""The letter glyph reader's training data: each lettered index labelled with the letter its
deck prints, numbers and background as none."""

from __future__ import annotations

import numpy as np

from training.letter_glyphs import SPEC, glyph_of, scene_crops
from vision.cards import GLYPHS


def test_a_corner_is_labelled_with_the_letter_its_deck_prints():
    assert GLYPHS[glyph_of("JH", "pl")] == "W"
    assert GLYPHS[glyph_of("JH", "de")] == "B"
    assert GLYPHS[glyph_of("KS", "fr")] == "R"
    assert GLYPHS[glyph_of("QD", "en")] == "Q"
    assert GLYPHS[glyph_of("AC", "fr")] == "A"
    assert GLYPHS[glyph_of("10C", "pl")] == "none"


def test_a_scene_gives_stored_crops_with_glyph_and_suit_targets():
    crops, glyphs, suits = scene_crops(1, "fr", np.random.default_rng(0))
    assert len(crops) == len(glyphs) == len(suits) > 2
    assert all(crop.shape == (SPEC.store_size, SPEC.store_size, 3) for crop in crops)
    assert set(glyphs) <= set(range(len(GLYPHS)))
    assert not {GLYPHS[g] for g in glyphs} & {"J", "Q", "K", "W", "B"}  # French: V D R A
    # the two background boxes: none, no suit
    assert glyphs[-2:] == [GLYPHS.index("none")] * 2 and suits[-2:] == [-1, -1]
