"""Train a kind's models: ``python -m training.train --kind tiles|dominoes|cards --out models``.

One command per kind, fixed seeds, resumable (each stage skips what is done; a detector round
and a reader resume from their last checkpoints). The recipe is data (``training.shipped``: its
scene sets, detector rounds and reader fine-tunes):

1. ``generate``: the synthetic scene sets that are no round's own (``training.scenes``) into
   ``datasets/generated/<kind>/<set>``;
2. ``detector``: the detector rounds in order, each from the one before (``rounds.run_round``),
   the last one run exported to ``--out``, the others to ``work/intermediate``; ``--stage
   finetune`` runs one round alone (the last, or ``--round NAME``) from the round before's
   checkpoint or, on a fresh checkout, from the shipped detector (``recover``), as a lent GPU
   runs it (``scripts/gpu_round.sh``; ``--device 0 --batch 64 --workers 12 --procs 16``,
   ``training.machine``);
3. ``reader``: the crop reader (tiles: the classifier, value and colour, then the value x turn
   head on look-2 crops, ``training/turn_crops.py``; dominoes and cards: two heads, on crops
   cut square to each box, hard negatives mined by the detector in ``--out``,
   ``training.mining``);
4. ``reader-finetune`` (dominoes and cards, also part of "all"): the recipe's fine-tunes of the
   readers in ``--out``, in order (``--round SPEC`` runs one alone).

``--epochs ROUND=N`` and ``--scenes SET=N`` change the recipe; ``--smoke`` runs a tiny version
of everything (tests). Synthetic data only, but for the tiles' trainable real photos: no real
domino or card photo has a licence that allows training on it. Imports ultralytics and torch:
never imported at inference time.
"""

from __future__ import annotations

import argparse
import functools
import shutil
import time
from dataclasses import replace
from pathlib import Path

from datasets.tile_printings import HELD_OUT_PRINTING, PRINTING_NAMES
from training.machine import add_arguments as add_machine_arguments
from training.machine import apply as apply_machine
from training.mining import reader_items
from training.offline import GENERATED
from training.recipes import ReaderFinetune, Recipe, add_recipe_arguments, apply_recipe_arguments
from training.rounds import run_round
from training.scenes import generate, real_train_items, synth_items
from training.shipped import RECIPES, SEEDS, look2_sets, recipe_of

STAGES = ("all", "generate", "detector", "finetune", "reader", "reader-finetune")


def generate_sets(recipe: Recipe, work: Path, seed: int) -> None:
    """The scene sets of the "generate" stage."""
    for s in recipe.sets_made():
        generate(work, s.scenes, s.val, seed + s.seed_offset, name=s.folder, renderer=s.renderer)


def train_detector(
    recipe: Recipe, work: Path, out: Path, seed: int, imgsz: int | None, real: list
) -> None:
    """Each round that runs, in order; the last to ``out``, the others to
    ``work/intermediate``."""
    run = recipe.rounds_run()
    for index, round_ in enumerate(run):
        to = out if index == len(run) - 1 else work / "intermediate"
        run_round(round_, recipe, work, to, seed, imgsz, real)


# ------------------------------------------------------------------------------- tile reader


def classifier_items(work: Path, split: str, look2: str) -> list:
    """The tile classifier's scenes: the first ones, the rotated-box round's (diagonal rows,
    crowded piles) and the look-2 scenes (racks, one set per photo), each where made."""
    items = []
    for name in ("synth", "synth_obb", look2):
        if (work / name / split).is_dir():
            items += synth_items(work, split, name)
    return items


