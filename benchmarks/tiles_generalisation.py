"""The tile reader on sets it has never seen: ``python benchmarks/tiles_generalisation.py``.

Prints one row per set of scenes (F1 of the label multiset per photo, photos read exactly,
precision of the pieces flagged sure and their share, seconds per photo), as ``meldcam eval``:

- ``seen``: look-2 validation scenes (``datasets.tiles_racks.render_training_scene``, the
  validation seeds): printings and rack styles that training draws, scenes it never saw;
- ``held-out printing``: scenes of ``HELD_OUT_PRINTING`` only, which training never draws;
- ``held-out rack``: rack scenes of ``HELD_OUT_RACK`` only, which training never draws;
- ``look 1``: scenes of the older generator (``datasets.tiles_synth.render_scene``);
- the real photos of ``../shared/realdata/dev`` where found (all whole-table photos and the
  held-out quarter of the trainable source).

Scenes are rendered from the seeds ``vision.training.train_tiles`` uses (``--scenes`` per set,
cached under ``datasets/generated/tiles``), so a run needs no training data. ``--models DIR``
measures another set of model files (a candidate) than the shipped ones.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from datasets.realdata import realdata_dir
from vision.evaluate import SYNTHETIC_GROUP, evaluate, evaluate_synthetic
from vision.pipeline import MODELS_DIR, Recogniser
from vision.training.train_tiles import (
    HELD_OUT_SETS,
    LOOK2_RENDERER,
    LOOK2_SYNTH,
    SEED,
    TILE_RENDERER,
    WORK,
    generate,
)

# name -> (folder under WORK, renderer, seed): the validation scenes of train_tiles' rounds.
SETS = {
    "seen (look 2)": (LOOK2_SYNTH, LOOK2_RENDERER, SEED + 5),
    "held-out printing": ("heldout_printing", HELD_OUT_SETS["heldout_printing"], SEED + 6),
    "held-out rack": ("heldout_rack", HELD_OUT_SETS["heldout_rack"], SEED + 7),
    "look 1": ("synth", TILE_RENDERER, SEED),
}


def _row(name: str, group: dict) -> str:
    def fmt(value, spec: str = ".3f") -> str:
        return "-" if value is None else format(value, spec)

    exact = f"{round(group['exact'] * group['photos'])}/{group['photos']}"
    return (
        f"{name:<22} {group['photos']:>4} {fmt(group['f1']):>7} {exact:>8} "
        f"{fmt(group.get('sure_precision'), '.4f'):>9} {fmt(group.get('sure_share')):>7} "
        f"{fmt(group['seconds_per_photo']):>8}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--scenes", type=int, default=60, help="validation scenes per set")
    parser.add_argument("--sets", default=",".join(SETS), help="comma-separated set names")
    parser.add_argument("--no-real", action="store_true")
    args = parser.parse_args(argv)
    recogniser = Recogniser("tiles", models_dir=args.models)
    print(f"tile reader {args.models}")
    print(f"{'set':<22} {'n':>4} {'F1':>7} {'exact':>8} {'sure P':>9} {'sure %':>7} {'s/photo':>8}")
    for name in args.sets.split(","):
        folder, renderer, seed = SETS[name]
        generate(WORK, 0, args.scenes, seed, name=folder, renderer=renderer, quiet=True)
        report = evaluate_synthetic(WORK / folder / "val", "tiles", recogniser)
        print(_row(name, report["groups"][SYNTHETIC_GROUP]), flush=True)
    data = None if args.no_real else realdata_dir()
    if data is not None:
        report = evaluate(data, "tiles", recogniser)
        for group in ("all", "held_out"):
            if group in report["groups"]:
                print(_row(f"real dev: {group}", report["groups"][group]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
