"""``meldcam recognise`` (vision/cli.py), ``meldcam eval`` and ``meldcam calibrate``
(training/cli.py) from the command line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import pytest

from datasets.realdata import realdata_dir
from datasets.tiles_synth import render_test_layout
from meldcam.cli import main


@pytest.fixture(scope="module")
def photo(tmp_path_factory):
    image, labels = render_test_layout(
        [["red-9", "red-10", "red-11"], ["blue-2", "black-2", "orange-2"]]
    )
    path = tmp_path_factory.mktemp("photos") / "table.jpg"
    cv2.imwrite(str(path), image, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return path, [label for label, _ in labels]


def test_recognise_json_one_line_per_image(photo, capsys):
    path, labels = photo
    assert main(["recognise", "--kind", "tiles", "--json", str(path), str(path)]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 2
    result = json.loads(lines[0])
    assert result["image"] == str(path) and result["kind"] == "tiles"
    assert sorted(p["label"] for p in result["pieces"]) == sorted(labels)
    assert sorted(len(m) for m in result["melds"]) == [3, 3]


def test_recognise_table_and_annotation(photo, tmp_path, capsys):
    path, _labels = photo
    out = tmp_path / "annotated.jpg"
    assert main(["recognise", str(path), "--annotate", str(out)]) == 0
    text = capsys.readouterr().out
    assert "red-10" in text and "group" in text
    assert cv2.imread(str(out)).shape == cv2.imread(str(path)).shape


def test_bad_image_exits_2_with_a_message_and_other_images_still_read(photo, tmp_path, capsys):
    path, _labels = photo
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a photo")
    empty = tmp_path / "empty.jpg"
    empty.write_bytes(b"")
    assert main(["recognise", "--json", str(bad), str(path), str(empty)]) == 2
    captured = capsys.readouterr()
    assert "notes.jpg" in captured.err and "not an image" in captured.err
    assert "empty" in captured.err and "Traceback" not in captured.err
    assert len(captured.out.strip().splitlines()) == 1


def test_unavailable_kind_exits_2(photo, tmp_path, monkeypatch, capsys):
    """A kind whose model files are missing: exit 2 and a message naming the missing model."""
    import vision.cli
    from vision.recognisers import CardRecogniser

    monkeypatch.setattr(vision.cli, "get_recogniser", lambda kind: CardRecogniser(tmp_path))
    path, _labels = photo
    assert main(["recognise", "--kind", "cards", str(path)]) == 2
    err = capsys.readouterr().err
    assert "card_detector.onnx is missing" in err and "Traceback" not in err


def test_eval_on_a_folder_of_labelled_photos(photo, tmp_path, capsys):
    path, labels = photo
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "one.jpg").write_bytes(path.read_bytes())
    (folder / "one.json").write_text(
        json.dumps(
            {
                "domain": "rummikub",
                "scene": "table",
                "source": "synthetic",
                "pieces": [{"label": label, "bbox": None} for label in labels],
            }
        )
    )
    assert main(["eval", str(folder), "--kind", "tiles", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["groups"]["all"]["photos"] == 1
    assert report["groups"]["all"]["f1"] == 1.0 and report["groups"]["all"]["exact"] == 1.0


def test_eval_on_the_real_photos_when_present(capsys):
    data = realdata_dir()
    if data is None:
        pytest.skip("real photos (../shared/realdata) not present")
    from training.evaluate import evaluate

    report = evaluate(data, "tiles")
    held = report["groups"]["held_out"]
    assert held["photos"] >= 10
    assert held["f1"] > 0.8  # a regression guard; the model card has the real figures


class StoredLabelsRecogniser:
    """A fake that "reads" what a photo's label file lists: for generated card scenes that is
    every visible corner index, as a recogniser that never merges a card's two corners would."""

    def recognise(
        self, image, channels: str = "rgb", set_name: str | None = None, untold: str | None = None
    ) -> dict:
        meta = json.loads(Path(image).with_suffix(".json").read_text())
        labels = [p[0] if isinstance(p, list) else p["label"] for p in meta["pieces"]]
        pieces = [{"label": label, "bbox": [0, 0, 1, 1], "confidence": 1.0} for label in labels]
        return {"kind": "fake", "pieces": pieces, "melds": [], "ms": 0.0}


@pytest.fixture
def fake_recogniser(monkeypatch):
    import training.cli

    kinds: list[str] = []

    def recogniser(kind):
        kinds.append(kind)
        return StoredLabelsRecogniser()

    monkeypatch.setattr(training.cli, "get_recogniser", recogniser)
    return kinds