def train_tile_classifier(args: argparse.Namespace, work: Path, real_items) -> None:
    from training import turn_crops
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
            work,
            args.reader_epochs,
            args.seed,
            functools.partial(classifier_items, look2=look2),
            real_items,
            smoke=args.smoke,
            member=member,
        )
        for member in range(args.reader_members)
    ]
    spec = TILE_SPEC
    if args.turn_epochs:
        # member 0 learns the value x turn head too, on its crops and the turn crops
        spec = TILE_TURN_SPEC
        name = "turn_crops_smoke.npz" if args.smoke else "turn_crops.npz"
        made = turn_crops.make(work / "classifier" / name, args.turn_scenes, args.leave_out)
        start = work / "classifier" / ("r5_last_smoke.pt" if args.smoke else "r5_last.pt")
        nets = [
            finetune_turns(
                work,
                args.turn_epochs,
                args.seed,
                start,
                TILE_SPEC.crop_cache(work, args.smoke),
                made,
                limit=2000 if args.smoke else None,
            )
        ]
    export_classifier(nets, args.out / "tile_classifier.onnx", spec=spec)
    print(f"classifier: {args.out / 'tile_classifier.onnx'} ({len(nets)} members)")


def copy_second_reader(kind: str, out: Path) -> None:
    """The kind's second reader's models (where it has one) copied into ``out`` beside the
    trained ones, so that ``out`` is a whole models folder of the kind: they are pretrained,
    never trained here (``models/text_reader.md``)."""
    from vision.kinds import settings_of
    from vision.pipeline import MODELS_DIR

    second = settings_of(kind).second_reader
    if second is None:
        return
    out.mkdir(parents=True, exist_ok=True)
    names = [second.recogniser_file] + ([second.detector_file] if second.find else [])
    for name in names:
        src, dst = MODELS_DIR / name, out / name
        if not dst.exists() or not dst.samefile(src):
            shutil.copyfile(src, dst)


# ------------------------------------------------------------------------------- piece readers


def train_reader(recipe: Recipe, args: argparse.Namespace, work: Path) -> None:
    """The domino or card reader: its base recipe first where it has one (trained, resumed or
    loaded), then it on the base's crops and those of the later reader looks."""
    from training.classifier import export_classifier, train_classifier
    from training.readers import READER_SPECS

    spec = READER_SPECS[recipe.kind]
    looks = [s.folder for s in recipe.reader_looks()]

    def items(folders: list[str]):
        return lambda work, split: reader_items(
            work,
            split,
            args.out / recipe.detector_onnx,
            folders,
            recipe.negative_tile_side,
            recipe.negative_zoom_out,
            recipe.negatives_per_scene,
        )

    base = spec.base_spec()
    nets = []
    for member in range(args.reader_members):
        common = dict(smoke=args.smoke, member=member)
        if base is None:
            everything = [*recipe.reader_sets, *looks]
            net = train_classifier(
                work, args.reader_epochs, args.seed, items(everything), list, spec=spec, **common
            )
        else:
            first = train_classifier(
                work,
                args.reader_epochs,
                args.seed,
                items([*recipe.reader_sets, *looks[: spec.base_looks]]),
                list,
                spec=base,
                **common,
            )
            net = train_classifier(
                work,
                1 if args.smoke else spec.finetune_epochs,
                args.seed,
                items(looks[spec.base_looks :]),
                list,
                spec=spec,
                init=first,
                base_crops=base.crop_cache(work, args.smoke),
                max_lr=spec.finetune_lr,
                **common,
            )
        nets.append(net)
    export_classifier(nets, args.out / recipe.reader_onnx, spec=spec)
    print(f"reader: {args.out / recipe.reader_onnx} ({len(nets)} members)")


def reader_starts(recipe: Recipe) -> dict[str, str]:
    """Each reader fine-tune's starting reader, by spec: the recipe of the file it starts from
    (``start_onnx``, by default the reader) as the reader stage and the fine-tunes before it
    left it."""
    from training.readers import READER_SPECS

    written = {recipe.reader_onnx: READER_SPECS[recipe.kind].recipe}
    starts = {}
    for tune in recipe.reader_finetunes:
        starts[tune.spec] = written.get(tune.start_onnx or recipe.reader_onnx, "")
        written[tune.onnx or recipe.reader_onnx] = tune.spec
    return starts


