"""Card decks in other languages' index letters: the shipped card recogniser on look-6 scenes
(``datasets.cards_synth``: look 5 with the courts' and ace's letters of one deck language,
Polish W D K A, German B D K A, French V D R A or English, and a fifth of the decks with dark
faces), one folder of scenes per letter set.

``python -m benchmarks.cards_letters [--scenes 30] [--work datasets/generated/cards_letters]``
renders the scenes (seed 20261202 + the set's place; kept between runs) and prints
``meldcam eval --synthetic``'s figures per set: how much a reader that never saw a set's
letters loses on it (models/cards.md).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from meldcam.vocabulary import INDEX_LETTERS
from training.evaluate import SYNTHETIC_GROUP, evaluate_synthetic
from training.offline import GENERATED
from training.train_pieces import LETTERS_RENDERER
from training.train_tiles import generate
from vision.api import get_recogniser

SEED = 20261202


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=30, help="scenes per letter set")
    parser.add_argument("--work", type=Path, default=GENERATED / "cards_letters")
    args = parser.parse_args(argv)
    recogniser = get_recogniser("cards")
    print(f"{'letters':<8}{'n':>4}{'precision':>11}{'recall':>8}{'F1':>8}{'exact':>7}{'sure':>8}")
    for place, letters in enumerate(INDEX_LETTERS):
        folder = args.work / letters
        renderer = f"{LETTERS_RENDERER}@{letters}"
        generate(folder, 0, args.scenes, SEED + place, name="scenes", renderer=renderer, quiet=True)
        score = evaluate_synthetic(folder / "scenes" / "val", "cards", recogniser)
        g = score["groups"][SYNTHETIC_GROUP]
        print(
            f"{letters:<8}{g['photos']:>4}{g['precision']:>11.3f}{g['recall']:>8.3f}"
            f"{g['f1']:>8.3f}{g['exact_photos']:>7}{g['sure_share']:>8.1%}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
