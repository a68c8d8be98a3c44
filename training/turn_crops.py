"""Tile crops that know which way is up: the training data of the reader's turn head.

The reader learns tiles at all four quarter turns, so a 6 and a 9 printed without a mark under
the numeral look alike to it. The way up of a row (a rack, a meld) shows in its other tiles,
though: the turn head reads, with the value, how many quarter turns (counter-clockwise) the tile
shows in its crop, and ``vision`` settles a 6 or 9 by the turn its row agrees on.

Crops are cut as the recogniser cuts them (``cut_crop`` at the angle folded into (-45, 45], a
quarter turn more when the tile lies sideways) from look-2 scenes of the printings and racks
training may see, whose faces' angles the generator knows; each crop's turn follows from the
two angles (see ``crop_turn``).

    python -m training.turn_crops --scenes 1500 \
        --out datasets/generated/tiles/classifier/turn_crops.npz
"""

from __future__ import annotations

import argparse
import functools
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from datasets.tile_printings import HELD_OUT_PRINTING

SEED = 20761129  # far from every other tile scene set's seeds (training, validation, calibration)
# Sets whose jokers are a random pictogram (``datasets.tile_printings``): joker designs no
# printing of the catalogue has, so that an unseen design reads as a joker, not as a number.
PICTOGRAM_JOKERS = 0.5


def fold(theta: float) -> float:
    """``theta`` folded into [-45, 45): the angle the recogniser estimates (modulo a quarter)."""
    return ((theta + 45.0) % 90.0) - 45.0


def crop_turn(theta: float, sideways: bool) -> int:
    """Quarter turns (counter-clockwise, as ``np.rot90`` and ``cv2.getRotationMatrix2D``
    turn) of an upright tile that a crop cut at ``fold(theta)`` (plus a quarter when the tile
    lies ``sideways``) shows: a crop cut at angle a shows a tile of angle theta turned
    (a - theta) / 90 quarters."""
    quarters = round((theta - fold(theta)) / 90.0)
    return (int(sideways) - quarters) % 4


def scene_crops(seed: int, left_out: str = HELD_OUT_PRINTING):
    """One look-2 training scene's crops (as the recogniser cuts them), values, colours, turns:
    the printings and racks training may see (every printing but ``left_out``)."""
    from datasets.tiles_racks import leave_out_sets, render_look2_detailed
    from training.classifier import TILE_SPEC
    from vision.crops import STORE_MARGIN, cut_crop, face_size

    scene = render_look2_detailed(
        seed, *leave_out_sets(left_out)["training"], pictogram_jokers=PICTOGRAM_JOKERS
    )
    out = []
    for (label, box), theta in zip(scene.labels, scene.angles, strict=True):
        angle = fold(theta)
        w, h = face_size(box[2] - box[0], box[3] - box[1], angle)
        crop = cut_crop(scene.image, box, TILE_SPEC.store_size, STORE_MARGIN, theta=angle)
        value, colour = TILE_SPEC.targets(label)
        out.append((crop, value, colour, crop_turn(theta, w > h * 1.05)))
    return out


def collect(scenes: int, seed: int = SEED, workers: int = 2, left_out: str = HELD_OUT_PRINTING):
    crops, values, colours, turns = [], [], [], []
    cut = functools.partial(scene_crops, left_out=left_out)
    with ProcessPoolExecutor(workers) as pool:
        for found in pool.map(cut, range(seed, seed + scenes), chunksize=8):
            for crop, value, colour, turn in found:
                crops.append(crop)
                values.append(value)
                colours.append(colour)
                turns.append(turn)
    return (
        np.stack(crops),
        np.array(values, np.int64),
        np.array(colours, np.int64),
        np.array(turns, np.int64),
    )


def make(path: Path, scenes: int, left_out: str = HELD_OUT_PRINTING, seed: int = SEED) -> Path:
    """The turn crops of ``scenes`` scenes saved at ``path`` (kept: made once)."""
    if path.exists():
        return path
    started = time.time()
    crops, values, colours, turns = collect(scenes, seed, left_out=left_out)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez(path, crops=crops, values=values, colours=colours, turns=turns)
    counts = np.bincount(turns, minlength=4).tolist()
    print(
        f"turn crops: {len(crops)} from {scenes} scenes, turns {counts} "
        f"({time.time() - started:.0f} s)"
    )
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=1200)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--leave-out", default=HELD_OUT_PRINTING)
    args = parser.parse_args(argv)
    make(args.out, args.scenes, args.leave_out, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
