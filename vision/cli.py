"""``meldcam recognise``, ``meldcam eval`` and ``meldcam calibrate``.

``recognise --kind tiles|dominoes|cards [--set SET] [--json] [--annotate OUT] IMAGE...``: one
JSON object per line and image with ``--json`` (``{"image": path, "kind", "pieces", "melds",
"ms"}``), otherwise a readable table. ``--set`` (dominoes) limits labels to one set.
``--annotate OUT`` writes the photo with boxes and labels: to OUT for one image,
into the folder OUT (as ``NAME.annotated.jpg``) for several. A bad image prints a message on
stderr; the other images are still read, and the exit code is 2.

``calibrate [FOLDER] --kind K [--scenes N] [--seed S] [--renderer MODULE:FUNCTION[@LOOK]]``: the
kind's sure threshold by split conformal selection on synthetic scenes (vision/calibrate.py).

``eval DATA_DIR [--kind tiles|dominoes|cards] [--synthetic] [--json]``: precision, recall, F1 of
the label multiset per photo, share of photos read exactly, seconds per photo, precision of the
pieces flagged sure and their share (see vision/evaluate.py): real labelled photos by group
(whole-table photos, and single-piece crops apart), or with ``--synthetic`` a folder of
generated scenes (e.g. ``datasets/generated/dominoes/test/val``). A folder with nothing to
score exits 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vision.api import KINDS
from vision.errors import ImageError, RecogniserUnavailable

COLOURS_BGR = {
    "red": (40, 40, 220),
    "orange": (0, 140, 255),
    "blue": (200, 90, 20),
    "black": (20, 20, 20),
    "joker": (180, 0, 180),
}


def register(subparsers) -> None:
    recognise = subparsers.add_parser(
        "recognise",
        help="read the pieces in photos",
        description="Read the pieces in photos and group them into melds.",
    )
    recognise.add_argument("--kind", choices=KINDS, default="tiles", help="piece kind")
    recognise.add_argument("--json", action="store_true", help="one JSON object per image")
    recognise.add_argument(
        "--annotate",
        metavar="OUT",
        type=Path,
        help="write the photo with boxes and labels (a folder when several images)",
    )
    recognise.add_argument(
        "--set",
        dest="set_name",
        choices=("double-six", "double-nine", "double-twelve"),
        help="dominoes only: the set on the table (labels limited to it; default: halves 0-12)",
    )
    recognise.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    recognise.set_defaults(handler=run_recognise)

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
    evaluate.add_argument("--json", action="store_true", help="the report as JSON")
    evaluate.add_argument("--verbose", action="store_true", help="print each photo as it is read")
    evaluate.set_defaults(handler=run_eval)

    calibrate = subparsers.add_parser(
        "calibrate",
        help="choose a kind's sure threshold on synthetic scenes",
        description="The lowest sure threshold whose Clopper-Pearson 95%% upper bound of the "
        "error rate among sure pieces is at most 0.5%%, on calibration scenes never trained on "
        "(rendered from a fresh seed, or the generated scenes of FOLDER); see "
        "vision/calibrate.py. Prints it: writing it into vision/kinds.py is an edit.",
    )
    calibrate.add_argument("folder", nargs="?", type=Path, metavar="FOLDER")
    calibrate.add_argument("--kind", choices=KINDS, default="tiles", help="piece kind")
    calibrate.add_argument(
        "--scenes", type=int, help="scenes to render (default: tiles 150, dominoes 500, cards 400)"
    )
    calibrate.add_argument("--seed", type=int, help="base seed (default 20261201)")
    calibrate.add_argument(
        "--renderer",
        action="append",
        metavar="MODULE:FUNCTION[@LOOK]",
        help="a scene renderer, seed -> (image, [(label, box), ...]); repeat for several, used "
        "in turn (default: the kind's generators, vision.calibrate.DEFAULT_RENDERERS)",
    )
    calibrate.add_argument(
        "--pieces", type=Path, metavar="FILE", help="also write each piece read and its scores"
    )
    calibrate.add_argument("--json", action="store_true", help="the report as JSON")
    calibrate.add_argument("--verbose", action="store_true", help="print each scene as it is read")
    calibrate.set_defaults(handler=run_calibrate)


def run_calibrate(args: argparse.Namespace) -> int:
    from vision.calibrate import run_calibrate as run

    return run(args)


def _recogniser(kind: str):
    from vision.api import get_recogniser

    return get_recogniser(kind)


def run_recognise(args: argparse.Namespace) -> int:
    try:
        recogniser = _recogniser(args.kind)
    except RecogniserUnavailable as error:
        print(f"meldcam: {error}", file=sys.stderr)
        return 2
    options = {}
    if args.set_name:
        if args.kind != "dominoes":
            print("meldcam: --set is for --kind dominoes", file=sys.stderr)
            return 2
        options["set_name"] = args.set_name
    status = 0
    several = len(args.images) > 1
    if args.annotate and several:
        args.annotate.mkdir(parents=True, exist_ok=True)
    for image in args.images:
        try:
            result = recogniser.recognise(image, **options)
        except ImageError as error:
            print(f"meldcam: {error}", file=sys.stderr)
            status = 2
            continue
        if args.json:
            print(json.dumps({"image": str(image), **result}), flush=True)
        else:
            print(format_table(str(image), result), flush=True)
        if args.annotate:
            out = args.annotate / f"{image.stem}.annotated.jpg" if several else args.annotate
            annotate(image, result, out)
    return status


def format_table(image: str, result: dict) -> str:
    pieces = result["pieces"]
    meld_of = {i: m for m, meld in enumerate(result["melds"]) for i in meld}
    lines = [
        f"{image}: {len(pieces)} {result['kind']} in {len(result['melds'])} groups "
        f"({result['ms']:.0f} ms)"
    ]
    lines.append(f"  {'#':>3}  {'label':<10}{'conf':>6}  {'sure':>4}  {'group':>5}  box")
    for i, piece in enumerate(pieces):
        box = ", ".join(f"{v:.0f}" for v in piece["bbox"])
        sure = "yes" if piece.get("sure") else "-"
        lines.append(
            f"  {i:>3}  {piece['label']:<10}{piece['confidence']:>6.2f}  {sure:>4}"
            f"  {meld_of.get(i, -1):>5}  [{box}]"
        )
    for m, meld in enumerate(result["melds"]):
        lines.append(f"  group {m}: " + " ".join(pieces[i]["label"] for i in meld))
    return "\n".join(lines)


def annotate(image: Path, result: dict, out: Path) -> None:
    """The photo as displayed, with a box, label and group number per piece."""
    import cv2
    import numpy as np
    from PIL import Image, ImageOps

    with Image.open(image) as img:
        bgr = np.ascontiguousarray(
            np.asarray(ImageOps.exif_transpose(img).convert("RGB"))[..., ::-1]
        )
    thickness = max(2, round(max(bgr.shape[:2]) / 600))
    meld_of = {i: m for m, meld in enumerate(result["melds"]) for i in meld}
    for i, piece in enumerate(result["pieces"]):
        x1, y1, x2, y2 = (round(v) for v in piece["bbox"])
        colour = COLOURS_BGR.get(piece["label"].split("-")[0], (0, 200, 0))
        cv2.rectangle(bgr, (x1, y1), (x2, y2), (0, 220, 0), thickness)
        text = f"{piece['label']} g{meld_of.get(i, -1)}"
        scale = thickness * 0.3
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thickness)
        cv2.rectangle(bgr, (x1, y1), (x1 + tw + 4, y1 + th + 6), (255, 255, 255), -1)
        cv2.putText(
            bgr, text, (x1 + 2, y1 + th + 2), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, thickness
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), bgr)


def run_eval(args: argparse.Namespace) -> int:
    from vision.evaluate import (
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
        recogniser = _recogniser(args.kind)
    except (EvalDataError, RecogniserUnavailable) as error:
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
    return 0
