"""Training recipes as data: a kind's scene sets, detector rounds and reader fine-tunes.

- A ``SceneSet`` is rendered into ``work/<folder>`` from seed ``recipe seed + seed_offset`` by
  a renderer of ``training.scenes``; the "generate" stage makes every set that is not
  ``on_demand`` (the rounds and reader fine-tunes make the sets they read when they run).
- A ``Round`` is one detector training run (``training.rounds.run_round``): what it starts
  from, the scene sets it trains and validates on, its rate, image size and export. Rounds run
  in order up to the first with no epochs, each from the one before; only the last one run is
  exported to ``--out``, the others to ``work/intermediate``.
- A ``ReaderFinetune`` is one fine-tune of a reader in ``--out``.

``--epochs ROUND=N`` and ``--scenes FOLDER=N`` change a recipe from the command line, and
``smoke`` shrinks it to a tiny run for the tests. The shipped recipes are in
``training.shipped``.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

# A round's start: the tile detector's best checkpoint where the tiles were trained in this
# checkout (it already knows tables, light and small rectangles), else ``yolo26n.yaml``.
TILE_DETECTOR = "tile_detector"
READER_SYNTH = "synth_reader"  # scenes rendered for a reader only (its first look; then 2, 3...)


@dataclass(frozen=True)
class SceneSet:
    """``scenes`` training and ``val`` validation scenes in ``work/folder``, rendered by
    ``renderer`` (``training.scenes``) from seed ``recipe seed + seed_offset``; a held-back
    test set has no training scenes."""

    folder: str
    renderer: str
    scenes: int
    val: int
    seed_offset: int
    on_demand: bool = False  # made by the rounds or reader fine-tunes reading it only


@dataclass(frozen=True)
class Round:
    """One detector training round: a one-class YOLO26-nano (``rotated``: with rotated boxes)
    from ``start``, trained ``epochs`` on the training scenes of ``train`` ((set, copies in
    all), ...) and validated on those of ``val``, its ``export`` checkpoint ("best": the best
    validation fitness; "last") exported to ONNX."""

    name: str
    epochs: int
    # A model yaml (from scratch), ``TILE_DETECTOR``, or a round before: its ``start_weights``
    # checkpoint ("best" or "last"), or where this checkout has none the shipped detector
    # rebuilt (``training.recover``).
    start: str
    train: tuple[tuple[str, int], ...]
    val: tuple[str, ...]
    rotated: bool = False
    start_weights: str = "best"
    # A yaml start's backbone and neck: this round's best checkpoint.
    backbone: str | None = None
    # AdamW at ``lr0`` decaying to a tenth after ``warmup_epochs`` (None: ultralytics' own
    # optimiser and schedule, for a round from random weights).
    lr0: float | None = None
    warmup_epochs: float = 0.5
    degrees: float = 0.0  # random turns (exact for rotated boxes only)
    imgsz: int | None = None  # training and export size (None: the recipe's)
    export: str = "best"

    @property
    def folders(self) -> tuple[str, ...]:
        """Every scene set it reads."""
        return tuple(dict.fromkeys([*(f for f, _c in self.train), *self.val]))


@dataclass(frozen=True)
class ReaderFinetune:
    """One fine-tune of a reader in --out: the file ``start_onnx`` (None: the kind's reader)
    rebuilt, batch norms frozen, trained as ``spec`` (``readers.FINETUNE_SPECS``) on the crops
    of the scene sets ``sets`` (hard negatives mined by the detector in --out), written as
    ``onnx`` (None: over the reader); ``leave``: an index letter set left out unless
    ``--leave-letters`` says otherwise."""

    spec: str
    sets: tuple[str, ...]
    onnx: str | None = None
    start_onnx: str | None = None
    leave: str = ""


@dataclass(frozen=True)
class Recipe:
    """One kind's models and what trains them."""

    kind: str
    class_name: str  # the detector's one class
    detector_onnx: str
    reader_onnx: str
    det_imgsz: int  # the rounds' training size, unless a round says otherwise
    det_export_imgsz: int  # their ONNX input size
    scene_sets: tuple[SceneSet, ...]
    rounds: tuple[Round, ...]
    # The scene sets of the detector rounds that the reader stage learns too (where made).
    reader_sets: tuple[str, ...] = ("synth",)
    reader_finetunes: tuple[ReaderFinetune, ...] = ()
    # The reader's hard negatives: mined with the recogniser's own detector passes (tiles at
    # the photo's pixels up to ``negative_tile_side``, zoomed out ``negative_zoom_out``; None:
    # the whole photo only), up to this many a scene.
    negative_tile_side: int | None = None
    negative_zoom_out: float | None = None
    negatives_per_scene: int = 6
    real_copies: int = 0  # each trainable real photo in every round (tiles)

    def rounds_run(self) -> tuple[Round, ...]:
        """The rounds in order up to the first without epochs."""
        run: list[Round] = []
        for round_ in self.rounds:
            if round_.epochs <= 0:
                break
            run.append(round_)
        return tuple(run)

    def sets_made(self) -> tuple[SceneSet, ...]:
        """The scene sets the "generate" stage makes."""
        return tuple(s for s in self.scene_sets if not s.on_demand and s.scenes + s.val > 0)

    def has_set(self, folder: str) -> bool:
        return any(s.folder == folder for s in self.scene_sets)

    def scene_set(self, folder: str) -> SceneSet:
        found = [s for s in self.scene_sets if s.folder == folder]
        if not found:
            raise KeyError(f"{self.kind} has no scene set {folder}")
        return found[0]

    def round(self, name: str) -> Round:
        found = [r for r in self.rounds if r.name == name]
        if not found:
            raise KeyError(f"{self.kind} has no detector round {name}")
        return found[0]

    @property
    def renderer(self) -> str:
        """The first scenes' renderer (also that of the held-back ``test`` set)."""
        return self.scene_set("synth").renderer

    def reader_looks(self) -> tuple[SceneSet, ...]:
        """The scene sets rendered for the reader only, in order (``reader_folder(i)``)."""
        return tuple(s for s in self.scene_sets if s.folder.startswith(READER_SYNTH))

    def with_changes(
        self, epochs: Mapping[str, int] = {}, scenes: Mapping[str, int] = {}
    ) -> Recipe:
        """A copy with these rounds' epochs and these sets' training scenes; names it does not
        have are refused (ValueError)."""
        unknown = set(epochs) - {r.name for r in self.rounds}
        unknown |= set(scenes) - {s.folder for s in self.scene_sets}
        if unknown:
            raise ValueError(f"not in this recipe: {', '.join(sorted(unknown))}")
        return replace(
            self,
            scene_sets=tuple(
                replace(s, scenes=scenes.get(s.folder, s.scenes)) for s in self.scene_sets
            ),
            rounds=tuple(replace(r, epochs=epochs.get(r.name, r.epochs)) for r in self.rounds),
        )

    def smoke(self, scenes: int = 4, val: int = 2) -> Recipe:
        """A tiny run for the tests: at most ``scenes``/``val`` scenes a set, one epoch a
        round."""
        return replace(
            self,
            scene_sets=tuple(
                replace(s, scenes=min(s.scenes, scenes), val=min(s.val, val))
                for s in self.scene_sets
            ),
            rounds=tuple(replace(r, epochs=min(r.epochs, 1)) for r in self.rounds),
        )


def reader_folder(index: int, test: bool = False) -> str:
    """The folder of a recipe's ``index``-th reader look: synth_reader, synth_reader2, ...
    (held-back tests: test_reader, test_reader2, ...)."""
    name = "test_reader" if test else READER_SYNTH
    return name if index == 0 else f"{name}{index + 1}"


def _name_equals_number(text: str) -> tuple[str, int]:
    name, sep, number = text.partition("=")
    if not sep or not number.isdigit():
        raise argparse.ArgumentTypeError(f"expected NAME=N, got {text!r}")
    return name, int(number)


def add_recipe_arguments(parser: argparse.ArgumentParser, recipes: Iterable[Recipe]) -> None:
    """``--epochs ROUND=N`` and ``--scenes FOLDER=N`` (repeatable), naming the rounds and sets of
    ``recipes`` in the help."""
    recipes = list(recipes)
    rounds = sorted({r.name for recipe in recipes for r in recipe.rounds})
    folders = sorted({s.folder for recipe in recipes for s in recipe.scene_sets if s.scenes})
    parser.add_argument(
        "--epochs",
        type=_name_equals_number,
        action="append",
        default=[],
        metavar="ROUND=N",
        help=f"a detector round's epochs (0 stops the rounds there); rounds: {', '.join(rounds)}",
    )
    parser.add_argument(
        "--scenes",
        type=_name_equals_number,
        action="append",
        default=[],
        metavar="FOLDER=N",
        help=f"a scene set's training scenes; sets: {', '.join(folders)}",
    )


def apply_recipe_arguments(
    parser: argparse.ArgumentParser, args: argparse.Namespace, recipe: Recipe
) -> Recipe:
    try:
        return recipe.with_changes(dict(args.epochs), dict(args.scenes))
    except ValueError as error:
        parser.error(str(error))
