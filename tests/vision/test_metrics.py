"""``vision.metrics``: the kinds' metrics files (models/<kind>.json) read and written; every
write here goes to a temporary file, never to the shipped ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vision.metrics import (
    MODELS_DIR,
    MetricsError,
    load_metrics,
    metrics_path,
    thresholds,
    write_figures,
    write_threshold,
)


def test_the_shipped_files_load_with_every_kinds_sure_threshold():
    from vision.kinds import KIND_SETTINGS
    from vision.pipeline import MODELS_DIR as PIPELINE_MODELS

    assert MODELS_DIR == PIPELINE_MODELS
    for kind in KIND_SETTINGS:
        metrics = load_metrics(metrics_path(kind))
        assert metrics["kind"] == kind
        for record in metrics["thresholds"].values():
            assert {"value", "date", "command"} <= set(record)
            assert record["command"].startswith("meldcam calibrate")
        for entry in metrics["figures"].values():
            assert {"date", "command", "groups"} <= set(entry)
        assert 0.0 < thresholds(kind)["sure"] < 1.0


def test_a_missing_file_key_or_bad_value_is_a_clear_error(tmp_path: Path):
    with pytest.raises(MetricsError, match="no such metrics file"):
        thresholds("tiles", tmp_path / "tiles.json")
    path = tmp_path / "tiles.json"
    path.write_text("{")
    with pytest.raises(MetricsError, match="not JSON"):
        load_metrics(path)
    path.write_text(json.dumps({"kind": "tiles", "thresholds": {"sure": {"value": 0.5}}}))
    read = thresholds("tiles", path)
    assert read == {"sure": 0.5}
    with pytest.raises(MetricsError, match=r"tiles\.json: no threshold 'dark_faces'"):
        read["dark_faces"]
    for bad in ("0.5", None, True, 1.5, -0.1):
        path.write_text(json.dumps({"thresholds": {"sure": {"value": bad}}}))
        with pytest.raises(MetricsError, match="threshold 'sure'"):
            load_metrics(path)
    path.write_text(json.dumps({"figures": {}}))
    with pytest.raises(MetricsError, match='no "thresholds"'):
        load_metrics(path)


def test_writing_a_threshold_makes_or_updates_the_file(tmp_path: Path):
    path = tmp_path / "cards.json"
    write_threshold(path, "cards", "sure", 0.7, command="meldcam calibrate --kind cards")
    first = load_metrics(path)
    assert first["kind"] == "cards" and first["figures"] == {}
    assert first["thresholds"]["sure"]["command"] == "meldcam calibrate --kind cards"
    record = write_threshold(
        path, "cards", "sets.pl", 0.8, command="c", score="confidence", date="2026-12-07"
    )
    assert record == {"value": 0.8, "score": "confidence", "date": "2026-12-07", "command": "c"}
    write_threshold(path, "cards", "sure", 0.75, command="again", calibration={"scenes": 3})
    assert thresholds("cards", path) == {"sure": 0.75, "sets.pl": 0.8}
    assert load_metrics(path)["thresholds"]["sure"]["calibration"] == {"scenes": 3}
    with pytest.raises(MetricsError, match=r"not in 0\.\.1\.01"):
        write_threshold(path, "cards", "sure", 2.0, command="c")
    with pytest.raises(MetricsError, match="not 'tiles'"):
        write_threshold(path, "tiles", "sure", 0.5, command="c")
    assert thresholds("cards", path)["sure"] == 0.75  # a refused write changes nothing


def test_writing_figures_keeps_the_thresholds_and_the_cards_labels(tmp_path: Path):
    path = tmp_path / "dominoes.json"
    write_threshold(path, "dominoes", "sure", 0.6, command="c")
    report = {"kind": "dominoes", "data": "d", "groups": {"all": {"photos": 1}}, "not_exact": {}}
    write_figures(path, "dominoes", "dev", report, command="meldcam eval d", date="2026-12-07")
    metrics = load_metrics(path)
    metrics["figures"]["dev"]["labels"] = {"all": "every table"}
    path.write_text(json.dumps(metrics))
    report["groups"]["all"]["photos"] = 2
    entry = write_figures(path, "dominoes", "dev", report, command="meldcam eval d")
    assert entry["groups"] == {"all": {"photos": 2}} and entry["labels"] == {"all": "every table"}
    assert entry["data"] == "d" and "kind" not in entry
    assert thresholds("dominoes", path) == {"sure": 0.6}
