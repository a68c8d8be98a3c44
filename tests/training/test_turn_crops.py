"""The turn head's training crops: the turn each crop shows follows from the two angles."""

from __future__ import annotations

import numpy as np
import pytest

from training.turn_crops import crop_turn, fold, scene_crops


@pytest.mark.parametrize(
    ("theta", "sideways", "turn"),
    [
        (0.0, False, 0),
        (10.0, False, 0),
        (180.0, False, 2),
        (-170.0, False, 2),
        (90.0, False, 3),
        (-90.0, False, 1),
        (0.0, True, 1),
        (90.0, True, 0),
    ],
)
def test_the_turn_a_crop_shows(theta: float, sideways: bool, turn: int) -> None:
    assert -45 <= fold(theta) < 45
    assert crop_turn(theta, sideways) == turn


def test_a_scene_s_crops_are_cut_and_labelled() -> None:
    crops = scene_crops(20761129)
    assert crops, "a scene with no tile"
    for crop, value, colour, turn in crops:
        assert crop.shape == (80, 80, 3) and crop.dtype == np.uint8
        assert 0 <= value < 19 and -1 <= colour < 4 and 0 <= turn < 4
