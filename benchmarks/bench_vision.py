"""Speed of the tile recogniser on this machine: ``python benchmarks/bench_vision.py``.

Prints the model load time, the median time per photo (1600 px long side, 20-50 tiles, JPEG
file in, JSON-ready result out, model already loaded), and the time for a 4000 px phone photo.
Photos are rendered by the synthetic generator (fixed seeds), so the figures need no real data.
Threads: onnxruntime uses $MELDCAM_THREADS or 2.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from datasets.tiles_synth import render_scene


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    global IMPORT_S
    t0 = time.perf_counter()
    from vision.tiles import TileRecogniser

    IMPORT_S = time.perf_counter() - t0

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        recogniser = TileRecogniser()
        load_s = time.perf_counter() - started
        print(f"model load: {load_s:.2f} s (both ONNX sessions; imports before: {IMPORT_S:.2f} s)")
        small = photos(folder, args.photos, (1600, 1200), seed=500)
        recogniser.recognise(small[0][0])  # warm-up
        times, counts = [], []
        for _ in range(args.repeat):
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


if __name__ == "__main__":
    raise SystemExit(main())
