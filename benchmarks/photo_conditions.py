"""The real photos as other phones and rooms would take them: ``python -m
benchmarks.photo_conditions --kind KIND [--data DIR] [--models DIR] [--only NAMES] [--step N]``.

Each labelled whole-table photo of ``--data`` (default: the real dev photos) is read as it is
and changed as a photo of another phone, light or hand might be (``CONDITIONS``: smaller and
larger, greyscale, heavy JPEG, turned a quarter, half a turn or at a slant, seen from lower
down, under- and overexposed, out of focus, shaken, warm light, half in shadow, high contrast,
vivid colours, sensor noise), and scored as ``meldcam eval`` scores it (labels as multisets;
sure share and precision). A recogniser whose F1 falls on a condition a player's photo may have
fails there on photos nobody has labelled. ``--step N`` reads every Nth photo (the tiles have
160). ``--turns 0,10,...,80``: the photos turned by each of those degrees instead (canvas grown
to keep every corner), and every turn pooled.
Figures in the model cards ("Photo conditions").
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from datasets.realdata import realdata_dir
from training.evaluate import Score, real_photos
from vision.pipeline import MODELS_DIR, Recogniser, greyscale
from vision.twostage import table_colour, turned_whole


def _long_side(long_side: int) -> Callable[[np.ndarray], np.ndarray]:
    def scaled(image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        s = long_side / max(h, w)
        size = (round(w * s), round(h * s))
        return cv2.resize(image, size, interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)

    return scaled


def _jpeg(image: np.ndarray) -> np.ndarray:
    return cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 25])[1], 1)


def _levels(gain: float, offset: float, gamma: float = 1.0) -> Callable[[np.ndarray], np.ndarray]:
    def changed(image: np.ndarray) -> np.ndarray:
        out = (image / 255.0) ** gamma * 255 * gain + offset
        return np.clip(out, 0, 255).astype(np.uint8)

    return changed


def _blur(per_px: float) -> Callable[[np.ndarray], np.ndarray]:
    """Gaussian blur of sigma = the long side / ``per_px`` (2 px on a 1600 px photo at 800)."""
    return lambda image: cv2.GaussianBlur(image, (0, 0), max(image.shape[:2]) / per_px)


def _shaken(per_px: float) -> Callable[[np.ndarray], np.ndarray]:
    """A hand that moved sideways while the photo was taken: a horizontal smear of the long
    side / ``per_px`` (5 px on a 1600 px photo at 320)."""

    def smeared(image: np.ndarray) -> np.ndarray:
        length = max(3, round(max(image.shape[:2]) / per_px) | 1)
        kernel = np.zeros((length, length), np.float32)
        kernel[length // 2, :] = 1 / length
        return cv2.filter2D(image, -1, kernel)

    return smeared


def _half_in_shadow(image: np.ndarray) -> np.ndarray:
    """The left half of the table in a shadow (45 % of the light), its edge soft."""
    h, w = image.shape[:2]
    light = np.ones((h, w), np.float32)
    light[:, : w // 2] = 0.45
    light = cv2.GaussianBlur(light, (0, 0), w / 30)
    return np.clip(image * light[..., None], 0, 255).astype(np.uint8)


def _saturated(image: np.ndarray) -> np.ndarray:  # a phone's vivid mode
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(np.float32)
    hsv[..., 1] = np.clip(hsv[..., 1] * 1.8, 0, 255)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)


def _warm(image: np.ndarray) -> np.ndarray:  # tungsten light: blue down, red up
    return np.clip(image * np.array([0.75, 0.95, 1.15]), 0, 255).astype(np.uint8)


def _seen_from_lower(near: float, squash: float) -> Callable[[np.ndarray], np.ndarray]:
    """The table photographed from lower down: its far (top) edge ``near`` as wide as its near
    edge and the whole ``squash`` as deep, each piece foreshortened as a camera at the table's
    edge sees it (``near`` 0.55 is about 35 degrees above the table)."""

    def warped(image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        inset, top = w * (1 - near) / 2, h * (1 - squash)
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        dst = np.float32([[inset, top], [w - inset, top], [w, h], [0, h]])
        view = cv2.getPerspectiveTransform(src, dst)
        return cv2.warpPerspective(
            image, view, (w, h), borderMode=cv2.BORDER_CONSTANT, borderValue=table_colour(image)
        )

    return warped


def _turned(degrees: float) -> Callable[[np.ndarray], np.ndarray]:
    """The phone held at an angle: the photo turned ``degrees``, its canvas grown to keep it all
    (``vision.twostage.turned_whole``, as the dominoes' diagonal pass turns it)."""
    return lambda image: turned_whole(image, degrees)[0]


def _noise(image: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.clip(image + rng.normal(0, 12, image.shape), 0, 255).astype(np.uint8)


CONDITIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "as taken": lambda image: image,
    "800 px": _long_side(800),
    "1200 px": _long_side(1200),
    "3000 px": _long_side(3000),
    "greyscale": greyscale,
    "JPEG quality 25": _jpeg,
    "turned a quarter": lambda image: cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE),
    "upside down": lambda image: cv2.rotate(image, cv2.ROTATE_180),
    "turned 20 degrees": _turned(20),
    "turned 45 degrees": _turned(45),
    "seen from lower": _seen_from_lower(0.75, 0.85),
    "seen from low": _seen_from_lower(0.55, 0.7),
    "underexposed": _levels(0.7, 0, gamma=1.8),
    "overexposed a little": _levels(1.15, 15),
    "overexposed": _levels(1.35, 30),
    "out of focus a little": _blur(1600),
    "out of focus": _blur(800),
    "shaken a little": _shaken(530),
    "shaken": _shaken(320),
    "warm light": _warm,
    "half in shadow": _half_in_shadow,
    "high contrast": _levels(1.6, -77),
    "vivid colours": _saturated,
    "sensor noise": _noise,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=("tiles", "dominoes", "cards"), default="cards")
    parser.add_argument("--data", type=Path, default=None, help="labelled photos (real dev)")
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--only", default="", help="conditions, comma-separated (default all)")
    parser.add_argument("--step", type=int, default=1, help="read every Nth photo")
    parser.add_argument(
        "--turns",
        default="",
        help="instead of the conditions, the photos turned by each of these degrees "
        "(comma-separated, e.g. 0,10,20,30,40,50,60,70,80), and every turn pooled",
    )
    args = parser.parse_args(argv)
    data = args.data or realdata_dir() or Path("../shared/realdata/dev")
    conditions = dict(CONDITIONS)
    if args.turns:
        turns = [float(t) for t in args.turns.split(",")]
        conditions = {f"turned {t:g} degrees": _turned(t) for t in turns}
    wanted = [c for c in conditions if not args.only or c in args.only.split(",")]
    unknown = set(filter(None, args.only.split(","))) - set(conditions)
    if unknown:
        parser.error(f"unknown conditions {sorted(unknown)}: use {', '.join(conditions)}")
    photos = [p for p in real_photos(data, args.kind) if p.pieces is not None]
    photos = [p for p in photos if p.scene != "crop"][:: args.step]
    recogniser = Recogniser(args.kind, args.models)
    scores = {name: Score() for name in wanted}
    pooled = Score()  # every condition's reads together (``--turns``)
    started = time.perf_counter()
    for photo in photos:
        image = cv2.imread(str(photo.image))
        truth = [label for label, _box in photo.pieces]
        for name in wanted:
            t0 = time.perf_counter()
            pieces = recogniser.recognise(conditions[name](image), channels="bgr")["pieces"]
            seconds = time.perf_counter() - t0
            labels = [p["label"] for p in pieces]
            sure = [p["label"] for p in pieces if p["sure"]]
            scores[name].add(photo.name, labels, truth, seconds, sure)
            pooled.add(f"{photo.name} {name}", labels, truth, seconds, sure)
    print(f"{args.kind}: {len(photos)} photos of {data}, {time.perf_counter() - started:.0f} s")
    print(
        f"{'condition':<24}{'precision':>10}{'recall':>8}{'F1':>8}{'exact':>7}{'sure':>8}"
        f"{'sure precision':>16}"
    )
    rows = dict(scores) | ({"every turn": pooled} if args.turns else {})
    for name, score in rows.items():
        s = score.as_dict()
        sure_precision = s["sure_precision"]
        print(
            f"{name:<24}{s['precision']:>10.3f}{s['recall']:>8.3f}{s['f1']:>8.3f}"
            f"{s['exact_photos']:>7}{s['sure_share'] or 0:>8.1%}"
            + (f"{sure_precision:>16.3f}" if sure_precision is not None else f"{'-':>16}")
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
