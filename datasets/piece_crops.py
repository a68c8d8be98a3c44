"""Single-piece photos cut from generated scenes: the "crop" photos of the real sets (one
domino filling the frame, upright), for choosing and testing how a recogniser reads them.

``python -m datasets.piece_crops SCENES OUT --seed 17 --count 80`` cuts, from each scene's
labelled boxes in sorted order, the pieces lying square to the photo (box sides 1:1.7 or
longer, at least 40 px across) with a random margin of 0-8 % of the box, turned upright; each
crop gets a scene file of its own (the same format, one piece whose box is the whole crop).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np

MIN_SIDE = 40
MAX_SQUARENESS = 0.6  # short side / long side of the box: a domino lying square to the photo


def cut_crops(scenes: Path, out: Path, seed: int, count: int) -> int:
    """Write up to ``count`` crops from the scenes in ``scenes`` to ``out``; returns how many."""
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    written = 0
    for meta_path in sorted(Path(scenes).glob("*.json")):
        meta = json.loads(meta_path.read_text())
        image = cv2.imread(str(meta_path.with_suffix(".jpg")))
        if image is None:
            continue
        height, width = image.shape[:2]
        for label, (x1, y1, x2, y2) in meta["pieces"]:
            w, h = x2 - x1, y2 - y1
            if min(w, h) < MIN_SIDE or min(w, h) / max(w, h) > MAX_SQUARENESS:
                continue
            margin = rng.uniform(0.0, 0.08)
            crop = image[
                int(max(0, y1 - margin * h)) : int(min(height, y2 + margin * h)),
                int(max(0, x1 - margin * w)) : int(min(width, x2 + margin * w)),
            ]
            if crop.shape[1] > crop.shape[0]:
                crop = np.rot90(crop)
            crop = np.ascontiguousarray(crop)
            name = f"{written:05d}"
            cv2.imwrite(str(out / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 90])
            crop_h, crop_w = crop.shape[:2]
            scene = {"seed": meta.get("seed"), "size": [crop_w, crop_h]}
            scene["pieces"] = [[label, [0, 0, crop_w, crop_h]]]
            (out / f"{name}.json").write_text(json.dumps(scene))
            written += 1
            if written >= count:
                return written
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--count", type=int, default=80)
    args = parser.parse_args(argv)
    print(f"{cut_crops(args.scenes, args.out, args.seed, args.count)} crops in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
