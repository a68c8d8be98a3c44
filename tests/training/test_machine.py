"""Where detector rounds train (``training.machine``) and ultralytics without polars."""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from training import machine

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def clean_env(monkeypatch):
    """No machine in the environment, and none left behind for later tests (``apply`` writes
    os.environ itself: setting each name first makes monkeypatch remove it afterwards)."""
    for name in ("DEVICE", "BATCH", "WORKERS", "PROCS", "DEADLINE"):
        monkeypatch.setenv(f"MELDCAM_TRAIN_{name}", "")
        monkeypatch.delenv(f"MELDCAM_TRAIN_{name}")
    return monkeypatch


def test_the_default_machine_is_the_cpu_with_the_stage_s_batch(clean_env):
    current = machine.current()
    assert current == machine.Machine("cpu", None, 0, 2)
    assert current.detector_batch(16) == 16


def test_a_gpu_given_on_the_command_line_reaches_every_stage(clean_env):
    parser = argparse.ArgumentParser()
    machine.add_arguments(parser)
    args = parser.parse_args(["--device", "0", "--batch", "64", "--workers", "12", "--procs", "16"])
    applied = machine.apply(args)
    assert applied == machine.Machine("0", 64, 12, 16) == machine.current()
    assert applied.detector_batch(16) == 64


def test_a_deadline_gives_detector_training_the_time_left(clean_env):
    parser = argparse.ArgumentParser()
    machine.add_arguments(parser)
    applied = machine.apply(parser.parse_args(["--device", "0", "--deadline", "1000000"]))
    assert applied == machine.current()
    assert applied.training_hours(1000000 - 1800) == pytest.approx(0.5)
    assert applied.training_hours(1000000 + 5) == pytest.approx(1 / 60), "at least a minute"
    assert machine.Machine().training_hours(0) is None, "no deadline: the stage's epochs"


def test_what_the_command_line_leaves_out_stays_as_it_was(clean_env):
    clean_env.setenv("MELDCAM_TRAIN_PROCS", "8")
    parser = argparse.ArgumentParser()
    machine.add_arguments(parser)
    assert machine.apply(parser.parse_args(["--batch", "32"])) == machine.Machine("cpu", 32, 0, 8)


def test_results_are_read_into_checkpoints_without_polars(tmp_path):
    # In a process of its own: importing ultralytics patches PIL.Image.open process-wide.
    code = f"""
from pathlib import Path
from ultralytics.engine.trainer import BaseTrainer
from training.offline import _read_results_without_polars

_read_results_without_polars()
trainer = BaseTrainer.__new__(BaseTrainer)
trainer.csv = Path({str(tmp_path / "results.csv")!r})
assert trainer.read_results_csv() == {{}}, "no results yet"
trainer.csv.write_text("epoch, time,metrics/mAP50(B)\\n1,28.1,0.93\\n2,39.8,0.95\\n")
read = trainer.read_results_csv()
assert read == {{"epoch": [1.0, 2.0], "time": [28.1, 39.8], "metrics/mAP50(B)": [0.93, 0.95]}}, read
"""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
