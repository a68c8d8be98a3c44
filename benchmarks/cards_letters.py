"""Card decks in other languages' index letters: the card recogniser on look-6 scenes
(``datasets.cards_synth``: look 5 with the courts' and ace's letters of one deck language,
Polish W D K A, German B D K A, French V D R A or English, and a fifth of the decks with dark
faces), one folder of scenes per letter set, read twice: with no deck letters given (the
English reader, "en"), with the deck's letters given (the game option ``index_letters``,
which picks the letters reader for a deck that is not English: "letters"), and with the
letters told from each photo (``set_name`` "auto", Gin's default: "told"; the last column
counts the scenes told right, told another set, and not told).

``python -m benchmarks.cards_letters [--scenes 30] [--work datasets/generated/cards_letters]
[--models DIR] [--letters en,pl] [--dark]`` renders the scenes (seed 20261202 + the set's place;
kept between runs) and prints ``meldcam eval --synthetic``'s figures per set and reading
(models/cards.md, "Index letters"). ``--dark``: the same scenes with every deck's face dark, in
light inks (a deck style the English reader never saw, the letters reader in a fifth of its
look-6 decks).
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from meldcam.vocabulary import AUTO_SET, INDEX_LETTERS
from training.evaluate import SYNTHETIC_GROUP, evaluate_synthetic
from training.offline import GENERATED
from training.train_pieces import LETTERS_RENDERER, render_cards_dark
from training.train_tiles import generate
from vision.kinds import CARDS
from vision.pipeline import MODELS_DIR, Recogniser

SEED = 20261202
DARK_RENDERER = f"{render_cards_dark.__module__}:{render_cards_dark.__name__}"


class Telling:
    """A recogniser reading with the letters told from the photo, counting what it told."""

    def __init__(self, recogniser: Recogniser) -> None:
        self.recogniser = recogniser
        self.told: Counter[str | None] = Counter()

    def recognise(self, image, channels: str = "rgb") -> dict:
        result = self.recogniser.recognise(image, channels, set_name=AUTO_SET)
        self.told[result.get("set")] += 1
        return result

    def tally(self, letters: str) -> str:
        """Told right / told another set / not told."""
        right = self.told[letters]
        untold = self.told[None]
        return f"{right}/{sum(self.told.values()) - right - untold}/{untold}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=30, help="scenes per letter set")
    parser.add_argument("--work", type=Path, default=GENERATED / "cards_letters")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="the models' folder")
    parser.add_argument(
        "--letters", default=",".join(INDEX_LETTERS), help="the letter sets, e.g. pl,fr"
    )
    parser.add_argument("--dark", action="store_true", help="every deck's face dark")
    args = parser.parse_args(argv)
    english = Recogniser("cards", args.models)
    # the letters reader, sharing the English reader's detector: each set's own sure threshold
    # (dark English decks: the first set's)
    set_readers = dict(CARDS.set_readers)
    first_set = next(iter(set_readers))
    print(
        f"{'letters':<8}{'read as':<9}{'n':>4}{'precision':>11}{'recall':>8}{'F1':>8}"
        f"{'exact':>7}{'sure':>8}{'sure precision':>16}{'F1 partly shown free':>22}"
        f"{'told':>12}"
    )
    for place, letters in enumerate(INDEX_LETTERS):
        if letters not in args.letters.split(","):
            continue
        folder = args.work / (f"{letters}_dark" if args.dark else letters)
        renderer = f"{DARK_RENDERER if args.dark else LETTERS_RENDERER}@{letters}"
        generate(folder, 0, args.scenes, SEED + place, name="scenes", renderer=renderer, quiet=True)
        readings = {"en": english}
        if letters != "en" or args.dark:  # dark English decks: the letters reader saw some
            readings["letters"] = english.for_set(letters if letters in set_readers else first_set)
        readings["told"] = Telling(english)
        for read_as, recogniser in readings.items():
            score = evaluate_synthetic(folder / "scenes" / "val", "cards", recogniser)
            g = score["groups"][SYNTHETIC_GROUP]
            sure_precision, sure_share = g["sure_precision"], g["sure_share"] or 0.0
            print(
                f"{letters:<8}{read_as:<9}{g['photos']:>4}{g['precision']:>11.3f}"
                f"{g['recall']:>8.3f}{g['f1']:>8.3f}{g['exact_photos']:>7}{sure_share:>8.1%}"
                + (f"{sure_precision:>16.3f}" if sure_precision is not None else f"{'-':>16}")
                + f"{g['f1_partly_shown_free']:>22.3f}"
                + (f"{recogniser.tally(letters):>12}" if isinstance(recogniser, Telling) else "")
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
