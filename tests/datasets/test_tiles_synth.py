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


def test_camera_crop_stays_inside_the_tilted_canvas_and_scales_the_boxes():
    """No border is filled in (a mirrored border showed unlabelled tiles), also when the tilted
    canvas is smaller than the photo: then the enlargement is in the homography the boxes use."""
    import cv2

    from datasets.scene import camera

    for seed, (big_w, big_h, w, h) in enumerate(
        [(1300, 1000, 1000, 750), (700, 600, 1000, 750), (900, 1300, 720, 960)]
    ):
        for k in range(20):
            homography = camera(np.random.default_rng(seed * 100 + k), big_w, big_h, w, h)
            photo_corners = np.array([[[0, 0], [w, 0], [w, h], [0, h]]], np.float64)
            canvas = cv2.perspectiveTransform(photo_corners, np.linalg.inv(homography))[0]
            assert (canvas >= -1e-6).all() and (canvas[:, 0] <= big_w).all()
            assert (canvas[:, 1] <= big_h).all()
    # A canvas smaller than the photo is enlarged: a canvas point maps beyond its own span.
    homography = camera(np.random.default_rng(1), 700, 600, 1000, 750)
    span = cv2.perspectiveTransform(np.array([[[0, 0], [700, 600]]], np.float64), homography)[0]
    assert span[1, 0] - span[0, 0] > 1000


def test_layout_has_crowded_piles_and_diagonal_rows():
    from datasets.tiles_synth import heap_layout, layout

    rng = np.random.default_rng(3)
    pile = heap_layout(rng, 750, 1000, 60)
    assert len(pile) >= 8
    centre = np.mean([(x, y) for x, y, _a, _w in pile], axis=0)
    assert max(np.hypot(x - centre[0], y - centre[1]) for x, y, _a, _w in pile) < 60 * 6 * 1.2
    assert len({round(a) for _x, _y, a, _w in pile}) > len(pile) // 2  # many angles
    diagonal_rows = 0
    for seed in range(40):
        angles = [a for _x, _y, a, _w in layout(np.random.default_rng(seed), 750, 1000)]
        for a, b, c in zip(angles, angles[1:], angles[2:], strict=False):
            # three tiles in a row (one angle) lying 30-60 degrees off the photo's axes
            if max(a, b, c) - min(a, b, c) < 8 and abs(a % 90 - 45) <= 16:
                diagonal_rows += 1
                break
    assert diagonal_rows >= 20
