"""Cards on printed casino felts: what the card recogniser reads where the table itself prints
letters, seat numbers and card pictures (``datasets.card_felts``; a blackjack felt with no
card dealt was read as four aces).

Three folders of scenes, rendered once (seed 20261206; datasets/generated/cards_felts, kept
between runs):

- "felt": look 5 with crossed Qs (``render_cards_crossed_q``'s cards) on a printed felt;
- "plain": the same scenes, the same cards in the same places, on the plain tables those
  scenes have: the control, so that "felt" minus "plain" is what the printing costs;
- "bare felt": printed felts with no card at all: every card read there is false.

``python -m benchmarks.cards_felts [--scenes 40] [--models DIR]`` prints ``meldcam eval
--synthetic``'s figures for the first two and, for the bare felts, the cards read, the photos
read as nothing and the cards flagged sure (docs/experiments/cards.md, "Printed felts").
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import cv2

from training.evaluate import SYNTHETIC_GROUP, evaluate_synthetic
from training.offline import GENERATED
from training.scenes import generate
from vision.pipeline import MODELS_DIR, Recogniser

SEED = 20261206
FELT_RENDERER = "cards_felt"  # ``training.scenes``' renderers
CROSSED_Q_RENDERER = "cards_crossed_q"
BARE_FELT_RENDERER = "cards_bare_felt"
FOLDERS = (
    ("felt", FELT_RENDERER),
    ("plain", CROSSED_Q_RENDERER),
    ("bare_felt", BARE_FELT_RENDERER),
)


def bare_felt_figures(folder: Path, recogniser: Recogniser) -> dict:
    """Cards read on photos that hold none: how many, on how many photos, how many sure."""
    read = sure = clean = photos = 0
    labels: Counter[str] = Counter()
    for meta in sorted(folder.glob("*.json")):
        if json.loads(meta.read_text())["pieces"]:
            raise ValueError(f"{meta} holds cards: not a bare felt")
        image = cv2.imread(str(meta.with_suffix(".jpg")))
        pieces = recogniser.recognise(image, channels="bgr")["pieces"]
        photos += 1
        read += len(pieces)
        sure += sum(1 for p in pieces if p.get("sure"))
        clean += not pieces
        labels.update(p["label"] for p in pieces)
    return {
        "photos": photos,
        "cards_read": read,
        "sure": sure,
        "read_as_nothing": clean,
        "labels": labels,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=40, help="scenes per folder")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="the models' folder")
    parser.add_argument("--work", type=Path, default=GENERATED / "cards_felts")
    args = parser.parse_args(argv)
    for name, renderer in FOLDERS:  # val scenes: seeds of their own, never a training set's
        generate(args.work, 0, args.scenes, SEED, name=name, renderer=renderer, quiet=True)
    recogniser = Recogniser("cards", args.models)
    print(
        f"{'scenes':<10}{'n':>4}{'precision':>11}{'recall':>8}{'F1':>8}{'exact':>7}"
        f"{'sure':>8}{'sure precision':>16}{'F1, partly shown free':>23}"
    )
    for name in ("felt", "plain"):
        g = evaluate_synthetic(args.work / name / "val", "cards", recogniser)["groups"]
        g = g[SYNTHETIC_GROUP]
        sure_precision = g["sure_precision"]
        print(
            f"{name:<10}{g['photos']:>4}{g['precision']:>11.3f}{g['recall']:>8.3f}{g['f1']:>8.3f}"
            f"{g['exact_photos']:>7}{g['sure_share'] or 0.0:>8.1%}"
            + (f"{sure_precision:>16.3f}" if sure_precision is not None else f"{'-':>16}")
            + f"{g['f1_partly_shown_free']:>23.3f}"
        )
    bare = bare_felt_figures(args.work / "bare_felt" / "val", recogniser)
    common = bare["labels"].most_common(8)
    print(
        f"bare felts: {bare['photos']} photos, {bare['cards_read']} cards read "
        f"({bare['sure']} sure), {bare['read_as_nothing']} read as nothing; most read: "
        + (", ".join(f"{label} x{n}" for label, n in common) or "-")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
