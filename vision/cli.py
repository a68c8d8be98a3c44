"""``meldcam recognise --kind tiles|dominoes|cards [--set SET] [--json] [--annotate OUT] IMAGE...``:
one JSON object per line and image with ``--json`` (``{"image": path, "kind", "pieces", "melds",
"ms"}``), otherwise a readable table. ``--set`` (dominoes) limits labels to one set.
``--annotate OUT`` writes the photo with boxes and labels: to OUT for one image,
into the folder OUT (as ``NAME.annotated.jpg``) for several. A bad image prints a message on
stderr; the other images are still read, and the exit code is 2.

Measuring a recogniser (``meldcam eval``, ``meldcam calibrate``) is in ``training/cli.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from meldcam.vocabulary import KINDS, PHOTO_SETS
from vision.api import get_recogniser
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
        choices=tuple(name for names in PHOTO_SETS.values() for name in names),
        help="dominoes: the set on the table (labels limited to it; default: halves 0-12); "
        "cards: the deck's index letters (default: en, J Q K A; auto: told from the photo)",
    )
    recognise.add_argument("images", nargs="+", type=Path, metavar="IMAGE")
    recognise.set_defaults(handler=run_recognise)


def run_recognise(args: argparse.Namespace) -> int:
    try:
        recogniser = get_recogniser(args.kind)
    except RecogniserUnavailable as error:
        print(f"meldcam: {error}", file=sys.stderr)
        return 2
    options = {}
    if args.set_name:
        if args.set_name not in PHOTO_SETS.get(args.kind, ()):
            print(
                f"meldcam: --set {args.set_name} is not a set of {args.kind}: dominoes take "
                f"{', '.join(PHOTO_SETS['dominoes'])}; cards {', '.join(PHOTO_SETS['cards'])}",
                file=sys.stderr,
            )
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
