"""Make ultralytics work offline and quietly: call ``prepare()`` BEFORE importing ultralytics.

Project-local config dir (under datasets/generated/, git-ignored), no settings sync, no
auto-install, a local TTF as Arial.ttf so that the font download probe never fires.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
GENERATED = REPO_ROOT / "datasets" / "generated"
CONFIG_DIR = GENERATED / "ultralytics_config"
FONT_CANDIDATES = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
)


def prepare(threads: int = 2) -> None:
    CONFIG_DIR.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "false"
    os.environ["YOLO_CONFIG_DIR"] = str(CONFIG_DIR)
    os.environ["YOLO_VERBOSE"] = os.environ.get("YOLO_VERBOSE", "true")
    os.environ.setdefault("OMP_NUM_THREADS", str(threads))
    font = CONFIG_DIR / "Arial.ttf"
    if not font.exists():
        for candidate in FONT_CANDIDATES:
            if Path(candidate).exists():
                shutil.copyfile(candidate, font)
                break
        else:
            from datasets.tiles_synth import font_paths

            shutil.copyfile(font_paths()[0], font)
    from ultralytics import settings

    settings.update({"sync": False})
    import torch

    torch.set_num_threads(threads)
    try:
        import polars  # noqa: F401
    except ImportError:
        _read_results_without_polars()


def _read_results_without_polars() -> None:
    """ultralytics reads its results.csv with polars only to keep the figures in each
    checkpoint; where polars is missing (a GPU machine whose packages travel as wheels, polars'
    180 MB too many) the csv module reads it instead."""
    import csv

    from ultralytics.engine.trainer import BaseTrainer

    def read_results_csv(self) -> dict[str, list[float]]:
        try:
            rows = list(csv.DictReader(self.csv.read_text().splitlines()))
            return {key.strip(): [float(row[key]) for row in rows] for key in rows[0]}
        except (OSError, ValueError, IndexError):
            return {}

    # the patch this function is for (mypy refuses assignments to methods)
    BaseTrainer.read_results_csv = read_results_csv  # type: ignore[method-assign]
