"""Training recipes as data, run by one stage runner.

A kind's recipe lists the scene sets to generate (folder, renderer, how many, seed offset) and
its detector rounds (name, epochs). ``train_tiles`` and ``train_pieces`` each map a round's name
to the function that trains it; this module decides what runs and where it goes:

- rounds run in order up to the first with no epochs (each starts from the one before), and only
  the last round run is exported to ``--out``: the earlier ones are steps towards it, exported to
  ``work/intermediate``;
- a scene set tied to a round (``for_round``) is generated only when that round runs;
- ``--epochs ROUND=N`` and ``--scenes FOLDER=N`` change a recipe from the command line, and
  ``smoke`` shrinks it to a tiny run for the tests.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path


@dataclass(frozen=True)
class SceneSet:
    """``scenes`` training and ``val`` validation scenes in ``work/folder``, rendered by
    ``renderer`` ("module:function") from seed ``recipe seed + seed_offset``; a held-back test
    set has no training scenes."""

    folder: str
    renderer: str
    scenes: int
    val: int
    seed_offset: int
    for_round: str | None = None  # generated only when this detector round runs


@dataclass(frozen=True)
class DetectorRound:
    """One detector training round, trained by the function its kind maps ``name`` to."""

    name: str
    epochs: int


@dataclass(frozen=True)
class Stages:
    """What one kind trains: its scene sets and its detector rounds."""

    scene_sets: tuple[SceneSet, ...]
    rounds: tuple[DetectorRound, ...]

    def rounds_run(self) -> tuple[DetectorRound, ...]:
        """The rounds in order up to the first without epochs."""
        run: list[DetectorRound] = []
        for round_ in self.rounds:
            if round_.epochs <= 0:
                break
            run.append(round_)
        return tuple(run)

    def sets_made(self) -> tuple[SceneSet, ...]:
        """The scene sets to generate: those of rounds that run, and those of no round."""
        running = {round_.name for round_ in self.rounds_run()}
        return tuple(
            s
            for s in self.scene_sets
            if (s.for_round is None or s.for_round in running) and s.scenes + s.val > 0
        )

    def has_set(self, folder: str) -> bool:
        return any(s.folder == folder for s in self.scene_sets)

    def scene_set(self, folder: str) -> SceneSet:
        return next(s for s in self.scene_sets if s.folder == folder)

    def with_changes(
        self, epochs: Mapping[str, int] = {}, scenes: Mapping[str, int] = {}
    ) -> Stages:
        """A copy with these rounds' epochs and these sets' training scenes; names it does not
        have are refused (ValueError)."""
        unknown = set(epochs) - {r.name for r in self.rounds}
        unknown |= set(scenes) - {s.folder for s in self.scene_sets}
        if unknown:
            raise ValueError(f"not in this recipe: {', '.join(sorted(unknown))}")
        return Stages(
            tuple(replace(s, scenes=scenes.get(s.folder, s.scenes)) for s in self.scene_sets),
            tuple(replace(r, epochs=epochs.get(r.name, r.epochs)) for r in self.rounds),
        )

    def smoke(self, scenes: int = 4, val: int = 2) -> Stages:
        """A tiny run for the tests: at most ``scenes``/``val`` scenes a set, one epoch a round."""
        return Stages(
            tuple(
                replace(s, scenes=min(s.scenes, scenes), val=min(s.val, val))
                for s in self.scene_sets
            ),
            tuple(replace(r, epochs=min(r.epochs, 1)) for r in self.rounds),
        )


Generate = Callable[..., None]  # (work, n_train, n_val, seed, name=..., renderer=...)
TrainRound = Callable[[Path, int], None]  # (out folder, epochs)


def generate_scenes(stages: Stages, work: Path, seed: int, generate: Generate) -> None:
    for s in stages.sets_made():
        generate(work, s.scenes, s.val, seed + s.seed_offset, name=s.folder, renderer=s.renderer)


def train_rounds(stages: Stages, work: Path, out: Path, train: Mapping[str, TrainRound]) -> None:
    """Each round that runs, by its function; the last to ``out``, the others to
    ``work/intermediate``."""
    run = stages.rounds_run()
    for index, round_ in enumerate(run):
        train[round_.name](out if index == len(run) - 1 else work / "intermediate", round_.epochs)


def _name_equals_number(text: str) -> tuple[str, int]:
    name, sep, number = text.partition("=")
    if not sep or not number.isdigit():
        raise argparse.ArgumentTypeError(f"expected NAME=N, got {text!r}")
    return name, int(number)


def add_recipe_arguments(parser: argparse.ArgumentParser, stages: Iterable[Stages]) -> None:
    """``--epochs ROUND=N`` and ``--scenes FOLDER=N`` (repeatable), naming the rounds and sets of
    ``stages`` in the help."""
    stages = list(stages)
    rounds = sorted({r.name for s in stages for r in s.rounds})
    folders = sorted({f.folder for s in stages for f in s.scene_sets if f.scenes})
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
    parser: argparse.ArgumentParser, args: argparse.Namespace, stages: Stages
) -> Stages:
    try:
        return stages.with_changes(dict(args.epochs), dict(args.scenes))
    except ValueError as error:
        parser.error(str(error))
