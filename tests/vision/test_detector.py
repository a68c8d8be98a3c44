"""The detector's input: a zoomed-out pass's letterbox made without building its big canvas, a
quarter-turned pass's from the photo shrunk once."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detector import OnnxDetector, Placement, _aligned_span


def _detector(size: int) -> OnnxDetector:
    """A detector's letterbox alone (no model: ``letterbox`` uses only the input size)."""
    detector = object.__new__(OnnxDetector)
    detector.size = (size, size)
    detector._shrunk = None
    return detector


@pytest.mark.parametrize(
    ("height", "width", "size"),
    [(1200, 1600, 512), (3024, 4032, 512), (1599, 1201, 512), (777, 1333, 640), (290, 150, 512)],
)
def test_a_placed_photo_letterboxes_exactly_as_its_canvas(height, width, size):
    photo = np.random.default_rng(height).integers(0, 256, (height, width, 3), dtype=np.uint8)
    big_h, big_w = height * 2, width * 2
    top, left = (big_h - height) // 2, (big_w - width) // 2
    canvas = np.full((big_h, big_w, 3), 114, np.uint8)
    canvas[top : top + height, left : left + width] = photo
    detector = _detector(size)
    whole, *geometry = detector.letterbox(canvas)
    placed, *placed_geometry = detector.letterbox(photo, Placement(big_h, big_w, top, left))
    assert placed_geometry == geometry
    np.testing.assert_array_equal(placed, whole)


def test_an_aligned_span_starts_and_ends_on_whole_pixels_of_both_sides():
    # 3200 px shrunk to 512: 6.25 canvas px an output px; whole on both sides every 4 output px
    start, end, out_start, out_end = _aligned_span(801, 1600, 3200, 512)
    assert (start, out_start) == (800, 128)
    assert (end, out_end) == (2425, 388)
    assert _aligned_span(0, 3200, 3200, 512) == (0, 3200, 0, 512)


@pytest.mark.parametrize(
    ("height", "width", "size", "exact"),
    [
        (1200, 1600, 640, True),
        (3000, 4000, 640, True),
        (1199, 1601, 640, False),
        (777, 1403, 512, False),
    ],
)
def test_a_quarter_turned_letterbox_is_the_turned_photos(height, width, size, exact):
    """Turned after shrinking, not before: the same geometry, the same pixels where the shrink
    is by a whole ratio, otherwise at most one grey level apart in a few pixels (the order in
    which area averaging sums)."""
    photo = np.random.default_rng(height).integers(0, 256, (height, width, 3), dtype=np.uint8)
    detector = _detector(size)
    expected, *geometry = detector.letterbox(cv2.rotate(photo, cv2.ROTATE_90_CLOCKWISE))
    turned, *turned_geometry = detector.letterbox(photo, turned=True)
    assert turned_geometry == geometry
    difference = np.abs(turned.astype(int) - expected)
    assert difference.max() <= (0 if exact else 1)
    assert (difference > 0).mean() < 1e-3


def test_a_photo_is_shrunk_once_for_every_pass():
    detector = _detector(640)
    photo = np.random.default_rng(0).integers(0, 256, (1200, 1600, 3), dtype=np.uint8)
    first = detector.shrunk(photo)
    assert first.shape == (480, 640, 3)
    assert detector.shrunk(photo) is first  # the whole pass, then the quarter-turned one
    other = photo.copy()
    assert detector.shrunk(other) is not first  # another photo: shrunk anew
    tile = photo[:640, :640]
    assert detector.shrunk(tile) is tile  # a tile already fits
