"""The synthetic tile generator: reproducible, labels inside the photo, every label valid."""

from __future__ import annotations

import numpy as np

from datasets.tiles_synth import all_labels, random_label, render_scene, render_test_layout


def test_same_seed_same_scene_and_labels():
    a_img, a_labels = render_scene(123)
    b_img, b_labels = render_scene(123)
    assert np.array_equal(a_img, b_img) and a_labels == b_labels
    c_img, _ = render_scene(124)
    assert a_img.shape != c_img.shape or not np.array_equal(a_img, c_img)


def test_labels_are_valid_and_boxes_inside_the_photo():
    valid = set(all_labels())
    total = 0
    for seed in range(5):
        img, labels = render_scene(seed, size=(640, 480))
        assert img.shape == (480, 640, 3) and img.dtype == np.uint8
        for label, (x1, y1, x2, y2) in labels:
            assert label in valid
            assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 480
        total += len(labels)
    assert total > 20


def test_random_labels_cover_all_colours_numbers_and_the_joker():
    rng = np.random.default_rng(0)
    seen = {random_label(rng) for _ in range(5000)}
    assert "joker" in seen and {"red-1", "orange-13", "blue-17", "black-14"} <= seen


def test_test_layout_boxes_match_rows():
    img, labels = render_test_layout([["red-1", "red-2"], ["joker"]])
    assert [label for label, _ in labels] == ["red-1", "red-2", "joker"]
    (_, a), (_, b), (_, c) = labels
    assert a[2] < b[0] and a[3] < c[1]  # side by side, then the next row below
    assert img.shape[0] > c[3] and img.shape[1] > b[2]
