"""Train the number-tile models: ``python -m training.train_tiles --out models``.

One command, fixed seeds, resumable (each stage skips what is already done; the detector resumes
from its last checkpoint, the classifier from its last epoch). The recipe is data
(``tile_stages``: scene sets and detector rounds, run by ``training/recipes.py``):

1. ``generate``: synthetic scenes (datasets/tiles_synth.py, datasets/tiles_racks.py) into
   datasets/generated/tiles/<set>;
2. ``detector``: the rounds in order, each from the one before, the last exported as
   ``tile_detector.onnx`` (the others to ``work/intermediate``), every one also on the trainable
   real photos (3 copies each; the held-out quarter is never used), trained at 384 px and
   exported to ONNX at 512 px:
   ``detector``, a class-agnostic YOLO26-nano from its yaml (no download) on ``synth``;
   ``detector_r3``, fine-tuned on crowded piles and diagonal rows (``synth_r3``);
   ``detector_obb``, a rotated-box (OBB) YOLO26-nano from its weights on scenes stored with each
   tile's corners (``synth_obb``; real photos' corners estimated from their boxes);
   ``detector_r5`` (0 epochs: measured, not shipped), fine-tuned on the racks and named
   printings of ``synth_look2`` (one printing and one rack style never drawn), whose held-out
   scenes ``benchmarks/tiles_generalisation.py`` reads;
3. ``classifier``: a small CNN (value 1-17 / joker / none, and colour) on crops cut from
   full-resolution synthetic scenes (``synth``, ``synth_obb``, ``synth_look2``) and trainable
   real photos (``r5``), then fine-tuned with a third head, value x the quarter turn the tile
   shows in its crop, on those crops and ``--turn-scenes`` look-2 scenes' crops whose turn is
   known, half their sets printing a random pictogram joker (``r7``,
   ``training/turn_crops.py``), exported to ONNX as ``tile_classifier.onnx``.

Stages can be run alone with ``--stage``; ``--epochs ROUND=N`` and ``--scenes SET=N`` change the
recipe; ``--smoke`` runs a tiny version of everything (tests). Imports ultralytics and torch:
never imported at inference time.
"""

from __future__ import annotations

import argparse
import functools
import json
import multiprocessing
import shutil
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image

from datasets.realdata import load_photos, realdata_dir, split_trainable, training_pieces
from datasets.tile_printings import HELD_OUT_PRINTING, PRINTING_NAMES
from training.machine import current
from training.offline import GENERATED
from training.readers import NOT_A_PIECE
from training.recipes import (
    DetectorRound,
    SceneSet,
    Stages,
    add_recipe_arguments,
    apply_recipe_arguments,
    generate_scenes,
    train_rounds,
)
from vision.imageio import shown_size

SEED = 20261129
R3_SYNTH = "synth_r3"  # scenes for the detector fine-tune (piles, diagonal rows)
WORK = GENERATED / "tiles"


# ------------------------------------------------------------------------------- generate


def scene_renderer(name: str):
    """A scene renderer ``seed -> (BGR image, [(label, box), ...])`` named "module:function",
    or "module:function@ARG" for ``function(seed, ARG)``."""
    import importlib

    name, _, argument = name.partition("@")
    module, _, function = name.partition(":")
    render = getattr(importlib.import_module(module), function)
    return functools.partial(_call_with, render, argument) if argument else render


def _call_with(render, argument: str, seed: int):
    return render(seed, argument)


