"""Train a finished detector round on from its last checkpoint:

    python -m training.continue_round --kind dominoes --work W --round detector_obb_r7 \\
        --epochs 8 --lr0 0.0005 --out DIR [--deadline T]

A round whose epochs a deadline fitted (ultralytics' ``time``) ends with its learning rate
decayed, so resuming it adds nothing. This runs ``<round>_more`` beside it in ``W/runs``: the
round's ``last.pt`` on the round's own dataset, image size, optimizer and turns (its
``args.yaml``; the batch the stage's or ``--batch``'s, as for every round), a fresh schedule
from ``--lr0`` decaying to the round's ``lrf``, its last ``--close-mosaic`` epochs without
mosaic, its last epoch exported to ``DIR`` under the kind's detector name. Resumable like any
round. Measurement runs only (the dominoes' leave-one-out, models/dominoes.md); shipped
detectors come from ``training.shipped``'s recipes.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml

from training.machine import add_arguments as add_machine_arguments
from training.machine import apply as apply_machine
from training.rounds import BATCH, train_and_export
from training.shipped import RECIPES, SEEDS

# The round's own training arguments carried into the continued run (the rest are
# ``train_and_export``'s, the same for every round).
CARRIED = ("optimizer", "lrf", "degrees")


def continue_round(
    kind: str,
    work: Path,
    round_name: str,
    out: Path,
    epochs: int,
    lr0: float,
    seed: int,
    close_mosaic: int = 3,
    warmup_epochs: float = 0.3,
) -> Path:
    """Train ``round_name`` in ``work/runs`` on as ``<round_name>_more``; the exported ONNX."""
    work = work.resolve()
    run = work / "runs" / round_name
    last = run / "weights" / "last.pt"
    if not last.exists():
        raise FileNotFoundError(f"{last}: the round to continue has no last checkpoint here")
    args = yaml.safe_load((run / "args.yaml").read_text())
    recipe = RECIPES[kind]
    train_and_export(
        f"{round_name}_more".replace("_", " "),
        work / "runs" / f"{round_name}_more",
        str(last),
        Path(args["data"]),
        out,
        epochs,
        int(args["imgsz"]),
        BATCH,
        seed,
        int(args["imgsz"]),
        onnx_name=recipe.detector_onnx,
        export_weights="last",
        **{name: args[name] for name in CARRIED if name in args},
        pretrained=True,
        lr0=lr0,
        warmup_epochs=warmup_epochs,
        close_mosaic=close_mosaic,
    )
    return out / recipe.detector_onnx


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=sorted(RECIPES), required=True)
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--round", required=True, help="the run in WORK/runs to continue")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, required=True)
    parser.add_argument("--lr0", type=float, required=True)
    parser.add_argument("--close-mosaic", type=int, default=3)
    parser.add_argument("--seed", type=int, default=None, help="default: the kind's")
    add_machine_arguments(parser)
    args = parser.parse_args(argv)
    apply_machine(args)
    onnx = continue_round(
        args.kind,
        args.work,
        args.round,
        args.out,
        args.epochs,
        args.lr0,
        SEEDS[args.kind] if args.seed is None else args.seed,
        close_mosaic=args.close_mosaic,
    )
    print(onnx)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
