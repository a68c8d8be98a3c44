"""Card decks in other languages' index letters: the card recogniser on look-6 scenes
(``datasets.cards_synth``: look 5 with the courts' and ace's letters of one deck language,
Polish W D K A, German B D K A, French V D R A or English, and a fifth of the decks with dark
faces), one folder of scenes per letter set, read twice: with no deck letters given (the
English reader, "en"), with the deck's letters given (the game option ``index_letters``,
which picks the letters reader for a deck that is not English: "letters"), and with the
letters told from each photo (``set_name`` "auto", Gin's default: "told"; the last column
counts the scenes told right, told only to print other letters than English ("other"), told
another set, and not told).

``python -m benchmarks.cards_letters [--scenes 30] [--work DIR] [--models DIR] [--letters en,pl]
[--dark] [--twins] [--seed N]`` renders the scenes (seed 20261202 + the set's place, in
datasets/generated/cards_letters; kept between runs) and prints ``meldcam eval --synthetic``'s
figures per set and reading (docs/experiments/cards.md, "Index letters"). ``--dark``: the same
scenes with every deck's face dark, in light inks (a deck style the English reader never saw,
the letters reader in a fifth of its look-6 decks). ``--twins``: each foreign set's scenes
rendered again from the same seeds in English letters (the same cards and layouts; the letters'
widths move the boxes a little, and with them which indices show enough to count) and read by
the English reader, which learned those letters: the control beside which a set's figure, the
French one above all (left out of the letters reader), measures what its letters cost (rows "en
twin"). ``--seed`` renders other scenes (the first set's seed), in a folder of their own.
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from meldcam.vocabulary import AUTO_SET, INDEX_LETTERS, OTHER_LETTERS
from training.evaluate import SYNTHETIC_GROUP, evaluate_synthetic
from training.offline import GENERATED
from training.scenes import generate
from vision.kinds import CARDS
from vision.pipeline import MODELS_DIR, Recogniser

SEED = 20261202
LETTERS_RENDERER = "cards_letters"  # ``training.scenes``' renderers
DARK_RENDERER = "cards_dark"


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
        """Told right / told only other letters than English (``OTHER_LETTERS``) / told
        another set / not told."""
        right, other, untold = self.told[letters], self.told[OTHER_LETTERS], self.told[None]
        wrong = sum(self.told.values()) - right - other - untold
        return f"{right}/{other}/{wrong}/{untold}"


def _print_row(letters: str, read_as: str, score: dict, told: str = "") -> None:
    g = score["groups"][SYNTHETIC_GROUP]
    sure_precision, sure_share = g["sure_precision"], g["sure_share"] or 0.0
    print(
        f"{letters:<8}{read_as:<9}{g['photos']:>4}{g['precision']:>11.3f}"
        f"{g['recall']:>8.3f}{g['f1']:>8.3f}{g['exact_photos']:>7}{sure_share:>8.1%}"
        + (f"{sure_precision:>16.3f}" if sure_precision is not None else f"{'-':>16}")
        + f"{g['f1_partly_shown_free']:>22.3f}{told:>14}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=30, help="scenes per letter set")
    parser.add_argument(
        "--work", type=Path, help="the scenes' folder (default: by the seed, kept between runs)"
    )
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="the models' folder")
    parser.add_argument(
        "--letters", default=",".join(INDEX_LETTERS), help="the letter sets, e.g. pl,fr"
    )
    parser.add_argument("--dark", action="store_true", help="every deck's face dark")
    parser.add_argument(
        "--twins", action="store_true", help="each set's scenes in English letters too"
    )
    parser.add_argument("--seed", type=int, default=SEED, help="the first letter set's seed")
    args = parser.parse_args(argv)
    # scenes already rendered are read again, whatever seed rendered them: a folder per seed
    suffix = "" if args.seed == SEED else f"_{args.seed}"
    work = args.work or GENERATED / f"cards_letters{suffix}"
    english = Recogniser("cards", args.models)
    # the letters reader, sharing the English reader's detector: each set's own sure threshold
    # (dark English decks: the first set's)
    set_readers = dict(CARDS.set_readers)
    first_set = next(iter(set_readers))
    print(
        f"{'letters':<8}{'read as':<9}{'n':>4}{'precision':>11}{'recall':>8}{'F1':>8}"
        f"{'exact':>7}{'sure':>8}{'sure precision':>16}{'F1 partly shown free':>22}"
        f"{'told':>14}"
    )
    for place, letters in enumerate(INDEX_LETTERS):
        if letters not in args.letters.split(","):
            continue
        folder = work / (f"{letters}_dark" if args.dark else letters)
        renderer = DARK_RENDERER if args.dark else LETTERS_RENDERER
        seed = args.seed + place
        generate(
            folder,
            0,
            args.scenes,
            seed,
            name="scenes",
            renderer=f"{renderer}@{letters}",
            quiet=True,
        )
        readings = {"en": english}
        if letters != "en" or args.dark:  # dark English decks: the letters reader saw some
            readings["letters"] = english.for_set(letters if letters in set_readers else first_set)
        readings["told"] = Telling(english)
        for read_as, recogniser in readings.items():
            score = evaluate_synthetic(folder / "scenes" / "val", "cards", recogniser)
            told = recogniser.tally(letters) if isinstance(recogniser, Telling) else ""
            _print_row(letters, read_as, score, told)
        if args.twins and letters != "en":
            twin = work / f"{folder.name}_en_twin"
            generate(
                twin, 0, args.scenes, seed, name="scenes", renderer=f"{renderer}@en", quiet=True
            )
            _print_row(
                letters, "en twin", evaluate_synthetic(twin / "scenes" / "val", "cards", english)
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
