"""Every domino of a double-twelve set read at each pip size that real sets print:
``python -m benchmarks.domino_pip_sizes [--models DIR] [--seeds N]``.

Clean photos (``datasets.dominoes_synth.render_test_scene``: no tilt, no photo effects) of the
91 dominoes of a double-twelve set, ten a photo in two rows side by side, read by the shipped
pipeline (or the model files of ``--models DIR``) and scored as ``meldcam eval`` scores a photo
(labels as multisets). Printings: coloured (coded) and black (ivory) pips, each at the
generator's usual double-twelve radius, at large pips (``BIG_PIPS``' top, look 5) and graded
(``GRADED_PIPS``: halves of up to nine pips larger than 10-12's, look 6; a real colour-pip set's
9 was read as 8). A reader that learned small pips only misreads the large ones without any
photo noise to blame. Figures in docs/experiments/dominoes.md ("Large pips").
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import numpy as np

from datasets.dominoes_synth import BIG_PIPS, all_labels, random_style, render_test_scene
from training.evaluate import Score
from vision.pipeline import MODELS_DIR, Recogniser

PER_PHOTO, PER_ROW = 10, 5
TILE_WIDTH = 110  # px: a domino about 0.2 of a 1200 px photo's long side, as on dev tables
# (radius of 0-9's pips, of 10-12's, 10-12's spread across and along; 0: the usual): the
# generator's usual double-twelve, look 5's large pips, a real colour-pip set's graded ones
# (``dm3_pt_detect_stack4``: a 10's four rows pressed together, nearly touching)
SIZES = {
    "usual": (0.07, 0.07, (0.0, 0.0)),
    "large": (BIG_PIPS[1], BIG_PIPS[1], (0.0, 0.0)),
    "graded": (0.11, 0.08, (1.1, 0.85)),
}


def photos(seed: int):
    """(printing, size, photo, labels) for every printing and pip size of ``seed``."""
    labels = all_labels("double-twelve")
    order = [labels[i] for i in np.random.default_rng(seed).permutation(len(labels))]
    for kind in ("coded", "ivory"):
        base = random_style(np.random.default_rng(seed), 12, kind=kind)
        for size, (three_rows, four_rows, four_row_spread) in SIZES.items():
            style = replace(
                base,
                pip_radius=three_rows,
                four_row_radius=four_rows,
                four_row_spread=four_row_spread,
                spread=1.0,
                turn=False,
            )
            for start in range(0, len(order), PER_PHOTO):
                chunk = order[start : start + PER_PHOTO]
                rows = [chunk[i : i + PER_ROW] for i in range(0, len(chunk), PER_ROW)]
                scene = render_test_scene(
                    rows, tile_width=TILE_WIDTH, arrangement="side", style=style, seed=seed
                )
                yield kind, size, scene.image, [d.label for d in scene.dominoes]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--seeds", type=int, default=2, help="printings of each kind")
    args = parser.parse_args(argv)
    recogniser = Recogniser("dominoes", models_dir=args.models)
    scores: dict[tuple[str, str], Score] = {}
    wrong: dict[tuple[str, str], list[str]] = {}
    for seed in range(args.seeds):
        for kind, size, image, truth in photos(seed):
            pieces = recogniser.recognise(image)["pieces"]
            read = [p["label"] for p in pieces]
            key = (kind, size)
            scores.setdefault(key, Score()).add(f"{seed}", read, truth, 0.0)
            missed = sorted(set(truth) - set(read))
            wrong.setdefault(key, []).extend(
                f"{t}->{'/'.join(sorted(set(read) - set(truth))) or '?'}" for t in missed
            )
    print(f"dominoes of a double-twelve set, {args.seeds} printings a kind, {args.models}")
    print(f"{'pips':8} {'size':8} {'dominoes':>8} {'F1':>6}  misread (true->read in that photo)")
    for (kind, size), score in scores.items():
        shown = ", ".join(wrong[(kind, size)][:6])
        print(f"{kind:8} {size:8} {score.truth:8d} {score.f1:6.3f}  {shown}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