def finetune_reader(
    recipe: Recipe,
    tune: ReaderFinetune,
    start: str,
    work: Path,
    out: Path,
    seed: int,
    leave_letters: str,
    smoke: bool,
) -> None:
    """The reader in ``out`` fine-tuned as ``tune`` says; ``leave_letters`` ("fr") leaves the
    cards' scenes of that letter set out. The reader must be ``start``, by the recipe stamped in
    it (a fine-tune run over its own result would train something else)."""
    from training.classifier import export_classifier, reader_recipe, train_classifier
    from training.readers import FINETUNE_SPECS, READER_SPECS
    from training.recover import rebuild_reader

    sets = [recipe.scene_set(folder) for folder in tune.sets]
    if leave_letters:
        sets = [s for s in sets if not s.renderer.endswith(f"@{leave_letters}")]
    for s in sets:  # made here unless made already (by the detector rounds, for dominoes)
        generate(work, s.scenes, s.val, seed + s.seed_offset, name=s.folder, renderer=s.renderer)
    spec = FINETUNE_SPECS[tune.spec]
    if leave_letters:
        spec = replace(spec, recipe=f"{spec.recipe}_without_{leave_letters}")
    reader = out / (tune.start_onnx or recipe.reader_onnx)
    found = reader_recipe(reader)
    if found is not None and found != start:
        raise SystemExit(
            f"reader fine-tune {tune.spec} starts from {start}, but {reader} is {found}: "
            f"write {start} there first (--stage reader, or the fine-tune that makes it)"
        )
    folders = [s.folder for s in sets]
    net = train_classifier(
        work,
        1 if smoke else spec.finetune_epochs,
        seed,
        lambda work, split: reader_items(
            work,
            split,
            out / recipe.detector_onnx,
            folders,
            recipe.negative_tile_side,
            recipe.negative_zoom_out,
            recipe.negatives_per_scene,
        ),
        list,
        smoke=smoke,
        spec=spec,
        init=rebuild_reader(reader, READER_SPECS[recipe.kind]),
        max_lr=spec.finetune_lr,
        frozen_norms=True,
        crops_from="; ".join(
            f"{s.folder} {s.scenes}+{s.val} seed {seed + s.seed_offset}" for s in sets
        ),
    )
    written = out / (tune.onnx or recipe.reader_onnx)
    export_classifier([net], written, spec=spec)
    print(f"reader: {written} ({spec.recipe}, fine-tuned from {reader.name})")


def finetune_readers(recipe: Recipe, args: argparse.Namespace, work: Path, only: str | None):
    """The recipe's reader fine-tunes in order, or the one named ``only``."""
    starts = reader_starts(recipe)
    for tune in recipe.reader_finetunes:
        if only is not None and tune.spec != only:
            continue
        leave = tune.leave if args.leave_letters is None or not tune.leave else args.leave_letters
        leave = "" if leave == "none" else leave
        start = starts[tune.spec]
        # from a fine-tune that left the same letters out: its file says so ("c11_without_fr")
        before = next((t for t in recipe.reader_finetunes if t.spec == start), None)
        if leave and before is not None and before.leave:
            start = f"{start}_without_{leave}"
        finetune_reader(recipe, tune, start, work, args.out, args.seed, leave, args.smoke)


# ------------------------------------------------------------------------------- command


