"""The pip check (``vision.pips``, ``DOMINOES.pip_check``): how often counting pips would make a
right sure domino unsure, and how often it would catch a misread one.

``python -m benchmarks.domino_pip_check [--scenes 500 --seed 777] [--dev DIR]`` reads rendered
scenes (looks 1-4 and 6, as ``meldcam calibrate`` draws them) and, with ``--dev``, the real
labelled domino photos read exactly (so every domino's label is its truth), with the pip check
off, and then judges each sure domino by its counted pips. It prints, for the sure dominoes:
right ones the count contradicts (it would make them unsure), wrong ones it contradicts (it
would catch them), halves counted, and, as the catch rate of a typical misreading, how many of
the labels one pip off a right sure label (4-7 for 4-8) the count contradicts. Figures:
docs/experiments/dominoes.md, "Counting pips".
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import replace
from pathlib import Path

import cv2

from training.calibrate import MATCHING, _scoring, match, rendered_scenes
from training.evaluate import real_photos
from vision.kinds import DOMINOES
from vision.labels import domino_label
from vision.pipeline import Recogniser
from vision.pips import disagrees, domino_pips


def one_pip_off(label: str) -> set[str]:
    """The labels with one half a pip more or less than ``label``'s (within 0-12)."""
    low, high = (int(v) for v in label.split("-"))
    near = {(low - 1, high), (low + 1, high), (low, high - 1), (low, high + 1)}
    return {domino_label(a, b) for a, b in near if min(a, b) >= 0 and max(a, b) <= 12} - {label}


def judge(tally: Counter, label: str, right: bool, counts) -> None:
    tally["sure right" if right else "sure wrong"] += 1
    vetoed = disagrees(label, counts)
    tally[("right" if right else "wrong") + " contradicted"] += vetoed
    tally["halves counted"] += sum(c is not None for c in counts)
    if right and not vetoed:
        for other in one_pip_off(label):
            tally["one pip off"] += 1
            tally["one pip off caught"] += disagrees(other, counts)


def rendered(tally: Counter, recogniser, scenes: int, seed: int) -> None:
    check = DOMINOES.pip_check
    assert check is not None
    for _name, image, truth, _family in rendered_scenes("dominoes", scenes, seed):
        pieces = recogniser.recognise(image, channels="bgr")["pieces"]
        right = match(pieces, truth, matching=MATCHING["dominoes"])
        for piece, ok in zip(pieces, right, strict=True):
            if piece["sure"]:
                counts = domino_pips(image, piece["bbox"], piece["_rotated"], check)
                judge(tally, piece["label"], ok, counts)


def real(tally: Counter, recogniser, data_dir: Path) -> None:
    check = DOMINOES.pip_check
    assert check is not None
    for photo in real_photos(data_dir, "dominoes"):
        if photo.pieces is None:
            continue
        image = cv2.imread(str(photo.image))
        assert image is not None, photo.image
        pieces = recogniser.recognise(image, channels="bgr")["pieces"]
        if Counter(p["label"] for p in pieces) != Counter(label for label, _ in photo.pieces):
            tally["photos not read exactly (left out)"] += 1
            continue
        for piece in pieces:
            if piece["sure"]:
                counts = domino_pips(image, piece["bbox"], piece["_rotated"], check)
                judge(tally, piece["label"], True, counts)


def report(title: str, tally: Counter) -> None:
    print(title)
    sure = tally["sure right"] + tally["sure wrong"]
    print(f"  sure dominoes {sure}: {tally['sure right']} right, {tally['sure wrong']} wrong")
    print(f"  right ones the count contradicts: {tally['right contradicted']}")
    print(f"  wrong ones the count contradicts: {tally['wrong contradicted']}")
    print(f"  halves counted: {tally['halves counted']} of {2 * sure}")
    off, caught = tally["one pip off"], tally["one pip off caught"]
    print(f"  labels one pip off a right one, contradicted: {caught} of {off}")
    if tally["photos not read exactly (left out)"]:
        print(f"  photos not read exactly, left out: {tally['photos not read exactly (left out)']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=500)
    parser.add_argument("--seed", type=int, default=777)
    parser.add_argument("--dev", type=Path, help="real labelled photos (../shared/realdata/dev)")
    args = parser.parse_args(argv)
    # read as shipped but without the check, each piece with its rotated box
    recogniser = _scoring(Recogniser(replace(DOMINOES, pip_check=None)))
    if args.dev:
        tally: Counter = Counter()
        real(tally, recogniser, args.dev)
        report(f"real photos in {args.dev}", tally)
    if args.scenes:
        tally = Counter()
        rendered(tally, recogniser, args.scenes, args.seed)
        report(f"{args.scenes} rendered scenes, seed {args.seed}", tally)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
