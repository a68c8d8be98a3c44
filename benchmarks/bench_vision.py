"""Speed of a recogniser on this machine: ``python -m benchmarks.bench_vision [--kind KIND]``.

Prints the model load time, the median (min, max) time per photo (1600 px long side, JPEG file
in, JSON-ready result out, model already loaded), and the time for a 4000 px phone photo.
Photos are rendered by the synthetic generators (fixed seeds), so the figures need no real data.
Threads: onnxruntime uses $MELDCAM_THREADS or 2.

- ``--kind tiles`` (default): 20-50 tiles per photo (``datasets.tiles_synth.render_scene``).
- ``--kind dominoes``: 20 dominoes per photo, four chains of five or four rows of five side by
  side, turned by up to 25 degrees, in one of the four printings
  (``datasets.dominoes_synth.render_test_scene``, scaled to the long side); the 4000 px photo is
  rendered with dominoes 2.5 times as large. The issue's target: median <= 0.5 s per photo of
  20 dominoes on 2 CPU cores.
- ``--kind cards``: 10-30 cards (with a labelled corner index) per photo
  (``datasets.cards_synth.render_scene(seed, size=(1600, 1200))``); the 4000 px photo is such
  a scene enlarged (rendering cards at 4000 px directly takes minutes).

``--models DIR`` (dominoes, cards): the model files of ``DIR`` instead of the shipped ones (a
candidate round's). For dominoes and cards the labels read are also scored against the rendered
ones (precision, recall and F1 of the label multiset, as ``meldcam eval``): a speed figure means
little if the recogniser finds nothing. Without the kind's trained models it exits 2 naming the
missing file.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from datasets.tiles_synth import render_scene

CARDS_PER_PHOTO = (10, 30)
DOMINO_ROWS, DOMINOES_PER_ROW = 4, 5


def photos(folder: Path, count: int, size: tuple[int, int], seed: int) -> list[tuple[Path, int]]:
    """JPEG photos of ``size`` with 20-50 labelled tiles each."""
    found: list[tuple[Path, int]] = []
    s = seed
    while len(found) < count:
        image, labels = render_scene(s, size=size)
        s += 1
        if not 20 <= len(labels) <= 50:
            continue
        path = folder / f"bench_{size[0]}_{s}.jpg"
        cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        found.append((path, len(labels)))
    return found


# ------------------------------------------------------------------------- dominoes, cards


def _to_long_side(image: np.ndarray, long_side: int) -> np.ndarray:
    h, w = image.shape[:2]
    scale = long_side / max(h, w)
    if scale == 1:
        return image
    size = (round(w * scale), round(h * scale))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_CUBIC)


def domino_photo(seed: int, long_side: int) -> tuple[np.ndarray, list[str]]:
    """20 distinct dominoes of a double-twelve set laid in four chains or rows of five."""
    from datasets.dominoes_synth import STYLE_KINDS, all_labels, render_test_scene

    rng = np.random.default_rng(seed)
    labels = [str(x) for x in rng.choice(all_labels("double-twelve"), 20, replace=False)]
    rows = [labels[r * DOMINOES_PER_ROW : (r + 1) * DOMINOES_PER_ROW] for r in range(DOMINO_ROWS)]
    k = long_side / 1600  # the canvas comes out near the long side: little rescaling
    scene = render_test_scene(
        rows,
        tile_width=int(rng.uniform(95, 125) * k),
        arrangement=("chain", "side")[int(rng.integers(0, 2))],
        style=STYLE_KINDS[int(rng.integers(0, len(STYLE_KINDS)))],
        angle=float(rng.uniform(-25, 25)),
        gap=int(rng.integers(1, 6)),
        margin=int(rng.uniform(80, 200) * k),
        seed=seed,
    )
    return _to_long_side(scene.image, long_side), [d.label for d in scene.dominoes]


def card_photo(seed: int, long_side: int) -> tuple[np.ndarray, list[str]] | None:
    """A 1600 x 1200 card scene (enlarged to ``long_side``), or None outside 10-30 cards."""
    from datasets.cards_synth import render_scene as render_cards

    scene = render_cards(seed, size=(1600, 1200))
    labels = [card.label for card in scene.cards if card.corners]
    if not CARDS_PER_PHOTO[0] <= len(labels) <= CARDS_PER_PHOTO[1]:
        return None
    return _to_long_side(scene.image, long_side), labels


def render_photos(
    folder: Path, kind: str, count: int, long_side: int, seed: int
) -> list[tuple[Path, list[str]]]:
    """``count`` JPEG photos of ``kind`` with their true labels (seeds from ``seed`` on)."""
    found: list[tuple[Path, list[str]]] = []
    s = seed
    while len(found) < count:
        if s - seed > 20 * count + 20:
            raise SystemExit(f"bench_vision: too few {kind} scenes of the wanted size rendered")
        photo = domino_photo(s, long_side) if kind == "dominoes" else card_photo(s, long_side)
        s += 1
        if photo is None:
            continue
        image, labels = photo
        path = folder / f"bench_{kind}_{long_side}_{s}.jpg"
        cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
        found.append((path, labels))
    return found


def recogniser_class(kind: str):
    if kind == "dominoes":
        from vision.recognisers import DominoRecogniser

        return DominoRecogniser
    from vision.recognisers import CardRecogniser

    return CardRecogniser


def load_recogniser(cls, models_dir: Path | None = None):
    """``cls(models_dir)`` (the shipped models by default), or exit 2 with its message (which
    names the missing model file)."""
    from vision.errors import RecogniserUnavailable

    try:
        return cls() if models_dir is None else cls(models_dir)
    except RecogniserUnavailable as error:
        print(f"bench_vision: {error}", file=sys.stderr)
        raise SystemExit(2) from None


def timed(recogniser, batch: list[tuple[Path, list[str]]], repeat: int, score) -> list[float]:
    """Seconds per photo over ``repeat`` passes; the labels read are scored on the first."""
    times = []
    for r in range(repeat):
        for path, labels in batch:
            t0 = time.perf_counter()
            result = recogniser.recognise(path)
            seconds = time.perf_counter() - t0
            times.append(seconds)
            if r == 0:
                score.add(path.stem, [p["label"] for p in result["pieces"]], labels, seconds)
    return times


def spread(times: list[float]) -> str:
    return (
        f"median {statistics.median(times):.3f} s per photo (min {min(times):.3f}, "
        f"max {max(times):.3f}, n={len(times)})"
    )


def main_pieces(kind: str, count: int, repeat: int, models_dir: Path | None = None) -> int:
    from training.evaluate import Score

    t0 = time.perf_counter()
    cls = recogniser_class(kind)
    import_s = time.perf_counter() - t0
    started = time.perf_counter()
    recogniser = load_recogniser(cls, models_dir)
    load_s = time.perf_counter() - started
    print(
        f"model load: {load_s:.2f} s (detector + reader ONNX sessions; imports before: "
        f"{import_s:.2f} s)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        small = render_photos(folder, kind, count, 1600, seed=500)
        big = render_photos(folder, kind, 1, 4000, seed=900)
        print(f"rendered {len(small) + len(big)} photos in {time.perf_counter() - started:.0f} s")
        recogniser.recognise(small[0][0])  # warm-up
        score = Score()
        times = timed(recogniser, small, repeat, score)
        sizes = sorted({len(labels) for _path, labels in small})
        pieces = f"{sizes[0]}-{sizes[-1]}" if len(sizes) > 1 else f"{sizes[0]}"
        s = score.as_dict()
        print(
            f"1600 px, {pieces} {kind}: {spread(times)}; labels read "
            f"/ rendered {s['pieces_read'] / max(1, s['pieces_true']):.2f}, precision "
            f"{s['precision']:.3f}, recall {s['recall']:.3f}, F1 {s['f1']:.3f}, read exactly "
            f"{s['exact_photos']}/{s['photos']}"
        )
        big_score = Score()
        big_times = timed(recogniser, big, max(3, repeat), big_score)
        print(
            f"4000 px phone photo, {len(big[0][1])} {kind}: {spread(big_times)}; "
            f"F1 {big_score.f1:.3f}"
        )
    return 0


# --------------------------------------------------------------------------------- tiles


def main_tiles(count: int, repeat: int) -> int:
    global IMPORT_S
    t0 = time.perf_counter()
    from vision.recognisers import TileRecogniser

    IMPORT_S = time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        recogniser = TileRecogniser()
        load_s = time.perf_counter() - started
        print(
            f"model load: {load_s:.2f} s (tile detector and reader, the second reader's text "
            f"recogniser and detector; imports before: {IMPORT_S:.2f} s)"
        )
        small = photos(folder, count, (1600, 1200), seed=500)
        recogniser.recognise(small[0][0])  # warm-up
        times, counts = [], []
        for _ in range(repeat):
            for path, n in small:
                t0 = time.perf_counter()
                result = recogniser.recognise(path)
                times.append(time.perf_counter() - t0)
                counts.append((n, len(result["pieces"])))
        tiles = [n for n, _ in counts]
        read = sum(r for _, r in counts) / max(1, sum(tiles))
        print(
            f"1600 px, {min(tiles)}-{max(tiles)} tiles: median {statistics.median(times):.3f} s "
            f"per photo (min {min(times):.3f}, max {max(times):.3f}, n={len(times)}; "
            f"tiles read / rendered {read:.2f})"
        )
        big = photos(folder, 3, (4000, 3000), seed=900)
        big_times = []
        for path, _n in big:
            t0 = time.perf_counter()
            recogniser.recognise(path)
            big_times.append(time.perf_counter() - t0)
        print(
            f"4000 px phone photo: median {statistics.median(big_times):.3f} s per photo "
            f"(n={len(big_times)})"
        )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=("tiles", "dominoes", "cards"), default="tiles")
    parser.add_argument(
        "--photos", type=int, default=None, help="1600 px photos (tiles 10, others 20)"
    )
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument(
        "--models", type=Path, default=None, help="dominoes, cards: the model files' folder"
    )
    args = parser.parse_args(argv)
    if args.kind == "tiles":
        return main_tiles(args.photos or 10, args.repeat)
    return main_pieces(args.kind, args.photos or 20, args.repeat, args.models)


if __name__ == "__main__":
    raise SystemExit(main())
