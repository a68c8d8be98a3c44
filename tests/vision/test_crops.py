"""Crops are cut square to the tile, whatever its angle on the table."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets.tiles_synth import background, paste_piece, piece_corners, piece_matrix, render_tile
from vision.crops import CROP_SIZE, cut_crop, face_size, tile_angle


def table_with_tile(angle: float, seed: int = 1):
    rng = np.random.default_rng(seed)
    scene = background(np.random.default_rng(seed + 10), 400, 400)
    face = render_tile(rng, "blue-7", 100)
    matrix = piece_matrix(face.shape[1], face.shape[0], 200, 200, angle)
    paste_piece(scene, np.full(scene.shape[:2], -1, np.int32), face, matrix, 0)
    quad = piece_corners(matrix, face.shape[1], face.shape[0])
    return scene, [*quad.min(axis=0), *quad.max(axis=0)]


def fold(angle: float) -> float:
    return (angle + 45) % 90 - 45


@pytest.mark.parametrize("angle", [0, 12, -25, 38, 60, 90, 131, -160])
def test_tile_angle_is_found_modulo_a_quarter_turn(angle):
    scene, box = table_with_tile(angle)
    # OpenCV's rotation is counter-clockwise for positive angles; image y points down.
    assert abs(fold(tile_angle(scene, box) + angle)) < 5


@pytest.mark.parametrize("angle", [0, 20, -35, 90, 180])
def test_crop_is_square_to_the_tile(angle):
    scene, box = table_with_tile(angle)
    crop = cut_crop(scene, box)
    assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
    # The tile (light) fills the crop's middle; its border rows are mostly tile too, not table.
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    assert gray[8:-8, 8:-8].mean() > 150


def test_crop_at_the_photo_edge_is_padded_grey():
    image = np.full((100, 100, 3), 255, np.uint8)
    crop = cut_crop(image, [-40, -40, 30, 50])
    assert crop.shape == (CROP_SIZE, CROP_SIZE, 3)
    assert (crop == 114).all(axis=2).any()


@pytest.mark.parametrize("angle", [0, 25, -40, 70])
def test_face_size_inverts_a_turned_rectangles_extent(angle):
    w, h = 60.0, 80.0
    corners = cv2.boxPoints(((100, 100), (w, h), angle))
    (x1, y1), (x2, y2) = corners.min(0), corners.max(0)
    fw, fh = face_size(x2 - x1, y2 - y1, fold(angle))  # angles as tile_angle gives them
    if abs(abs(fold(angle)) - 45) > 10:  # a quarter turn swaps the sides
        assert sorted((fw, fh)) == pytest.approx([w, h], abs=0.5)
    else:  # near 45 degrees the extent does not tell the sides apart: a square that fits
        assert fw == pytest.approx(fh) and fw <= max(x2 - x1, y2 - y1)


def test_to_tensor_is_rgb_nchw_in_0_1_with_half_turns_after():
    from vision.crops import to_tensor

    rng = np.random.default_rng(7)
    crops = [rng.integers(0, 256, (8, 8, 3), dtype=np.uint8) for _ in range(3)]
    tensor = to_tensor(crops, half_turns=True)
    assert tensor.shape == (6, 3, 8, 8) and tensor.dtype == np.float32
    for i, crop in enumerate(crops):
        rgb = crop[..., ::-1].transpose(2, 0, 1) / 255.0
        np.testing.assert_allclose(tensor[i], rgb, atol=1e-6)
        np.testing.assert_allclose(tensor[3 + i], rgb[:, ::-1, ::-1], atol=1e-6)
    assert to_tensor(crops).shape == (3, 3, 8, 8)


@pytest.mark.parametrize("angle", [0, 25, 40, 45, 50, -70])
def test_a_rotated_boxs_sides_are_kept_where_the_extent_cannot_tell_them(angle):
    """A rotated box (a domino's) gives its sides: near 45 degrees they are cut as they are, not
    as a square; elsewhere they are what the extent gives anyway."""
    w, h = 150.0, 300.0
    corners = cv2.boxPoints(((400, 400), (w, h), angle))
    (x1, y1), (x2, y2) = corners.min(0), corners.max(0)
    theta = fold(angle)
    sides = (w, h) if round((angle - theta) / 90) % 2 == 0 else (h, w)
    assert face_size(x2 - x1, y2 - y1, theta, sides) == pytest.approx(sides)
    if abs(abs(theta) - 45) > 10:
        assert face_size(x2 - x1, y2 - y1, theta) == pytest.approx(sides, abs=0.5)