def test_eval_synthetic_cards_counts_each_card_once(tmp_path, fake_recogniser, capsys):
    from training.scenes import generate
    from training.shipped import RECIPES

    renderer = RECIPES["cards"].renderer  # as for the shipped held-back test set
    generate(tmp_path, 0, 2, seed=11, procs=1, name="test", renderer=renderer)
    capsys.readouterr()  # the generator's progress line
    folder = tmp_path / "test" / "val"
    corners = sum(len(json.loads(p.read_text())["pieces"]) for p in sorted(folder.glob("*.json")))
    assert main(["eval", str(folder), "--kind", "cards", "--synthetic", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    score = report["groups"]["synthetic_test"]
    assert fake_recogniser == ["cards"] and score["photos"] == 2
    assert score["pieces_read"] == corners and score["recall"] == 1.0
    # these two scenes show both corners of some cards: reading every corner over-counts
    assert score["pieces_true"] < corners
    assert score["precision"] == round(score["pieces_true"] / corners, 4)
    assert len(report["not_exact"]["synthetic_test"]) == 2
    assert main(["eval", str(folder), "--kind", "cards", "--synthetic"]) == 0
    assert "synthetic_test" in capsys.readouterr().out


def test_eval_reads_for_a_set_and_refuses_one_the_kind_lacks(tmp_path, capsys):
    """``eval --set``: the real card models reading for a deck's index letters (here a Polish
    deck's photo read by the letters reader); a set the kind lacks exits 2 before any model."""
    from datasets.cards_synth import render_test_layout as render_cards

    scene = render_cards(["AH", "KS", "QD"], layout="apart")
    cv2.imwrite(str(tmp_path / "cards.jpg"), scene.image)
    meta = {"domain": "card", "scene": "table", "source": "a/b@1"}
    meta["pieces"] = [{"label": card.label, "bbox": None} for card in scene.cards]
    (tmp_path / "cards.json").write_text(json.dumps(meta))
    assert main(["eval", str(tmp_path), "--kind", "cards", "--set", "pl", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["groups"]["all"]["photos"] == 1
    assert main(["eval", str(tmp_path), "--kind", "cards", "--set", "double-six"]) == 2
    assert "unknown cards set 'double-six'" in capsys.readouterr().err


def test_eval_dominoes_reports_crops_apart(tmp_path, fake_recogniser, capsys):
    for name, scene, labels in (("table", "table", ["3-4", "0-0"]), ("crop", "crop", ["6-6"])):
        (tmp_path / f"{name}.jpg").write_bytes(b"-")
        meta = {"domain": "domino", "scene": scene, "source": "a/b@1", "pieces": None}
        meta["pieces"] = [{"label": label, "bbox": None} for label in labels]
        (tmp_path / f"{name}.json").write_text(json.dumps(meta))
    assert main(["eval", str(tmp_path), "--kind", "dominoes"]) == 0
    rows = {line.split()[0]: line.split()[1:] for line in capsys.readouterr().out.splitlines()}
    assert rows["all"][0] == "1" and rows["crops"][0] == "1"
    assert rows["crops"][3] == "1.000"  # F1


def test_eval_records_its_figures_in_a_metrics_file(tmp_path, fake_recogniser, capsys):
    """``eval --record NAME --metrics FILE``: the report's groups stored as figures NAME, with
    the command and the date; the file's thresholds and the entry's labels kept."""
    from vision.metrics import load_metrics, save_metrics

    data = tmp_path / "data"
    data.mkdir()
    (data / "table.jpg").write_bytes(b"-")
    meta = {"domain": "domino", "scene": "table", "source": "a/b@1"}
    meta["pieces"] = [{"label": label, "bbox": None} for label in ("3-4", "0-0")]
    (data / "table.json").write_text(json.dumps(meta))
    metrics = tmp_path / "dominoes.json"
    before = {"date": "2026-01-01", "command": "c", "groups": {}}
    save_metrics(
        metrics,
        {
            "kind": "dominoes",
            "note": "kept",
            "thresholds": {"sure": {"value": 0.5, "date": "2026-01-01", "command": "c"}},
            "figures": {"dev": before | {"labels": {"all": "every table"}}, "other": before},
        },
    )
    argv = ["eval", str(data), "--kind", "dominoes", "--record", "dev", "--metrics", str(metrics)]
    assert main(argv) == 0
    assert "figures 'dev' written" in capsys.readouterr().err
    written = load_metrics(metrics)
    entry = written["figures"]["dev"]
    assert entry["command"] == f"meldcam eval {data} --kind dominoes"
    assert entry["groups"]["all"]["photos"] == 1 and entry["groups"]["all"]["f1"] == 1.0
    assert entry["labels"] == {"all": "every table"} and len(entry["date"]) == 10
    assert written["thresholds"]["sure"]["value"] == 0.5 and written["note"] == "kept"
    assert written["figures"]["other"]["groups"] == {}
    # no --metrics: the kind's own file in the models folder (not written here)
    from training.cli import eval_command

    args = argparse.Namespace(data_dir=data, kind="cards", synthetic=True, set_name="pl")
    assert eval_command(args) == f"meldcam eval {data} --kind cards --synthetic --set pl"


def test_calibrate_writes_its_threshold_into_a_metrics_file(tmp_path, capsys):
    """``calibrate --write --metrics FILE``, on two rendered domino scenes read by the shipped
    models: the chosen threshold (1.01 when so few pieces certify none) stored as
    ``thresholds.sure`` with its score, the command that reproduces it (defaults written out),
    the date and what it accepted; the file's other thresholds kept."""
    from vision.metrics import load_metrics, save_metrics, thresholds

    metrics = tmp_path / "dominoes.json"
    keep = {"value": 0.7, "date": "2026-01-01", "command": "c"}
    save_metrics(metrics, {"kind": "dominoes", "thresholds": {"other": keep}, "figures": {}})
    argv = ["calibrate", "--kind", "dominoes", "--scenes", "2", "--json"]
    assert main([*argv, "--write", "--metrics", str(metrics)]) == 0
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert "threshold 'sure'" in out.err
    record = load_metrics(metrics)["thresholds"]["sure"]
    assert record["value"] == report["chosen"]["threshold"]
    assert record["score"] == "joint"
    assert record["command"] == "meldcam calibrate --kind dominoes --scenes 2 --seed 20261201"
    assert record["calibration"]["scenes"] == 2 and len(record["date"]) == 10
    assert thresholds("dominoes", metrics) == {"other": 0.7, "sure": record["value"]}


@pytest.mark.parametrize("kind", ["tiles", "dominoes", "cards"])
@pytest.mark.parametrize("synthetic", [False, True])
def test_eval_folder_without_photos_exits_2_before_loading_a_model(
    tmp_path, fake_recogniser, capsys, kind, synthetic
):
    (tmp_path / "notes.txt").write_text("no photos here")
    argv = ["eval", str(tmp_path), "--kind", kind] + (["--synthetic"] if synthetic else [])
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert str(tmp_path) in err and "Traceback" not in err
    assert ("no generated scenes" if synthetic else "photos") in err
    assert fake_recogniser == []


def test_eval_real_domino_photos_have_a_crops_group_when_present(monkeypatch):
    data = realdata_dir()
    if data is None:
        pytest.skip("real photos (../shared/realdata) not present")
    from training.evaluate import evaluate

    class ReadsNothing:
        def recognise(
            self,
            image,
            channels: str = "rgb",
            set_name: str | None = None,
            untold: str | None = None,
        ) -> dict:
            return {"kind": "dominoes", "pieces": [], "melds": [], "ms": 0.0}

    groups = evaluate(data, "dominoes", ReadsNothing())["groups"]
    assert groups["crops"]["photos"] >= 1 and groups["crops"]["pieces_true"] >= 1
    assert groups["all"]["photos"] >= 1 and groups["crops"]["recall"] == 0.0


def test_recognise_dominoes_with_a_set_keeps_labels_in_the_set(tmp_path, capsys):
    from datasets.dominoes_synth import render_test_layout as render_dominoes

    image, _labels = render_dominoes([["11-12", "2-3"]], gap=14, seed=6)
    path = tmp_path / "dominoes.jpg"
    cv2.imwrite(str(path), image)
    assert (
        main(["recognise", "--kind", "dominoes", "--set", "double-nine", "--json", str(path)]) == 0
    )
    result = json.loads(capsys.readouterr().out)
    assert result["pieces"]
    for piece in result["pieces"]:
        low, high = map(int, piece["label"].split("-"))
        assert low <= high <= 9


def test_a_set_is_refused_for_other_kinds(photo, capsys):
    assert main(["recognise", "--kind", "tiles", "--set", "double-six", str(photo)]) == 2
    assert "--set double-six is not a set of tiles" in capsys.readouterr().err
    assert main(["recognise", "--kind", "cards", "--set", "double-six", str(photo)]) == 2
    assert "cards en, pl, de, fr" in capsys.readouterr().err