def parser_for(kind: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=sorted(RECIPES), required=kind is None, default=kind)
    parser.add_argument("--out", type=Path, default=Path("models"))
    parser.add_argument("--work", type=Path, default=None, help="default: datasets/generated/KIND")
    parser.add_argument(
        "--stage",
        choices=(*STAGES, "classifier"),
        default="all",
        help="finetune: one detector round alone (the last, or --round's) from the round "
        "before's checkpoint or the shipped detector; reader-finetune: the readers in --out "
        "fine-tuned (--round: one alone); classifier: the tiles' reader stage",
    )
    parser.add_argument(
        "--round",
        default=None,
        help="finetune: the detector round to run; reader-finetune: the reader fine-tune",
    )
    parser.add_argument("--seed", type=int, default=None, help="default: the kind's")
    add_recipe_arguments(parser, RECIPES.values())
    parser.add_argument("--det-imgsz", type=int, default=None, help="the rounds' training size")
    parser.add_argument("--det-export-imgsz", type=int, default=None, help="ONNX input size")
    parser.add_argument("--reader-epochs", "--cls-epochs", type=int, default=30)
    parser.add_argument("--reader-members", "--cls-members", type=int, default=1)
    parser.add_argument(
        "--leave-letters",
        default=None,
        help="cards' reader-finetune: an index letter set left out, for the leave-one-out "
        "table (default: the recipe's, fr; 'none': none)",
    )
    parser.add_argument(
        "--leave-out",
        default=HELD_OUT_PRINTING,
        choices=PRINTING_NAMES,
        help="tiles: the printing the look-2 scenes never draw (another than the shipped one's "
        "is a leave-one-printing-out measurement: use its own --work and --out)",
    )
    parser.add_argument(
        "--turn-scenes", type=int, default=1500, help="tiles: look-2 scenes cut for the turn head"
    )
    parser.add_argument(
        "--turn-epochs", type=int, default=5, help="tiles: the turn head's fine-tune (0: none)"
    )
    parser.add_argument("--no-real", action="store_true", help="tiles: synthetic scenes only")
    parser.add_argument("--smoke", action="store_true", help="tiny run for tests")
    add_machine_arguments(parser)
    return parser


def main(argv: list[str] | None = None, kind: str | None = None) -> int:
    parser = parser_for(kind)
    args = parser.parse_args(argv)
    apply_machine(args)
    stage = "reader" if args.stage == "classifier" else args.stage
    recipe = apply_recipe_arguments(parser, args, recipe_of(args.kind, args.leave_out))
    sizes = {"det_imgsz": args.det_imgsz, "det_export_imgsz": args.det_export_imgsz}
    recipe = replace(recipe, **{k: v for k, v in sizes.items() if v is not None})
    args.seed = SEEDS[args.kind] if args.seed is None else args.seed
    work = args.work or GENERATED / args.kind
    imgsz = None
    if args.smoke:
        readers = {s.folder: 3 for s in recipe.reader_looks()}
        recipe = recipe.smoke(scenes=4, val=2).with_changes(scenes={"synth": 6, **readers})
        args.reader_epochs, args.reader_members = 1, 1
        args.turn_scenes, args.turn_epochs = 3, min(args.turn_epochs, 1)
        imgsz = 160
    tiles = args.kind == "tiles"
    real_items = real_train_items if tiles and not args.no_real else list
    started = time.time()
    if stage in ("all", "generate"):
        generate_sets(recipe, work, args.seed)
    if stage in ("all", "detector"):
        train_detector(recipe, work, args.out, args.seed, imgsz, real_items())
    if stage == "finetune":
        if args.round is None:
            chosen = recipe.rounds_run()[-1:]
        else:
            chosen = tuple(r for r in recipe.rounds if r.name == args.round)
        if not chosen:
            parser.error(f"--stage finetune: {args.kind} has no detector round {args.round}")
        if chosen[0].epochs <= 0:
            parser.error(f"--stage finetune: give {chosen[0].name} epochs (--epochs NAME=N)")
        run_round(chosen[0], recipe, work, args.out, args.seed, imgsz, real_items())
    if stage in ("all", "reader"):
        if tiles:
            train_tile_classifier(args, work, real_items)
        else:
            train_reader(recipe, args, work)
    named = args.round if stage == "reader-finetune" else None
    if named is not None and named not in {tune.spec for tune in recipe.reader_finetunes}:
        parser.error(f"--stage reader-finetune: {args.kind} has no reader fine-tune {named}")
    if stage in ("all", "reader-finetune") and recipe.reader_finetunes:
        finetune_readers(recipe, args, work, named)
    copy_second_reader(args.kind, args.out)
    print(f"train {args.kind}: done in {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
