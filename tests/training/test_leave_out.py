"""Leaving a printing out of the tile reader's training: the scene sets and renderer names that
``training.train --kind tiles --leave-out`` and ``benchmarks/tiles_generalisation.py
--leave-out`` share."""

import numpy as np

from datasets.tile_printings import HELD_OUT_PRINTING, PRINTING_NAMES
from datasets.tiles_racks import (
    TRAINING_RACKS,
    leave_out_sets,
    render_held_out_printing_scene,
    render_look2_detailed,
)
from training.scenes import scene_renderer
from training.shipped import HELD_OUT_SETS, LOOK2_RENDERER, LOOK2_SYNTH, look2_sets


def test_the_shipped_leave_out_keeps_the_shipped_folders():
    assert look2_sets() == {LOOK2_SYNTH: LOOK2_RENDERER, **HELD_OUT_SETS}
    assert leave_out_sets(HELD_OUT_PRINTING)["training"][0] == tuple(
        p for p in PRINTING_NAMES if p != HELD_OUT_PRINTING
    )


def test_another_printing_left_out_gets_folders_and_scenes_of_its_own():
    left_out = next(p for p in PRINTING_NAMES if p != HELD_OUT_PRINTING)
    folders = look2_sets(left_out)
    assert not set(folders) & {LOOK2_SYNTH, "heldout_printing"}
    printings, racks, _share = leave_out_sets(left_out)["training"]
    assert left_out not in printings and HELD_OUT_PRINTING in printings
    assert racks == TRAINING_RACKS
    for seed in range(3):
        scene = render_look2_detailed(seed, *leave_out_sets(left_out)["training"])
        assert scene.printing != left_out
    # "NAME@ARG" names the renderer NAME called with (seed, ARG), as the generator's processes do
    _folder, renderer = list(folders.items())[1]
    image, labels, _quads = scene_renderer(renderer)(5)
    expected = render_held_out_printing_scene(5, left_out)
    assert np.array_equal(image, expected[0]) and labels == expected[1]
    assert render_look2_detailed(5, *leave_out_sets(left_out)["held_out_printing"]).printing == (
        left_out
    )
