"""One detector round, run from its data (``recipes.Round``): ``run_round``.

A round makes the scene sets it reads (unless made), links them into its YOLO set
(``yolo_data``), starts from what ``Round.start`` names, trains a one-class YOLO26-nano with
ultralytics in ``work/runs/<round>`` (resumed from its last checkpoint; done when ``done`` is
there) and exports its chosen checkpoint to ONNX. Imports ultralytics and torch: never imported
at inference time.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Sequence
from pathlib import Path

from training.machine import current
from training.offline import GENERATED
from training.recipes import TILE_DETECTOR, Recipe, Round
from training.scenes import Item, generate
from training.yolo_data import build_dataset

BATCH = 16  # a round's batch on the CPU (``--batch`` for a GPU)


def train_and_export(
    tag: str,
    run_dir: Path,
    start_from: str,
    data_yaml: Path,
    out: Path,
    epochs: int,
    imgsz: int,
    batch: int,
    seed: int,
    export_imgsz: int,
    onnx_name: str = "tile_detector.onnx",
    export_weights: str = "best",
    **extra: object,
) -> None:
    """Train a one-class detector from ``start_from`` (a model yaml or weights), resuming
    from ``run_dir``'s last checkpoint; record the training time; export ``out / onnx_name``
    from ``export_weights`` ("best": the epoch of the best validation fitness; "last").
    ``extra`` holds the round's own training arguments (optimizer, learning rate, turns)."""
    from training.offline import prepare

    machine = current()
    prepare()
    from ultralytics import YOLO

    # ultralytics puts a relative project under its own runs folder, not under the working
    # directory: the run would train where neither the resume nor the export looks
    run_dir = run_dir.resolve()
    last = run_dir / "weights" / "last.pt"
    best = run_dir / "weights" / "best.pt"
    start = time.time()
    if best.exists() and (run_dir / "done").exists():
        print(f"{tag}: already trained")
    elif last.exists():
        print(f"{tag}: resuming from {last}")
        YOLO(str(last)).train(resume=True)
    else:
        hours = machine.training_hours(time.time())
        if hours is not None:  # a deadline: ultralytics fits the epochs to the time left
            extra = {**extra, "time": hours}
            print(f"{tag}: {hours * 60:.1f} minutes to train")
        YOLO(start_from).train(
            data=str(data_yaml),
            epochs=epochs,
            imgsz=imgsz,
            batch=machine.detector_batch(batch),
            device=machine.device,
            workers=machine.workers,
            seed=seed,
            deterministic=True,
            amp=False,
            plots=False,
            fliplr=0.0,
            flipud=0.0,
            **{"mosaic": 1.0, "close_mosaic": max(1, epochs // 3), "degrees": 0.0, **extra},
            single_cls=True,
            project=str(run_dir.parent),
            name=run_dir.name,
            exist_ok=True,
            patience=100,
            verbose=False,
            val=True,
        )
    if not (run_dir / "done").exists():  # training time, kept for the model card
        (run_dir / "done").write_text(f"{time.time() - start:.0f}\n")
    exported = YOLO(str(run_dir / "weights" / f"{export_weights}.pt")).export(
        format="onnx", imgsz=export_imgsz, simplify=False, opset=17, dynamic=False
    )
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(exported, out / onnx_name)
    print(f"{tag}: {out / onnx_name} ({time.time() - start:.0f} s)")


def tile_detector_weights() -> Path | None:
    """The tile detector's best axis-aligned checkpoint, where the tiles were trained in this
    checkout: the domino and card detectors start from it."""
    for run in ("detector_r3", "detector"):
        path = GENERATED / "tiles" / "runs" / run / "weights" / "best.pt"
        if path.exists():
            return path
    return None


def checkpoint_or_shipped(
    recipe: Recipe, work: Path, run: str, weights: str, out: Path, data_yaml: Path, imgsz: int
) -> Path:
    """Round ``run``'s ``weights`` checkpoint ("best" or "last"), or where this checkout has
    none (checkpoints are not kept between machines) one rebuilt from the shipped detector
    ``out / recipe.detector_onnx``, its batch norms fitted to 32 of ``data_yaml``'s training
    photos (``recover.fit_norms``)."""
    found = work / "runs" / run / "weights" / f"{weights}.pt"
    if found.exists():
        return found
    import random

    from training.recover import fit_norms, rebuild, save_checkpoint

    rebuilt = work / "runs" / f"{run}_rebuilt" / "best.pt"
    if not rebuilt.exists():
        source = out / recipe.detector_onnx
        print(f"{run}: no {weights}.pt here, rebuilding it from {source}")
        model = rebuild(source)
        photos = sorted((data_yaml.parent / "images" / "train").glob("*.jpg"))
        sample = random.Random(0).sample(photos, min(32, len(photos)))
        fit_norms(model, sample, imgsz)
        save_checkpoint(model, rebuilt, source)
    return rebuilt


def run_round(
    round_: Round,
    recipe: Recipe,
    work: Path,
    out: Path,
    seed: int,
    imgsz: int | None = None,
    real: Sequence[Item] = (),
) -> Path:
    """Train ``round_`` of ``recipe`` in ``work`` from the recipe's ``seed`` and export it to
    ``out``; ``imgsz`` overrides every size (the smoke run), ``real``: the trainable real
    photos, each linked ``recipe.real_copies`` times. The ONNX file written."""
    for folder in round_.folders:  # made here unless made already
        s = recipe.scene_set(folder)
        generate(work, s.scenes, s.val, seed + s.seed_offset, name=s.folder, renderer=s.renderer)
    data_yaml = build_dataset(
        work,
        f"yolo_{round_.name}",
        [(recipe.scene_set(folder), copies) for folder, copies in round_.train],
        [recipe.scene_set(folder) for folder in round_.val],
        recipe.class_name,
        rotated=round_.rotated,
        real=real,
        real_copies=recipe.real_copies,
    )
    size = imgsz or round_.imgsz or recipe.det_imgsz
    export_size = imgsz or round_.imgsz or recipe.det_export_imgsz
    extra: dict[str, object] = {}
    if round_.start == TILE_DETECTOR:
        tiles = tile_detector_weights()
        start = str(tiles or "yolo26n.yaml")
        (work / "runs").mkdir(parents=True, exist_ok=True)
        (work / "runs" / "init.txt").write_text(f"{start}\n")
        print(f"{round_.name}: starting from {start}")
        tuned = tiles is not None
    elif round_.start.endswith(".yaml"):
        start, tuned = round_.start, True
    else:
        start = str(
            checkpoint_or_shipped(
                recipe, work, round_.start, round_.start_weights, out, data_yaml, size
            )
        )
        tuned = True
    if round_.lr0 is not None and tuned:  # a gentler start than ultralytics' from scratch
        extra |= {
            "optimizer": "AdamW",
            "lr0": round_.lr0,
            "lrf": 0.1,
            "warmup_epochs": round_.warmup_epochs,
        }
    if round_.backbone is not None:
        extra["pretrained"] = str(work / "runs" / round_.backbone / "weights" / "best.pt")
    if round_.degrees:
        extra["degrees"] = round_.degrees
    train_and_export(
        round_.name.replace("_", " "),
        work / "runs" / round_.name,
        start,
        data_yaml,
        out,
        round_.epochs,
        size,
        BATCH,
        seed,
        export_size,
        onnx_name=recipe.detector_onnx,
        export_weights=round_.export,
        **extra,
    )
    return out / recipe.detector_onnx
