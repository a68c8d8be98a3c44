"""Card close-ups: 24 rendered hands (3-10 cards; fan, overlapped row, laid apart; cards 100-200
px wide; seeds 1000-1023, never the tests' seeds) read by the shipped card recogniser.

``python -m benchmarks.cards_closeups [--letters de] [--one-reader] [--turn 90]`` prints
label precision, recall, F1, hands read exactly, and the sure cards' share and precision.
``--letters``: the decks print that set's index letters (``meldcam.vocabulary.INDEX_LETTERS``:
a German deck's B D K A), read with no deck named, as a player's photo with no game;
``--one-reader``: without the second reader (``KindSettings.second_reader``), for comparison;
``--turn``: each photo turned that many degrees counter-clockwise (its canvas grown to keep
every corner). Used with the synthetic validation scenes to choose the card settings
(models/cards.md; docs/experiments/cards.md, "A second reader").
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import replace

import numpy as np

from datasets.cards_synth import render_test_layout
from meldcam.vocabulary import INDEX_LETTERS
from vision.kinds import CARDS
from vision.labels import CARD_RANKS, CARD_SUITS, card_label
from vision.pipeline import Recogniser
from vision.twostage import turned_whole

LAYOUTS = ("fan", "row", "apart")


def closeup_hands(count: int = 24, letters: str = "en") -> list[tuple[list[str], np.ndarray]]:
    deck = [card_label(r, s) for r in range(len(CARD_RANKS)) for s in range(len(CARD_SUITS))]
    hands = []
    for i in range(count):
        rng = np.random.default_rng(1000 + i)
        hand = [str(c) for c in rng.choice(deck, int(rng.integers(3, 11)), replace=False)]
        width = int(rng.integers(100, 200))
        scene = render_test_layout(
            hand, layout=LAYOUTS[i % 3], card_w=width, seed=1000 + i, index_letters=letters
        )
        hands.append((hand, scene.image))
    return hands


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--letters", choices=INDEX_LETTERS, default="en")
    parser.add_argument("--one-reader", action="store_true")
    parser.add_argument("--turn", type=float, default=0.0, help="degrees counter-clockwise")
    args = parser.parse_args(argv)
    settings = replace(CARDS, second_reader=None) if args.one_reader else CARDS
    recogniser = Recogniser(settings)
    tp = fp = fn = exact = sure = sure_wrong = 0
    hands = closeup_hands(letters=args.letters)
    for hand, image in hands:
        if args.turn:
            image = turned_whole(image, args.turn)[0]
        pieces = recogniser.recognise(image, "bgr")["pieces"]
        got = Counter(p["label"] for p in pieces)
        want = Counter(hand)
        hit = sum((got & want).values())
        tp, fp, fn = tp + hit, fp + sum(got.values()) - hit, fn + sum(want.values()) - hit
        exact += got == want
        sure_labels = Counter(p["label"] for p in pieces if p["sure"])
        sure += sum(sure_labels.values())
        sure_wrong += sum((sure_labels - want).values())
    precision, recall = tp / max(1, tp + fp), tp / max(1, tp + fn)
    f1 = 2 * precision * recall / max(1e-9, precision + recall)
    readers = "one reader" if args.one_reader else "both readers"
    share, right = sure / max(1, tp + fp), 1 - sure_wrong / max(1, sure)
    print(
        f"close-ups ({args.letters} letters, {readers}, turned {args.turn:g}): precision"
        f" {precision:.3f} recall {recall:.3f} F1 {f1:.3f} exact {exact}/{len(hands)}; sure"
        f" {share:.1%} of the cards read, right {right:.3f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
