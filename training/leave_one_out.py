"""Leave-one-out for the domino reader: how it reads a printing it never saw.

    python -m training.leave_one_out --leave coded

A reader is trained exactly as the shipped reader's base ``d3`` was (its recipe, 30 epochs, the
scene looks 1-3 in the same numbers, hard negatives mined by the detector), but on scenes in
which no set is of the printing kind ``--leave`` (``datasets.dominoes_synth.STYLE_KINDS``:
ivory, coded (colour-coded pips), black, coloured bodies). Then it and the shipped reader read,
through the shipped detector, held-back scenes whose every set is of that kind, and the real
photos (``../shared/realdata/dev``; the ``dm3_`` sets have colour-coded pips). The table it
prints goes to docs/experiments/dominoes.md ("Leave-one-out").

The detector is the shipped one, which saw every printing: this measures the reader, which is
what tells the pips of a printing apart. Everything is written under
``datasets/generated/dominoes/`` (``loo_<kind>_*`` scene sets, ``loo/<kind>/`` models);
every step resumes.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from datasets.dominoes_synth import STYLE_KINDS
from training.mining import reader_items
from training.offline import GENERATED
from training.scenes import domino_store, generate
from training.shipped import RECIPES, SEEDS

SEED = SEEDS["dominoes"]

# The shipped reader's base scene sets (looks 1-3, ``RECIPES["dominoes"]``): (look, training
# scenes, validation scenes); seeds of their own (base + 41, 43, 45).
TRAINING_LOOKS = ((1, 400, 40), (2, 400, 40), (3, 600, 40))
TEST_SCENES = 60  # looks 1, 2, 3 in turn, every set of the left-out kind (seed base + 47)


def render_styles(seed: int, argument: str):
    """A domino scene of look LOOK ("mix": 1-3 by the seed) whose sets are of the printing kinds
    KIND+KIND... only; ``argument`` is "LOOK:KIND+KIND"."""
    from datasets.dominoes_synth import render_scene_detailed

    look, _, kinds = argument.partition(":")
    scene = render_scene_detailed(
        seed,
        look=1 + seed % 3 if look == "mix" else int(look),
        style_kinds=tuple(kinds.split("+")),
    )
    return domino_store(scene)


def make_sets(work: Path, left_out: str, seed: int) -> tuple[list[str], str]:
    """The training scene sets without ``left_out`` and the test set of it alone; their names."""
    kept = "+".join(k for k in STYLE_KINDS if k != left_out)
    folders = []
    for index, (look, scenes, val) in enumerate(TRAINING_LOOKS):
        folder = f"loo_{left_out}_look{look}"
        renderer = f"training.leave_one_out:render_styles@{look}:{kept}"
        generate(work, scenes, val, seed + 41 + 2 * index, name=folder, renderer=renderer)
        folders.append(folder)
    test = f"loo_{left_out}_test"
    renderer = f"training.leave_one_out:render_styles@mix:{left_out}"
    generate(work, 0, TEST_SCENES, seed + 47, name=test, renderer=renderer)
    return folders, test


def train_reader(work: Path, folders: list[str], left_out: str, out: Path, seed: int) -> Path:
    """The reader trained as ``d3`` on ``folders``, exported to ``out``; its path."""
    from dataclasses import replace

    from training.classifier import export_classifier, train_classifier
    from training.readers import READER_SPECS

    recipe = RECIPES["dominoes"]
    spec = replace(READER_SPECS["dominoes"], recipe=f"d3_without_{left_out}")
    detector = Path("models") / recipe.detector_onnx
    net = train_classifier(
        work,
        30,
        seed,
        lambda work, split: reader_items(
            work,
            split,
            detector,
            folders,
            recipe.negative_tile_side,
            recipe.negative_zoom_out,
            recipe.negatives_per_scene,
        ),
        list,
        spec=spec,
    )
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(detector, out / recipe.detector_onnx)
    export_classifier([net], out / recipe.reader_onnx, spec=spec)
    return out


def measure(models: dict[str, Path], test: Path, real: Path | None) -> list[tuple]:
    """(reader, photos, dominoes, precision, recall, F1) of each reader on the test scenes, and
    on the real photos in all and per source."""
    from training.evaluate import evaluate, evaluate_synthetic
    from vision.recognisers import DominoRecogniser

    rows = []
    for name, folder in models.items():
        recogniser = DominoRecogniser(folder)
        reports = [("held-back scenes", evaluate_synthetic(test, "dominoes", recogniser))]
        if real is not None:
            reports.append(("real photos", evaluate(real, "dominoes", recogniser)))
        for label, report in reports:
            for group, score in report["groups"].items():
                if group in ("all", "synthetic_test") or group.startswith("source"):
                    row = (name, f"{label}: {group}", score["pieces_true"])
                    rows.append(row + tuple(score[k] for k in ("precision", "recall", "f1")))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--leave", choices=STYLE_KINDS, required=True)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--real", type=Path, default=Path("../shared/realdata/dev"))
    parser.add_argument(
        "--reference",
        action="append",
        default=[],
        metavar="NAME=DIR",
        help="another models folder to measure beside them (the reader trained on every kind)",
    )
    args = parser.parse_args(argv)
    started = time.time()
    work = GENERATED / "dominoes"
    folders, test = make_sets(work, args.leave, args.seed)
    out = train_reader(work, folders, args.leave, work / "loo" / args.leave, args.seed)
    real = args.real if args.real.is_dir() else None
    models = {"shipped": Path("models")}
    models |= {name: Path(folder) for name, _, folder in (r.partition("=") for r in args.reference)}
    models[f"without {args.leave}"] = out
    rows = measure(models, work / test / "val", real)
    print("| reader | photos | dominoes | precision | recall | F1 |\n|---|---|---:|---:|---:|---:|")
    for name, photos, n, precision, recall, f1 in rows:
        print(f"| {name} | {photos} | {n} | {precision:.3f} | {recall:.3f} | {f1:.3f} |")
    print(f"leave_one_out {args.leave}: done in {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
