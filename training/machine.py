"""Where detector rounds train: the CPU by default, or a GPU with a larger batch, dataloader
workers and more scene-rendering processes (``training.train --device 0 --batch 64 --workers 12
--procs 16``). Kept in the environment so that every stage, and the processes it spawns, sees
the same machine without each function taking it."""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

_PREFIX = "MELDCAM_TRAIN_"


@dataclass(frozen=True)
class Machine:
    device: str = "cpu"  # ultralytics' device: "cpu", or a CUDA index such as "0"
    batch: int | None = None  # images a detector batch; None: the stage's own (16)
    workers: int = 0  # dataloader worker processes (0: in the training process)
    procs: int = 2  # processes rendering scenes and writing labels
    # when detector training must end (Unix seconds): a lent machine's time is fixed and
    # rendering takes what it takes, so ultralytics fits its schedule to what is left
    deadline: float | None = None

    def detector_batch(self, stage_batch: int) -> int:
        return self.batch or stage_batch

    def training_hours(self, now: float) -> float | None:
        """Hours a detector run may train from ``now`` (ultralytics' ``time``, which sets the
        epochs and the learning-rate schedule from the first epochs' pace), at least a minute;
        None without a deadline (the stage's epochs)."""
        if self.deadline is None:
            return None
        return max(self.deadline - now, 60.0) / 3600


def current() -> Machine:
    env = os.environ
    batch = env.get(_PREFIX + "BATCH")
    deadline = env.get(_PREFIX + "DEADLINE")
    return Machine(
        device=env.get(_PREFIX + "DEVICE", Machine.device),
        batch=int(batch) if batch else None,
        workers=int(env.get(_PREFIX + "WORKERS", Machine.workers)),
        procs=int(env.get(_PREFIX + "PROCS", Machine.procs)),
        deadline=float(deadline) if deadline else None,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", default=None, help="detector rounds: 'cpu' (default) or '0'")
    parser.add_argument("--batch", type=int, default=None, help="detector rounds' batch size")
    parser.add_argument("--workers", type=int, default=None, help="dataloader workers")
    parser.add_argument("--procs", type=int, default=None, help="scene-rendering processes")
    parser.add_argument(
        "--deadline",
        type=float,
        default=None,
        help="Unix time by which detector training ends (its epochs fitted to the time left)",
    )


def apply(args: argparse.Namespace) -> Machine:
    """Put the machine given on the command line into the environment; the one in effect."""
    for name in ("device", "batch", "workers", "procs", "deadline"):
        value = getattr(args, name)
        if value is not None:
            os.environ[_PREFIX + name.upper()] = str(value)
    return current()
