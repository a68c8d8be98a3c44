"""The measured numbers of each piece kind's models, as data: ``models/<kind>.json``, beside the
models they measure.

``meldcam calibrate --write`` writes a threshold into it, ``meldcam eval --record NAME`` a
report's figures; ``vision.kinds`` reads the thresholds from it (once, on import), and the
model cards' tables are rendered from it (``python -m training.model_cards``). A threshold is
written in one place: here. The layout::

    {
     "kind": "cards",
     "thresholds": {
      "sure": {"value": 0.7089, "score": "margin_confidence", "date": "2026-12-06",
               "command": "meldcam calibrate --kind cards --scenes 2000 --seed 20261201",
               "calibration": {"scenes": 2000, "share": 0.878, "precision": 0.9979, ...},
               "note": "..."},
      "dark_faces": {...},
      "sets.pl": {...}
     },
     "figures": {
      "dev": {"date": "2026-12-07", "command": "meldcam eval ../shared/realdata/dev --kind cards",
              "data": "../shared/realdata/dev", "groups": {"all": {"photos": 23, "f1": 0.993, ...},
              ...}, "not_exact": {...}}
     }
    }

Threshold names: ``sure`` (the kind's sure rule, ``KindSettings``), ``dark_faces`` (a photo
read inverted, ``DarkFaces``), ``sets.SET`` (a set's own reader, ``SetReader``: ``sets.pl``),
each that setting's sure threshold. A figures entry holds ``meldcam eval --json``'s groups
(``training/evaluate.py``), and may hold ``labels`` (a group's name in the card's table), a
``highlight`` (the group whose F1 the card sets in bold) and a ``note``.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path
from typing import Any

from vision.settings import MODELS_DIR, NEVER_SURE  # the highest threshold a file may hold

SET_PREFIX = "sets."  # a set's threshold: "sets.pl"


class MetricsError(ValueError):
    """A kind's metrics file is missing, unreadable, or lacks a threshold the settings need."""


def metrics_path(kind: str, models_dir: Path = MODELS_DIR) -> Path:
    return models_dir / f"{kind}.json"


def load_metrics(path: Path) -> dict[str, Any]:
    """The metrics file at ``path``, checked: an object with ``thresholds`` (each a number
    between 0 and ``NEVER_SURE``) and ``figures``."""
    try:
        metrics = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MetricsError(f"{path}: no such metrics file (the models' thresholds)") from None
    except json.JSONDecodeError as error:
        raise MetricsError(f"{path}: not JSON ({error})") from None
    if not isinstance(metrics, dict) or not isinstance(metrics.get("thresholds"), dict):
        raise MetricsError(f'{path}: no "thresholds" object')
    for name, record in metrics["thresholds"].items():
        _check_value(path, name, record.get("value") if isinstance(record, dict) else None)
    metrics.setdefault("figures", {})
    return metrics


def _check_value(path: Path, name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MetricsError(f'{path}: threshold {name!r} has no number "value"')
    if not 0.0 <= value <= NEVER_SURE:
        raise MetricsError(f"{path}: threshold {name!r} is {value}, not in 0..{NEVER_SURE}")


class Thresholds(dict[str, float]):
    """A kind's thresholds by name; a name the file does not hold is a ``MetricsError``
    naming the file."""

    def __init__(self, values: dict[str, float], path: Path):
        super().__init__(values)
        self.path = path

    def __missing__(self, name: str) -> float:
        raise MetricsError(
            f"{self.path}: no threshold {name!r} (it holds {', '.join(self) or 'none'}); "
            f"`meldcam calibrate --write` writes one"
        )


def thresholds(kind: str, path: Path | None = None) -> Thresholds:
    """The thresholds of ``kind`` (``models/<kind>.json``), name -> value."""
    path = metrics_path(kind) if path is None else path
    metrics = load_metrics(path)
    return Thresholds(
        {name: float(record["value"]) for name, record in metrics["thresholds"].items()}, path
    )


# ------------------------------------------------------------------------------ writing


def today() -> str:
    return datetime.datetime.now(datetime.UTC).date().isoformat()


def save_metrics(path: Path, metrics: dict[str, Any]) -> None:
    path.write_text(json.dumps(metrics, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def _read_or_new(path: Path, kind: str) -> dict[str, Any]:
    if not path.exists():
        return {"kind": kind, "thresholds": {}, "figures": {}}
    metrics = load_metrics(path)
    if metrics.get("kind", kind) != kind:
        raise MetricsError(f"{path}: holds the metrics of {metrics['kind']!r}, not {kind!r}")
    return metrics


def write_threshold(
    path: Path,
    kind: str,
    name: str,
    value: float,
    *,
    command: str,
    score: str | None = None,
    calibration: dict[str, Any] | None = None,
    date: str | None = None,
) -> dict[str, Any]:
    """Set threshold ``name`` of the metrics file at ``path`` (made when missing) to ``value``,
    with the command that chose it and the date; a note the threshold had is dropped (it
    described the number before). Returns the record written."""
    _check_value(path, name, value)
    metrics = _read_or_new(path, kind)
    record: dict[str, Any] = {"value": value}
    if score is not None:
        record["score"] = score
    record |= {"date": date or today(), "command": command}
    if calibration is not None:
        record["calibration"] = calibration
    metrics["thresholds"][name] = record
    save_metrics(path, metrics)
    return record


def write_figures(
    path: Path,
    kind: str,
    name: str,
    report: dict[str, Any],
    *,
    command: str,
    date: str | None = None,
) -> dict[str, Any]:
    """Store ``meldcam eval``'s ``report`` as figures entry ``name`` of the metrics file at
    ``path`` (made when missing), with the command and the date; the entry's ``labels`` (the
    card's names of its groups) are kept. Returns the entry written."""
    metrics = _read_or_new(path, kind)
    before = metrics["figures"].get(name, {})
    entry: dict[str, Any] = {"date": date or today(), "command": command}
    entry |= {key: report[key] for key in ("data", "groups", "not_exact") if key in report}
    if "labels" in before:
        entry["labels"] = before["labels"]
    metrics["figures"][name] = entry
    save_metrics(path, metrics)
    return entry
