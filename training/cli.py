"""``meldcam eval`` and ``meldcam calibrate``: measuring the recognisers, beside training.

``calibrate [FOLDER] --kind K [--set SET] [--scenes N] [--seed S] [--renderer
MODULE:FUNCTION[@LOOK]] [--write [--threshold NAME] [--metrics FILE]]``: the kind's (or one
set's) sure threshold by split conformal selection on synthetic scenes (training/calibrate.py);
``--write`` stores it, with the command and date, in the kind's metrics file
(``models/<kind>.json``, ``vision/metrics.py``), which the settings read it from.

``eval DATA_DIR [--kind tiles|dominoes|cards] [--set SET] [--synthetic] [--json]``: precision,
recall, F1 of the label multiset per photo, share of photos read exactly, seconds per photo,
precision of the pieces flagged sure and their share (see training/evaluate.py): real labelled
photos by group (whole-table photos, and single-piece crops apart), or with ``--synthetic`` a
folder of generated scenes (e.g. ``datasets/generated/dominoes/test/val``). ``--set`` reads
every photo for one set (a domino set, a card deck's index letters). A folder with nothing to
score exits 2. ``--record NAME [--metrics FILE]`` also stores the report, with the command and
date, as the figures ``NAME`` of the kind's metrics file (``models/<kind>.json``; the model
cards' tables are rendered from it: ``python -m training.model_cards``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from training.calibrate import SCENES
from vision.api import KINDS, Recogniser, get_recogniser
from vision.errors import ImageError, RecogniserUnavailable, UnknownSet


def register(subparsers) -> None:
    evaluate = subparsers.add_parser(
        "eval",
        help="score the recogniser on labelled photos",
        description="Precision, recall and F1 of the label multiset per photo, photos read "
        "exactly, seconds per photo.",
    )
    evaluate.add_argument("data_dir", type=Path, metavar="DATA_DIR")
    evaluate.add_argument("--kind", choices=KINDS, default="tiles", help="piece kind")
    evaluate.add_argument(
        "--synthetic",
        action="store_true",
        help="DATA_DIR is a folder of generated scenes (NAME.jpg + NAME.json with a seed)",
    )
    evaluate.add_argument(
        "--set",
        dest="set_name",
        metavar="SET",
        help="read for a set: a domino set (double-nine), a card deck's index letters (pl)",
    )
    evaluate.add_argument("--json", action="store_true", help="the report as JSON")
    evaluate.add_argument("--verbose", action="store_true", help="print each photo as it is read")
    evaluate.add_argument(
        "--record",
        metavar="NAME",
        help="also store the report as the figures NAME (e.g. dev) of the kind's metrics file",
    )
    _metrics_option(evaluate)
    evaluate.set_defaults(handler=run_eval)

    calibrate = subparsers.add_parser(
        "calibrate",
        help="choose a kind's sure threshold on synthetic scenes",
        description="The lowest sure threshold whose Clopper-Pearson 95%% upper bound of the "
        "error rate among sure pieces is at most 0.5%%, on calibration scenes never trained on "
        "(rendered from a fresh seed, or the generated scenes of FOLDER); see "
        "training/calibrate.py. Prints it; --write stores it in the kind's metrics file "
        "(models/KIND.json), which vision/kinds.py reads.",
    )
    calibrate.add_argument("folder", nargs="?", type=Path, metavar="FOLDER")
    calibrate.add_argument("--kind", choices=KINDS, default="tiles", help="piece kind")
    calibrate.add_argument(
        "--scenes",
        type=int,
        help="scenes to render (default: "
        + ", ".join(f"{kind} {count}" for kind, count in SCENES.items())
        + ")",
    )
    calibrate.add_argument("--seed", type=int, help="base seed (default 20261201)")
    calibrate.add_argument(
        "--renderer",
        action="append",
        metavar="MODULE:FUNCTION[@LOOK]",
        help="a scene renderer, seed -> (image, [(label, box), ...]); repeat for several, used "
        "in turn (default: the kind's generators, training.calibrate.DEFAULT_RENDERERS)",
    )
    calibrate.add_argument(
        "--set",
        dest="set_name",
        metavar="SET",
        help="calibrate the reading of one set, e.g. cards' index letters pl (its own reader; "
        "rendered on scenes of decks printing them)",
    )
    calibrate.add_argument(
        "--pieces",
        type=Path,
        metavar="FILE",
        help="also write each piece read: its scores, box, rotated box and photo size",
    )
    calibrate.add_argument("--json", action="store_true", help="the report as JSON")
    calibrate.add_argument("--verbose", action="store_true", help="print each scene as it is read")
    calibrate.add_argument(
        "--write",
        action="store_true",
        help="store the chosen threshold, with the command and date, in the kind's metrics file",
    )
    calibrate.add_argument(
        "--threshold",
        metavar="NAME",
        help="the threshold --write sets (default: sets.SET with --set, else sure; "
        "dark_faces for dark decks)",
    )
    _metrics_option(calibrate)
    calibrate.set_defaults(handler=run_calibrate)


def _metrics_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--metrics",
        type=Path,
        metavar="FILE",
        help="the metrics file written (default: models/KIND.json)",
    )


def run_calibrate(args: argparse.Namespace) -> int:
    from training.calibrate import run_calibrate as run

    return run(args)


def run_eval(args: argparse.Namespace) -> int:
    from training.evaluate import (
        EvalDataError,
        evaluate,
        evaluate_synthetic,
        format_report,
        real_photos,
        synthetic_scenes,
        to_json,
    )

    find, score = (
        (synthetic_scenes, evaluate_synthetic) if args.synthetic else (real_photos, evaluate)
    )
    try:
        find(args.data_dir, args.kind)  # the folder is checked before a model is loaded
        if args.set_name:  # a recogniser of its own, reading every photo for the set
            from vision.pipeline import Recogniser as SetRecogniser

            recogniser: Recogniser = SetRecogniser(args.kind, set_name=args.set_name)
        else:
            recogniser = get_recogniser(args.kind)
    except (EvalDataError, RecogniserUnavailable, UnknownSet) as error:
        print(f"meldcam: {error}", file=sys.stderr)
        return 2

    def progress(name, predicted, truth):
        if args.verbose:
            ok = "ok" if sorted(predicted) == sorted(truth) else "  "
            print(f"{ok} {name}: {len(predicted)} read, {len(truth)} true", file=sys.stderr)

    try:
        report = score(args.data_dir, args.kind, recogniser, progress)
    except (EvalDataError, ImageError) as error:
        print(f"meldcam: {error}", file=sys.stderr)
        return 2
    print(to_json(report) if args.json else format_report(report))
    if args.record:
        from vision.metrics import metrics_path, write_figures

        path = args.metrics or metrics_path(args.kind)
        write_figures(path, args.kind, args.record, report, command=eval_command(args))
        print(f"meldcam: figures {args.record!r} written to {path}", file=sys.stderr)
    return 0


def eval_command(args: argparse.Namespace) -> str:
    """The ``meldcam eval`` command that reproduces a report (recorded with its figures)."""
    parts = ["meldcam", "eval", str(args.data_dir), "--kind", args.kind]
    if args.synthetic:
        parts.append("--synthetic")
    if args.set_name:
        parts += ["--set", args.set_name]
    return " ".join(parts)
