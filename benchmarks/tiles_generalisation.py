"""The tile reader on sets it has never seen: ``python -m benchmarks.tiles_generalisation``.

Prints one row per set of scenes (F1 of the label multiset per photo, photos read exactly,
precision of the pieces flagged sure and their share, seconds per photo), as ``meldcam eval``,
and how its jokers were read (a joker design never seen, read surely as a number, is what the
sure flag must not do):

- ``seen``: look-2 validation scenes (``datasets.tiles_racks.render_training_scene``, the
  validation seeds): printings and rack styles that training draws, scenes it never saw;
- ``held-out printing``: scenes of the printing left out (``HELD_OUT_PRINTING`` for the shipped
  models), which training never draws;
- ``held-out rack``: rack scenes of ``HELD_OUT_RACK`` only, which training never draws;
- ``look 1``: scenes of the older generator (``datasets.tiles_synth.render_scene``);
- the real photos of ``../shared/realdata/dev`` where found (all whole-table photos and the
  held-out quarter of the trainable source).

Scenes are rendered from the seeds ``training.train --kind tiles`` uses (``--scenes`` per
set, cached under ``datasets/generated/tiles``), so a run needs no training data. ``--models
DIR`` measures another set of model files (a candidate) than the shipped ones. Leaving another
printing out: ``training.train --kind tiles --leave-out NAME --work W --out W/models`` trains a
reader without it, and ``--leave-out NAME --work W --models W/models`` here measures that
reader on it.

Each synthetic set has two rows. The first scores every tile read, as ``meldcam eval`` does: a
reading of a tile that shows less than 60 % of its face (cut off by the frame, behind a tier or
another tile: not labelled) counts as a tile found where there is none. The second ("partly
shown not scored") leaves such readings out, right or wrong, as PASCAL VOC leaves out its
"difficult" objects; the sure precision of that row still judges them by their true label.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from datasets.realdata import realdata_dir
from datasets.tile_printings import HELD_OUT_PRINTING, PRINTING_NAMES
from datasets.tiles_racks import leave_out_sets, render_look2_detailed
from datasets.tiles_synth import render_scene_detailed
from meldcam.vocabulary import TILE_JOKER
from training.calibrate import assign
from training.evaluate import Score, evaluate, synthetic_scenes
from training.offline import GENERATED
from training.scenes import generate
from training.shipped import TILES_SEED as SEED
from training.shipped import look2_sets
from vision.pipeline import MODELS_DIR, Recogniser

Partly = Callable[[int], list]  # a scene's seed -> its partly shown tiles


def sets(left_out: str = HELD_OUT_PRINTING) -> dict[str, tuple[str, str, str, int, Partly]]:
    """Key -> (name, folder under the work folder, renderer, seed, partly shown tiles): the
    validation scenes of the tile recipe's sets, with ``left_out`` the printing training never
    drew (``training.train --kind tiles --leave-out``)."""
    (look2, look2_renderer), (printing, printing_renderer), (rack, rack_renderer) = look2_sets(
        left_out
    ).items()
    look2_of = leave_out_sets(left_out)

    def partly_shown(key: str) -> Partly:
        return lambda seed: render_look2_detailed(seed, *look2_of[key]).partial

    return {
        "seen": ("seen (look 2)", look2, look2_renderer, SEED + 5, partly_shown("training")),
        "printing": (
            f"held-out printing ({left_out})",
            printing,
            printing_renderer,
            SEED + 6,
            partly_shown("held_out_printing"),
        ),
        "rack": ("held-out rack", rack, rack_renderer, SEED + 7, partly_shown("held_out_rack")),
        "look1": ("look 1", "synth", "tiles", SEED, lambda s: render_scene_detailed(s)[3]),
    }


def score_set(
    folder: Path, recogniser: Recogniser, partly_shown, jokers: Counter[str] | None = None
) -> tuple[Score, Score]:
    """Every reading scored, and the readings of partly shown tiles left out (module
    docstring); ``jokers`` counts how the labelled jokers were read: "found", "joker" (read as
    a joker) and "sure number" (read surely as a number: a joker design the reader takes for
    a numeral)."""
    every, labelled_only = Score(), Score()
    jokers = Counter() if jokers is None else jokers
    for scene in synthetic_scenes(folder, "tiles"):
        started = time.perf_counter()
        pieces = recogniser.recognise(scene.image)["pieces"]
        seconds = time.perf_counter() - started
        truth = [label for label, _box in scene.pieces]
        _add(every, scene.name, pieces, truth, seconds)
        boxes = [(label, [list(box)]) for label, box in [*scene.pieces, *partly_shown(scene.seed)]]
        taken = assign(pieces, boxes)
        on_partial = [j is not None and j >= len(truth) for j in taken]
        for piece, j in zip(pieces, taken, strict=True):
            if j is not None and j < len(truth) and truth[j] == TILE_JOKER:
                jokers["found"] += 1
                jokers["joker"] += piece["label"] == TILE_JOKER
                jokers["sure number"] += piece["label"] != TILE_JOKER and bool(piece["sure"])
        kept = [p for p, partial in zip(pieces, on_partial, strict=True) if not partial]
        _add(labelled_only, scene.name, kept, truth, seconds)
        # sure readings of partly shown tiles are judged by their true labels
        for piece, j, partial in zip(pieces, taken, on_partial, strict=True):
            if partial and piece["sure"]:
                labelled_only.sure += 1
                labelled_only.sure_matched += piece["label"] == boxes[j][0]
    return every, labelled_only


def _add(score: Score, name: str, pieces: list[dict], truth: list[str], seconds: float) -> None:
    labels = [p["label"] for p in pieces]
    score.add(name, labels, truth, seconds, [p["label"] for p in pieces if p["sure"]])


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
    parser.add_argument("--sets", default="seen,printing,rack,look1", help="comma-separated")
    parser.add_argument(
        "--work", type=Path, default=GENERATED / "tiles", help="the tiles' training work folder"
    )
    parser.add_argument(
        "--leave-out",
        default=HELD_OUT_PRINTING,
        choices=PRINTING_NAMES,
        help="the printing the models' training left out (training.train --kind tiles --leave-out)",
    )
    parser.add_argument("--no-real", action="store_true")
    args = parser.parse_args(argv)
    recogniser = Recogniser("tiles", models_dir=args.models)
    print(f"tile reader {args.models}")
    print(f"{'set':<22} {'n':>4} {'F1':>7} {'exact':>8} {'sure P':>9} {'sure %':>7} {'s/photo':>8}")
    chosen = sets(args.leave_out)
    for key in args.sets.split(","):
        name, folder, renderer, seed, partly_shown = chosen[key]
        generate(args.work, 0, args.scenes, seed, name=folder, renderer=renderer, quiet=True)
        jokers: Counter[str] = Counter()
        every, labelled_only = score_set(
            args.work / folder / "val", recogniser, partly_shown, jokers
        )
        print(_row(name, every.as_dict()), flush=True)
        print(_row("  partly shown not scored", labelled_only.as_dict()), flush=True)
        print(
            f"  jokers: {jokers['joker']} of {jokers['found']} found read as jokers, "
            f"{jokers['sure number']} surely as a number",
            flush=True,
        )
    data = None if args.no_real else realdata_dir()
    if data is not None:
        report = evaluate(data, "tiles", recogniser)
        for group in ("all", "held_out"):
            if group in report["groups"]:
                print(_row(f"real dev: {group}", report["groups"][group]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