def _render_one(job: tuple[int, str, str]) -> int:
    seed, stem, renderer = job
    image_path = Path(stem + ".jpg")
    if image_path.exists() and Path(stem + ".json").exists():
        return 0
    img, labels, *extra = scene_renderer(renderer)(seed)
    cv2.imwrite(str(image_path), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    meta = {"seed": seed, "size": [img.shape[1], img.shape[0]], "pieces": labels}
    if extra:  # a rotated-box renderer: each piece's corners too
        meta["quads"] = extra[0]
    if len(extra) > 1:  # ... and the pieces partly shown (label, box), for ``meldcam eval``
        meta["partly_shown"] = extra[1]
    Path(stem + ".json").write_text(json.dumps(meta))
    return len(labels)


TILE_RENDERER = "datasets.tiles_synth:render_scene"


def generate(
    work: Path,
    n_train: int,
    n_val: int,
    seed: int,
    procs: int | None = None,
    name: str = "synth",
    renderer: str = TILE_RENDERER,
    quiet: bool = False,
) -> None:
    jobs = []
    for split, count, offset in (("train", n_train, 0), ("val", n_val, 10_000_000)):
        folder = work / name / split
        folder.mkdir(parents=True, exist_ok=True)
        jobs += [
            (seed * 1_000_003 + offset + i, str(folder / f"{i:05d}"), renderer)
            for i in range(count)
        ]
    start = time.time()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(procs or current().procs) as pool:
        tiles = sum(pool.imap_unordered(_render_one, jobs, chunksize=8))
    if not quiet:
        print(f"generate: {len(jobs)} scenes ({tiles} new pieces) in {time.time() - start:.0f} s")


def synth_items(
    work: Path, split: str, name: str = "synth"
) -> list[tuple[Path, list[tuple[str, list[float]]]]]:
    items = []
    for meta_path in sorted((work / name / split).glob("*.json")):
        meta = json.loads(meta_path.read_text())
        items.append((meta_path.with_suffix(".jpg"), [tuple(p) for p in meta["pieces"]]))
    return items


def real_train_items() -> list[tuple[Path, list[tuple[str, list[float]]]]]:
    data = realdata_dir()
    if data is None:
        print("real photos not found: training on synthetic scenes only")
        return []
    train, _held = split_trainable(load_photos(data, "rummikub"))
    return [(p.image, [(label, list(box)) for label, box in training_pieces(p)]) for p in train]


# ------------------------------------------------------------------------------- detector


def _write_yolo(images: Path, labels: Path, stem: str, src: Path, pieces) -> None:
    w, h = shown_size(src)  # from the header: decoding thousands of scenes took minutes
    dst = images / f"{stem}.jpg"
    if not dst.exists():
        shutil.copyfile(src, dst)
    lines = []
    for label, (x1, y1, x2, y2) in pieces:
        if label == NOT_A_PIECE:  # a reader's hard negative (a card scene's decoys), no box
            continue
        x1, x2 = max(0.0, x1), min(float(w), x2)
        y1, y2 = max(0.0, y1), min(float(h), y2)
        if x2 - x1 < 2 or y2 - y1 < 2:
            continue
        cx, cy = (x1 + x2) / 2 / w, (y1 + y2) / 2 / h
        lines.append(f"0 {cx:.6f} {cy:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    (labels / f"{stem}.txt").write_text("\n".join(lines) + ("\n" if lines else ""))


def build_detector_dataset(
    work: Path,
    real: list,
    real_copies: int,
    synth: str = "synth",
    name: str = "det",
    class_name: str = "tile",
) -> Path:
    root = work / name
    for split in ("train", "val"):
        (root / "images" / split).mkdir(parents=True, exist_ok=True)
        (root / "labels" / split).mkdir(parents=True, exist_ok=True)
    for split in ("train", "val"):
        for image, pieces in synth_items(work, split, synth):
            _write_yolo(
                root / "images" / split, root / "labels" / split, f"s_{image.stem}", image, pieces
            )
    for image, pieces in real:
        for k in range(real_copies):
            stem = f"r_{image.stem}_{k}"
            _write_yolo(root / "images" / "train", root / "labels" / "train", stem, image, pieces)
    return write_data_yaml(root, class_name)


def write_data_yaml(root: Path, class_name: str) -> Path:
    """The ultralytics data file of a one-class set under ``root`` (images/ and labels/)."""
    data_yaml = root / "data.yaml"
    data_yaml.write_text(
        f"path: {root.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: {class_name}\n"
    )
    return data_yaml


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
    ``extra`` holds the stage's own training arguments (optimizer, learning rate, epochs of
    mosaic)."""
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


def train_detector(
    work: Path,
    out: Path,
    epochs: int,
    imgsz: int,
    batch: int,
    seed: int,
    real_items,
    export_imgsz: int | None = None,
) -> None:
    """Train at ``imgsz``; export at ``export_imgsz`` (larger reads small tiles better: 512 was
    chosen on the trained-on real photos, never on the held-out ones)."""
    data_yaml = build_detector_dataset(work, real_items(), real_copies=3)
    train_and_export(
        "detector",
        work / "runs" / "detector",
        "yolo26n.yaml",
        data_yaml,
        out,
        epochs,
        imgsz,
        batch,
        seed,
        export_imgsz or imgsz,
    )


def finetune_detector(
    work: Path,
    out: Path,
    epochs: int,
    imgsz: int,
    batch: int,
    seed: int,
    real_items,
    export_imgsz: int,
) -> None:
    """Round ``detector_r3``: fine-tune the first detector on scenes rich in crowded piles and
    diagonal rows (``synth_r3``) + the trainable real photos; export it as
    ``tile_detector.onnx``. Resumes from its own last checkpoint."""
    data_yaml = build_detector_dataset(
        work, real_items(), real_copies=3, synth=R3_SYNTH, name="det_r3"
    )
    train_and_export(
        "detector r3",
        work / "runs" / "detector_r3",
        str(work / "runs" / "detector" / "weights" / "best.pt"),
        data_yaml,
        out,
        epochs,
        imgsz,
        batch,
        seed,
        export_imgsz,
        optimizer="AdamW",
        lr0=0.001,
        lrf=0.1,
        warmup_epochs=0.5,
    )


# ------------------------------------------------------------------------------- rotated boxes


OBB_SYNTH = "synth_obb"  # the rotated-box round's scenes, stored with each tile's corners
OBB_RENDERER = "datasets.tiles_synth:render_scene_with_quads"


def obb_line(quad, w: int, h: int) -> str | None:
    """A YOLO-OBB label line (class 0, four corners normalised) for the part of ``quad`` inside
    the ``w`` x ``h`` photo: the smallest rotated rectangle around that part."""
    pts = np.asarray(quad, np.float32).reshape(4, 2)
    if cv2.contourArea(pts, oriented=True) < 0:
        pts = pts[::-1].copy()
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    area, inside = cv2.intersectConvexConvex(pts, frame)
    if inside is None or area < 16:
        return None
    corners = cv2.boxPoints(cv2.minAreaRect(inside.reshape(-1, 2)))
    corners = np.clip(corners / [w, h], 0.0, 1.0)
    return "0 " + " ".join(f"{v:.6f}" for v in corners.ravel())


def real_quad(image: np.ndarray, box) -> np.ndarray:
    """A real tile's corners from its labelled axis-aligned box: the tile's angle estimated
    from the edges around the box (``tile_angle``), its sides from the box (``face_size``)."""
    from vision.crops import face_size, tile_angle

    x1, y1, x2, y2 = (float(v) for v in box)
    theta = tile_angle(image, box)
    fw, fh = face_size(x2 - x1, y2 - y1, theta)
    return cv2.boxPoints((((x1 + x2) / 2, (y1 + y2) / 2), (fw, fh), theta))


def build_obb_dataset(
    work: Path,
    real: list,
    real_copies: int,
    name: str = "det_obb",
    synths: tuple[str, ...] = ("synth_obb",),
) -> Path:
    """YOLO-OBB data: the scenes of ``synths`` with their true corners, plus the trainable real
    photos with corners estimated from their boxes (``real_quad``)."""
    root = work / name
    for split in ("train", "val"):
        (root / "images" / split).mkdir(parents=True, exist_ok=True)
        (root / "labels" / split).mkdir(parents=True, exist_ok=True)

    def write(split: str, stem: str, src: Path, quads) -> None:
        dst = root / "images" / split / f"{stem}.jpg"
        if not dst.exists():
            shutil.copyfile(src, dst)
        w, h = Image.open(src).size
        lines = [line for q in quads if (line := obb_line(q, w, h))]
        (root / "labels" / split / f"{stem}.txt").write_text("".join(x + "\n" for x in lines))

    for synth in synths:
        prefix = "s" if synth == OBB_SYNTH else f"s_{synth}"
        for split in ("train", "val"):
            for meta_path in sorted((work / synth / split).glob("*.json")):
                quads = json.loads(meta_path.read_text())["quads"]
                write(split, f"{prefix}_{meta_path.stem}", meta_path.with_suffix(".jpg"), quads)
    for image, pieces in real:
        bgr = cv2.imread(str(image))
        if bgr is None:
            raise ValueError(f"{image}: not an image")
        quads = [real_quad(bgr, box) for _label, box in pieces]
        for k in range(real_copies):
            write("train", f"r_{image.stem}_{k}", image, quads)
    return write_data_yaml(root, "tile")


def train_obb_detector(
    work: Path,
    out: Path,
    epochs: int,
    imgsz: int,
    batch: int,
    seed: int,
    real_items,
    export_imgsz: int,
) -> None:
    """Round ``detector_obb``: a rotated-box (OBB) YOLO26-nano, its backbone and neck started
    from ``detector_r3``'s, trained on ``synth_obb`` + the trainable real photos; exported as
    ``tile_detector.onnx``. Rotated boxes do not overlap along diagonal rows and in piles,
    where axis-aligned ones cover half their neighbours."""
    data_yaml = build_obb_dataset(work, real_items(), real_copies=3)
    train_and_export(
        "detector obb",
        work / "runs" / "detector_obb",
        "yolo26n-obb.yaml",
        data_yaml,
        out,
        epochs,
        imgsz,
        batch,
        seed,
        export_imgsz,
        **rotated_round(work),
    )


# The look-2 scenes: tiles standing in racks and tables of one set each, drawn from named
# printings and rack styles, one printing and one rack style never drawn (``datasets.tiles_racks``).
LOOK2_SYNTH = "synth_look2"
LOOK2_RENDERER = "datasets.tiles_racks:render_training_scene"
# Scenes of what training never sees, for the leave-one-out table (validation split only).
HELD_OUT_SETS = {
    "heldout_printing": "datasets.tiles_racks:render_held_out_printing_scene",
    "heldout_rack": "datasets.tiles_racks:render_held_out_rack_scene",
}


def look2_sets(left_out: str = HELD_OUT_PRINTING) -> dict[str, str]:
    """Folder -> renderer of the look-2 scenes when ``left_out`` is the printing training never
    draws: the training scenes first, then the left-out printing's and the held-out rack's. The
    shipped models leave out ``HELD_OUT_PRINTING``; leaving out another (``--leave-out``) is a
    measurement, in folders of its own."""
    if left_out == HELD_OUT_PRINTING:
        return {LOOK2_SYNTH: LOOK2_RENDERER, **HELD_OUT_SETS}
    return {
        f"{LOOK2_SYNTH}_without_{left_out}": f"{LOOK2_RENDERER}@{left_out}",
        f"heldout_{left_out}": f"{HELD_OUT_SETS['heldout_printing']}@{left_out}",
        "heldout_rack": HELD_OUT_SETS["heldout_rack"],
    }


def train_rack_detector(
    work: Path,
    out: Path,
    epochs: int,
    imgsz: int,
    batch: int,
    seed: int,
    real_items,
    export_imgsz: int,
) -> None:
    """Round ``detector_r5`` (0 epochs in the shipped recipe: measured, not shipped; see
    models/tiles.md): the rotated-box detector fine-tuned on the look-2 scenes (racks, one set
    per photo), the first ``synth_obb`` scenes (tables of the other printings, so they are not
    forgotten) and the trainable real photos; exported as ``tile_detector.onnx``."""
    data_yaml = build_obb_dataset(
        work, real_items(), real_copies=3, name="det_r5", synths=(LOOK2_SYNTH, OBB_SYNTH)
    )
    train_and_export(
        "detector r5",
        work / "runs" / "detector_r5",
        str(work / "runs" / "detector_obb" / "weights" / "best.pt"),
        data_yaml,
        out,
        epochs,
        imgsz,
        batch,
        seed,
        export_imgsz,
        optimizer="AdamW",
        lr0=0.0005,
        lrf=0.1,
        warmup_epochs=0.5,
        degrees=15.0,
    )


def rotated_round(work: Path) -> dict[str, Any]:
    """The training arguments of a rotated-box round (tiles and dominoes): the backbone and
    neck from ``detector_r3``'s best detector in ``work``, AdamW at 0.001 decaying to a tenth, one
    epoch of warm-up, turns of up to 30 degrees (exact for rotated boxes)."""
    return {
        "pretrained": str(work / "runs" / "detector_r3" / "weights" / "best.pt"),
        "optimizer": "AdamW",
        "lr0": 0.001,
        "lrf": 0.1,
        "warmup_epochs": 1.0,
        "degrees": 30.0,
    }


# ------------------------------------------------------------------------------- classifier


def classifier_items(work: Path, split: str, look2: str = LOOK2_SYNTH) -> list:
    """The classifier's scenes: the base set, the rotated-box scenes (``synth_obb``: diagonal
    rows and crowded piles) and the look-2 scenes (racks, one set per photo; folder
    ``look2``), each where made."""
    items = []
    for name in ("synth", OBB_SYNTH, look2):
        if (work / name / split).is_dir():
            items += synth_items(work, split, name)
    return items


def tile_stages(left_out: str = HELD_OUT_PRINTING) -> Stages:
    """The shipped tile recipe; ``left_out`` is the printing the look-2 scenes never draw."""
    (look2, look2_renderer), *held_out = look2_sets(left_out).items()
    return Stages(
        scene_sets=(
            SceneSet("synth", TILE_RENDERER, 450, 40, 0),
            SceneSet(R3_SYNTH, TILE_RENDERER, 300, 40, 3, for_round="detector_r3"),
            SceneSet(OBB_SYNTH, OBB_RENDERER, 600, 60, 4, for_round="detector_obb"),
            SceneSet(look2, look2_renderer, 800, 60, 5),  # racks; the classifier's too
            *(
                SceneSet(name, renderer, 0, 60, 6 + k)  # held-back tests of the left-out sets
                for k, (name, renderer) in enumerate(held_out)
            ),
        ),
        rounds=(
            DetectorRound("detector", 16),
            DetectorRound("detector_r3", 6),
            DetectorRound("detector_obb", 14),
            # measured and not shipped (models/tiles.md): detector_obb's export ships
            DetectorRound("detector_r5", 0),
        ),
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("models"))
    parser.add_argument("--work", type=Path, default=WORK)
    parser.add_argument(
        "--stage", choices=("all", "generate", "detector", "classifier"), default="all"
    )
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--leave-out",
        default=HELD_OUT_PRINTING,
        choices=PRINTING_NAMES,
        help="the printing the look-2 scenes never draw (another than the shipped one's is a "
        "leave-one-printing-out measurement: use its own --work and --out)",
    )
    add_recipe_arguments(parser, [tile_stages()])
    parser.add_argument("--det-imgsz", type=int, default=384, help="training image size")
    parser.add_argument("--det-export-imgsz", type=int, default=512, help="ONNX input size")
    parser.add_argument("--cls-epochs", type=int, default=30)
    parser.add_argument("--cls-members", type=int, default=1, help="classifier ensemble size")
    parser.add_argument(
        "--turn-scenes", type=int, default=1500, help="look-2 scenes cut for the turn head"
    )
    parser.add_argument(
        "--turn-epochs", type=int, default=5, help="the turn head's fine-tune (0: none)"
    )
    parser.add_argument("--smoke", action="store_true", help="tiny run for tests")
    parser.add_argument("--no-real", action="store_true", help="synthetic scenes only")
    args = parser.parse_args(argv)
    stages = apply_recipe_arguments(parser, args, tile_stages(args.leave_out))
    if args.smoke:
        # every round once, the rack round too (0 epochs in the shipped recipe)
        stages = stages.smoke(scenes=4, val=2).with_changes(
            epochs={"detector_r5": 1}, scenes={"synth": 6}
        )
        args.cls_epochs, args.cls_members = 1, 1
        args.turn_scenes, args.turn_epochs = 3, min(args.turn_epochs, 1)
        args.det_imgsz = args.det_export_imgsz = 160
    started = time.time()
    real_items = (lambda: []) if args.no_real else real_train_items
    if args.stage in ("all", "generate"):
        generate_scenes(stages, args.work, args.seed, generate)
    if args.stage in ("all", "detector"):
        trainers = {
            "detector": train_detector,
            "detector_r3": finetune_detector,
            "detector_obb": train_obb_detector,
            "detector_r5": train_rack_detector,
        }
        sizes = dict(imgsz=args.det_imgsz, export_imgsz=args.det_export_imgsz)
        train_rounds(
            stages,
            args.work,
            args.out,
            {
                name: functools.partial(
                    _train_tile_round, trainer, args.work, seed=args.seed, real=real_items, **sizes
                )
                for name, trainer in trainers.items()
            },
        )
    if args.stage in ("all", "classifier"):
        from training.classifier import (
            TILE_SPEC,
            TILE_TURN_SPEC,
            export_classifier,
            finetune_turns,
            train_classifier,
        )

        look2 = next(iter(look2_sets(args.leave_out)))
        nets = [
            train_classifier(
                args.work,
                args.cls_epochs,
                args.seed,
                functools.partial(classifier_items, look2=look2),
                real_items,
                smoke=args.smoke,
                member=member,
            )
            for member in range(args.cls_members)
        ]
        spec = TILE_SPEC
        if args.turn_epochs:
            # member 0 learns the value x turn head too, on its crops and the turn crops
            from training import turn_crops

            spec = TILE_TURN_SPEC
            name = "turn_crops_smoke.npz" if args.smoke else "turn_crops.npz"
            made = turn_crops.make(
                args.work / "classifier" / name, args.turn_scenes, args.leave_out
            )
            start = args.work / "classifier" / ("r5_last_smoke.pt" if args.smoke else "r5_last.pt")
            nets = [
                finetune_turns(
                    args.work,
                    args.turn_epochs,
                    args.seed,
                    start,
                    TILE_SPEC.crop_cache(args.work, args.smoke),
                    made,
                    limit=2000 if args.smoke else None,
                )
            ]
        export_classifier(nets, args.out / "tile_classifier.onnx", spec=spec)
        print(f"classifier: {args.out / 'tile_classifier.onnx'} ({len(nets)} members)")
    copy_second_reader(args.out)
    print(f"train_tiles: done in {time.time() - started:.0f} s")
    return 0


def copy_second_reader(out: Path) -> None:
    """The second reader's models copied into ``out`` beside the trained ones, so that ``out``
    is a whole tile models folder: they are pretrained, never trained here
    (``models/text_reader.md``)."""
    from vision.kinds import TILES
    from vision.pipeline import MODELS_DIR

    second = TILES.second_reader
    assert second is not None  # the tiles have a second reader
    out.mkdir(parents=True, exist_ok=True)
    for name in (second.recogniser_file, second.detector_file):
        src, dst = MODELS_DIR / name, out / name
        if not dst.exists() or not dst.samefile(src):
            shutil.copyfile(src, dst)


def _train_tile_round(
    trainer, work: Path, out: Path, epochs: int, *, seed, real, imgsz, export_imgsz
):
    """One detector round of ``trainer``'s shape: (work, out, epochs, imgsz, batch, seed, real
    items, export_imgsz)."""
    trainer(work, out, epochs, imgsz, 16, seed, real, export_imgsz=export_imgsz)


if __name__ == "__main__":
    raise SystemExit(main())
