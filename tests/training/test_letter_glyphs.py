"""The letter glyph reader's training data: each lettered index labelled with the letter its
deck prints, numbers and background as none."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from training.letter_glyphs import SPEC, glyph_of, scene_crops
from vision.cards import GLYPH_READER, GLYPHS

ROOT = Path(__file__).resolve().parents[2]


def test_a_corner_is_labelled_with_the_letter_its_deck_prints():
    assert GLYPHS[glyph_of("JH", "pl")] == "W"
    assert GLYPHS[glyph_of("JH", "de")] == "B"
    assert GLYPHS[glyph_of("KS", "fr")] == "R"
    assert GLYPHS[glyph_of("QD", "en")] == "Q"
    assert GLYPHS[glyph_of("AC", "fr")] == "A"
    assert GLYPHS[glyph_of("10C", "pl")] == "none"
    assert GLYPHS[glyph_of("JK", "pl")] == "none"  # a joker, not a jack


def test_a_scene_gives_stored_crops_with_glyph_and_suit_targets():
    crops, glyphs, suits = scene_crops(1, "fr", np.random.default_rng(0))
    assert len(crops) == len(glyphs) == len(suits) > 2
    assert all(crop.shape == (SPEC.store_size, SPEC.store_size, 3) for crop in crops)
    assert set(glyphs) <= set(range(len(GLYPHS)))
    assert not {GLYPHS[g] for g in glyphs} & {"J", "Q", "K", "W", "B"}  # French: V D R A
    # the two background boxes: none, no suit
    assert glyphs[-2:] == [GLYPHS.index("none")] * 2 and suits[-2:] == [-1, -1]


@pytest.mark.slow
def test_a_tiny_run_writes_a_glyph_reader_and_resumes(tmp_path):
    """Two scenes a set, one epoch: an ONNX file with one output per glyph; run again, the
    checkpoint is resumed (nothing trained) and the file written again."""
    command = [
        sys.executable,
        "-m",
        "training.letter_glyphs",
        "--out",
        str(tmp_path / "models"),
        "--work",
        str(tmp_path / "work"),
        "--scenes",
        "2",
        "--epochs",
        "1",
    ]
    first = subprocess.run(command, cwd=ROOT, check=True, timeout=600, capture_output=True)
    assert b"epoch 1/1" in first.stdout
    again = subprocess.run(command, cwd=ROOT, check=True, timeout=600, capture_output=True)
    assert b"epoch 1/1" not in again.stdout  # resumed after its last epoch
    session = ort.InferenceSession(str(tmp_path / "models" / GLYPH_READER))
    glyph, suit = session.run(None, {"crops": np.zeros((3, 3, 64, 64), np.float32)})
    assert glyph.shape == (3, len(GLYPHS)) and suit.shape == (3, 4)
    assert np.allclose(glyph.sum(1), 1.0, atol=1e-4)
