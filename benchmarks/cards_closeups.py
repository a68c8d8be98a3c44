"""Card close-ups: 24 rendered hands (3-10 cards; fan, overlapped row, laid apart; cards 100-200
px wide; seeds 1000-1023, never the tests' seeds) read by the shipped card recogniser.

``python -m benchmarks.cards_closeups`` prints label precision, recall, F1 and hands read
exactly. Used with the synthetic validation scenes to choose the card settings
(models/cards.md).
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from datasets.cards_synth import render_test_layout
from vision.api import get_recogniser
from vision.labels import CARD_RANKS, CARD_SUITS, card_label

LAYOUTS = ("fan", "row", "apart")


def closeup_hands(count: int = 24) -> list[tuple[list[str], np.ndarray]]:
    deck = [card_label(r, s) for r in range(len(CARD_RANKS)) for s in range(len(CARD_SUITS))]
    hands = []
    for i in range(count):
        rng = np.random.default_rng(1000 + i)
        hand = [str(c) for c in rng.choice(deck, int(rng.integers(3, 11)), replace=False)]
        width = int(rng.integers(100, 200))
        scene = render_test_layout(hand, layout=LAYOUTS[i % 3], card_w=width, seed=1000 + i)
        hands.append((hand, scene.image))
    return hands


def main() -> int:
    recogniser = get_recogniser("cards")
    tp = fp = fn = exact = 0
    hands = closeup_hands()
    for hand, image in hands:
        got = Counter(p["label"] for p in recogniser.recognise(image, "bgr")["pieces"])
        want = Counter(hand)
        hit = sum((got & want).values())
        tp, fp, fn = tp + hit, fp + sum(got.values()) - hit, fn + sum(want.values()) - hit
        exact += got == want
    precision, recall = tp / max(1, tp + fp), tp / max(1, tp + fn)
    f1 = 2 * precision * recall / max(1e-9, precision + recall)
    print(
        f"close-ups: precision {precision:.3f} recall {recall:.3f} F1 {f1:.3f} "
        f"exact {exact}/{len(hands)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
