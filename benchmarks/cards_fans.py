"""Card hands held in fans: 13-card hands (a Gin hand and its draw) fanned 5 (tight), 8 and 12
degrees a card, 20 hands each (cards 100-200 px wide, one deck style each; seeds 5000-5019,
never training seeds), read by the shipped card recogniser.

``python -m benchmarks.cards_fans`` prints, per spread, label precision, recall and F1 against
the whole hand (what the player holds) and hands read exactly, and the share of the hand's
indices the generator calls readable (``datasets.cards_synth``: at least 90 % visible, or 60 %
of both the rank's and the suit's half): in a tight fan some indices show too little to read,
so recall there cannot reach 1. ``--models DIR``: a candidate's model files.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from datasets.cards_synth import render_test_layout
from training.evaluate import Score
from vision.labels import CARD_RANKS, CARD_SUITS, card_label

STEPS = (5.0, 8.0, 12.0)
HANDS, HAND_SIZE, FIRST_SEED = 20, 13, 5000


def fanned_hands(step: float, count: int = HANDS) -> list[tuple[list[str], np.ndarray, int]]:
    """(hand, photo, readable indices) for ``count`` hands fanned ``step`` degrees a card."""
    deck = [card_label(r, s) for r in range(len(CARD_RANKS)) for s in range(len(CARD_SUITS))]
    hands = []
    for i in range(count):
        rng = np.random.default_rng(FIRST_SEED + i)
        hand = [str(c) for c in rng.choice(deck, HAND_SIZE, replace=False)]
        width = int(rng.integers(100, 200))
        scene = render_test_layout(
            hand, layout="fan", card_w=width, seed=FIRST_SEED + i, fan_step=step
        )
        hands.append((hand, scene.image, sum(1 for card in scene.cards if card.corners)))
    return hands


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=Path, help="model files to read with")
    args = parser.parse_args(argv)
    if args.models:
        from vision.pipeline import Recogniser

        recogniser = Recogniser("cards", models_dir=args.models)
    else:
        from vision.api import get_recogniser

        recogniser = get_recogniser("cards")
    print("spread  hands  precision  recall     F1  exact  readable")
    for step in STEPS:
        score, readable = Score(), 0
        hands = fanned_hands(step)
        for index, (hand, image, shown) in enumerate(hands):
            started = time.perf_counter()
            pieces = recogniser.recognise(image, "bgr")["pieces"]
            score.add(str(index), [p["label"] for p in pieces], hand, time.perf_counter() - started)
            readable += shown
        share = readable / (len(hands) * HAND_SIZE)
        print(
            f"{step:5.0f}°  {score.photos:5d}  {score.precision:9.3f}  {score.recall:6.3f}"
            f"  {score.f1:5.3f}  {score.exact:5d}  {share:8.1%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
