"""F1 with and without faint boxes (``vision.pipeline.FaintBoxes``), on real or rendered
photos: ``python -m benchmarks.faint_boxes dominoes ../shared/realdata/dev 0.2:0.9 0.15:0.8``.

Each ``SCORE:READ_FLOOR`` is one variant (boxes scored from SCORE up to the detector's
threshold, kept when read at least READ_FLOOR surely), measured beside the kind's shipped
settings; a folder of generated scenes (``NAME.jpg`` + ``NAME.json`` with a seed) is measured as
synthetic. docs/experiments/dominoes.md, "Faint boxes", holds the figures."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from training.evaluate import evaluate, evaluate_synthetic
from vision.kinds import settings_of
from vision.pipeline import FaintBoxes, Recogniser


def faint(text: str) -> FaintBoxes:
    score, _sep, read_floor = text.partition(":")
    try:
        return FaintBoxes(score=float(score), read_floor=float(read_floor))
    except ValueError as error:
        raise argparse.ArgumentTypeError(f"expected SCORE:READ_FLOOR, got {text!r}") from error


def _synthetic(folder: Path) -> bool:
    first = next(folder.glob("*.json"), None)
    return first is not None and "seed" in json.loads(first.read_text())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("tiles", "dominoes", "cards"))
    parser.add_argument("data", type=Path)
    parser.add_argument("variants", nargs="*", type=faint, metavar="SCORE:READ_FLOOR")
    args = parser.parse_args(argv)
    shipped = settings_of(args.kind)
    recogniser = Recogniser(shipped)
    synthetic = _synthetic(args.data)
    print(f"{'faint boxes':<14}{'group':<34}{'n':>4}{'precision':>11}{'recall':>8}{'F1':>8}")
    for variant in (shipped.faint_boxes, *args.variants):
        recogniser.settings = replace(shipped, faint_boxes=variant)
        if synthetic:
            report = evaluate_synthetic(args.data, args.kind, recogniser)
        else:
            report = evaluate(args.data, args.kind, recogniser)
        name = "none" if variant is None else f"{variant.score}:{variant.read_floor}"
        for group, score in report["groups"].items():
            print(
                f"{name:<14}{group:<34}{score['photos']:>4}{score['precision']:>11.3f}"
                f"{score['recall']:>8.3f}{score['f1']:>8.3f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
