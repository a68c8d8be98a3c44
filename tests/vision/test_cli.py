"""``meldcam recognise`` and ``meldcam eval`` from the command line."""

from __future__ import annotations

import json

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


def test_unavailable_kind_exits_2(photo, capsys):
    path, _labels = photo
    assert main(["recognise", "--kind", "cards", str(path)]) == 2
    assert "not available" in capsys.readouterr().err


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
    from vision.evaluate import evaluate

    report = evaluate(data, "tiles")
    held = report["groups"]["held_out"]
    assert held["photos"] >= 10
    assert held["f1"] > 0.8  # a regression guard; the model card has the real figures
