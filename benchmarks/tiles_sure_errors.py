"""How right the tiles' ``sure`` flag is with both readers, on rendered scenes of every family,
the held-out printing and rack included, and what the sure errors are.

``python -m benchmarks.tiles_sure_errors [--scenes 100 --seed 20261208]`` reads ``--scenes``
scenes of each family: tile tables (``tiles_synth``), racks of the printings training draws,
racks of the printing it leaves out, and racks of the held-out rack style; each with every tile
it shows, the partly shown ones too (so a reading of one is judged by its label, as ``meldcam
calibrate`` judges). A piece is right when it took a true tile of its label (``assign``, IoU >=
0.5). It prints, per family, the tiles read, the sure share, the sure precision and its upper
95 % bound, and the sure errors by kind: a 6 and a 9 swapped, a leading 1 lost (3 read for a
13), another value or colour, or a reading that took no tile (a tile boxed twice or a box off
its tile). Figures: docs/experiments/tiles.md, "Sure errors with both readers".
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Callable

import numpy as np

from datasets.tiles_racks import LOOK2_SETS, leave_out_sets, render_look2_detailed
from training.calibrate import assign, clopper_pearson_upper, renderer
from training.shipped import HELD_OUT_PRINTING
from vision.kinds import TILES
from vision.pipeline import Recogniser

Scene = tuple[np.ndarray, list[tuple[str, list[list[float]]]]]


def _look2(sets: tuple) -> Callable[[int], Scene]:
    def scene(seed: int) -> Scene:
        drawn = render_look2_detailed(seed, *sets)
        every = drawn.labels + drawn.partial
        return drawn.image, [(label, [list(map(float, box))]) for label, box in every]

    return scene


def families() -> dict[str, Callable[[int], Scene]]:
    return {
        "tables": renderer("datasets.tiles_synth:render_scene_every_tile"),
        "racks": renderer("datasets.tiles_racks:render_training_scene_every_tile"),
        "held-out printing": _look2(leave_out_sets(HELD_OUT_PRINTING)["held_out_printing"]),
        "held-out rack": _look2(LOOK2_SETS["held_out_rack"]),
    }


def error_kind(label: str, truth: str | None) -> str:
    """What a sure reading of ``label`` that took the tile ``truth`` (None: none) got wrong."""
    if truth is None:
        return "took no tile"
    read, true = label.split("-")[-1], truth.split("-")[-1]
    if {read, true} == {"6", "9"}:
        return "6 and 9 swapped"
    if true == "1" + read:
        return "leading 1 lost"
    return "value" if read != true else "colour"


def tally(recogniser: Recogniser, scene: Scene) -> Counter:
    image, truth = scene
    pieces = recogniser.recognise(image, channels="bgr")["pieces"]
    counts: Counter = Counter(read=len(pieces))
    for piece, j in zip(pieces, assign(pieces, truth), strict=True):
        true = None if j is None else truth[j][0]
        if piece["sure"]:
            counts["sure"] += 1
            if piece["label"] != true:
                counts["sure wrong"] += 1
                counts[error_kind(piece["label"], true)] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, default=100, help="scenes of each family")
    parser.add_argument("--seed", type=int, default=20261208)
    args = parser.parse_args(argv)
    recogniser = Recogniser(TILES)
    total: Counter = Counter()
    print(f"{'family':<18}{'read':>7}{'sure':>8}{'precision':>11}{'bound':>8}  sure errors")
    for name, render in families().items():
        counts: Counter = Counter()
        for i in range(args.scenes):
            counts += tally(recogniser, render(args.seed * 1_000_003 + i))
        total += counts
        print(_row(name, counts))
    print(_row("all", total))
    return 0


def _row(name: str, counts: Counter) -> str:
    sure, wrong = counts["sure"], counts["sure wrong"]
    precision = f"{(sure - wrong) / sure:.4f}" if sure else "-"
    share = f"{sure / counts['read']:.1%}" if counts["read"] else "-"
    kinds = ", ".join(
        f"{kind} {counts[kind]}"
        for kind in ("6 and 9 swapped", "leading 1 lost", "value", "colour", "took no tile")
        if counts[kind]
    )
    bound = clopper_pearson_upper(wrong, sure)
    return f"{name:<18}{counts['read']:>7}{share:>8}{precision:>11}{bound:>8.4f}  {kinds or '-'}"


if __name__ == "__main__":
    raise SystemExit(main())
