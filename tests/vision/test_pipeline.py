"""The one detect -> read -> group pipeline on stand-in models: label ranking from two heads,
the report floor, sets, the sure flag, and the settings as the one place of every threshold."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from vision.detector import Detection
from vision.errors import UnknownSet
from vision.evaluate import LABEL_SHAPES
from vision.kinds import CARDS, DOMINOES, KIND_SETTINGS, TILES
from vision.pipeline import SURENESS, Recogniser

VISION = Path(__file__).resolve().parents[2] / "vision"


@pytest.mark.parametrize(
    ("settings", "count"), [(TILES, 4 * 17 + 1), (DOMINOES, 91), (CARDS, 4 * 13 + 1)]
)
def test_the_heads_rank_every_label_of_the_kind_once(settings, count):
    rng = np.random.default_rng(1)
    heads = settings.heads
    first = rng.random(len(heads.first) + 1).astype(np.float32)  # and "none"
    second = rng.random(len(heads.second)).astype(np.float32)
    second /= second.sum()
    ranked = settings.heads.rank(first, second)
    labels = [label for label, _p in ranked]
    assert len(labels) == len(set(labels)) == count == len(heads.vocabulary())
    assert all(LABEL_SHAPES[settings.kind].fullmatch(label) for label in labels)
    assert sum(p for _label, p in ranked) == pytest.approx(1.0, abs=1e-5)  # "none" left out
    assert [p for _l, p in ranked] == sorted((p for _l, p in ranked), reverse=True)


def test_tile_and_domino_labels_come_from_the_right_heads():
    value = np.zeros(19, np.float32)
    value[6], value[18] = 0.5, 0.5  # a 7, and "none" (renormalised away)
    colour = np.array([0.0, 0.0, 1.0, 0.0], np.float32)
    assert TILES.heads.rank(value, colour)[0] == ("blue-7", 1.0)
    value[:] = 0
    value[17] = 1.0  # the joker, whatever the colour head says
    assert TILES.heads.rank(value, colour)[0] == ("joker", 1.0)
    low, high = np.zeros(14, np.float32), np.zeros(13, np.float32)
    low[3], high[8] = 1.0, 1.0
    assert DOMINOES.heads.rank(low, high)[0] == ("3-8", 1.0)


# --------------------------------------------------------------------- stand-in models


class _Detector:
    """Finds the given boxes, whatever the photo."""

    size = (64, 64)

    def __init__(self, detections):
        self.detections = detections

    def detect(self, _bgr, conf=0.25, iou=0.6):
        return [d for d in self.detections if d.score >= conf]


class _Reader:
    """Reads a crop by its mean grey level: ``answers`` maps a grey level to (first, second)."""

    def __init__(self, answers):
        self.answers = answers

    def run(self, _names, feeds):
        crops = feeds["crops"]
        firsts, seconds = [], []
        for crop in crops:
            grey = round(float(crop.mean()) * 255)
            level = min(self.answers, key=lambda g: abs(g - grey))
            first, second = self.answers[level]
            firsts.append(first)
            seconds.append(second)
        return np.array(firsts, np.float32), np.array(seconds, np.float32)


def _tile_heads(value: int, colour: int, p: float, none: float = 0.0):
    first = np.zeros(19, np.float32)
    first[value], first[(value + 1) % 17] = p * (1 - none), (1 - p) * (1 - none)
    first[18] = none
    second = np.zeros(4, np.float32)
    second[colour] = 1.0
    return first, second


def _photo_and_models(settings=TILES):
    """A photo of three grey patches read as a sure red-5, an unsure blue-9 and "none"."""
    image = np.full((120, 360, 3), 30, np.uint8)
    boxes = []
    for k, grey in enumerate((200, 120, 60)):
        x = 20 + 120 * k
        image[20:100, x : x + 60] = grey
        boxes.append(Detection((float(x), 20.0, float(x + 60), 100.0), 0.9, 0))
    answers = {
        200: _tile_heads(4, 0, 0.999),
        120: _tile_heads(8, 2, 0.8),
        60: _tile_heads(2, 3, 1.0, none=0.9),
    }
    settings = replace(settings, crop_size=32)
    return image, settings, (_Detector(boxes), _Reader(answers))


def test_every_piece_gets_a_boolean_sure_from_the_settings_threshold():
    image, settings, sessions = _photo_and_models()
    for threshold, sure in ((0.0, [True, True]), (0.9, [True, False]), (1.01, [False, False])):
        recogniser = Recogniser(replace(settings, sure_threshold=threshold), sessions=sessions)
        result = recogniser.recognise(image, channels="bgr")
        assert [p["label"] for p in result["pieces"]] == ["red-5", "blue-9"]  # "none" dropped
        assert [p["sure"] for p in result["pieces"]] == sure
        assert all(type(p["sure"]) is bool for p in result["pieces"])
        assert not any(key.startswith("_") for p in result["pieces"] for key in p)


def test_confidence_alternatives_and_report_floor():
    image, settings, sessions = _photo_and_models()
    result = Recogniser(settings, sessions=sessions).recognise(image, channels="bgr")
    sure, unsure = result["pieces"]
    assert sure["confidence"] == round(0.999 * 0.9**0.25, 4)
    assert unsure["confidence"] == round(0.8 * 0.9**0.25, 4)
    assert unsure["alternatives"] == [["blue-10", 0.2]]
    assert result["melds"] == [[0], [1]]  # apart: a row each
    high_floor = replace(settings, report_floor=0.9)
    result = Recogniser(high_floor, sessions=sessions).recognise(image, channels="bgr")
    assert [p["label"] for p in result["pieces"]] == ["red-5"]
    no_none_drop = replace(settings, none_drop=1.01)
    result = Recogniser(no_none_drop, sessions=sessions).recognise(image, channels="bgr")
    assert len(result["pieces"]) == 3


def test_the_sure_score_is_named_by_the_settings():
    image, settings, sessions = _photo_and_models()
    by_confidence = replace(settings, sure_score="confidence", sure_threshold=0.999)
    result = Recogniser(by_confidence, sessions=sessions).recognise(image, channels="bgr")
    assert [p["sure"] for p in result["pieces"]] == [False, False]  # 0.999 x 0.9^0.25 < 0.999
    assert set(SURENESS) >= {"probability", "confidence", "margin"}


def test_a_set_is_an_argument_and_a_kind_without_sets_refuses_one():
    image, settings, sessions = _photo_and_models()
    recogniser = Recogniser(settings, sessions=sessions)
    with pytest.raises(UnknownSet, match="tiles have no sets"):
        recogniser.recognise(image, channels="bgr", set_name="double-six")
    with pytest.raises(UnknownSet):
        Recogniser(settings, sessions=sessions, set_name="double-six")


def test_read_boxes_reads_every_box_with_a_sure_flag():
    image, settings, sessions = _photo_and_models()
    boxes = [[20, 20, 80, 100], [260, 20, 320, 100]]
    pieces = Recogniser(settings, sessions=sessions).read_boxes(image, boxes, channels="bgr")
    assert [p["label"] for p in pieces] == ["red-5", "black-3"]  # "none" kept for a given box
    assert all(isinstance(p["sure"], bool) for p in pieces)


# ------------------------------------------------------------- one place for thresholds


def test_the_kinds_are_the_apps_kinds():
    from vision.api import KINDS

    assert tuple(KIND_SETTINGS) == KINDS
    for kind, settings in KIND_SETTINGS.items():
        assert settings.kind == kind
        assert settings.sure_score in SURENESS
        assert 0.0 <= settings.sure_threshold <= 1.01


def test_thresholds_live_only_in_the_kind_settings():
    """No recogniser module keeps a threshold of its own beside ``vision/kinds.py``: no numeric
    module constant named like one, and ``sure_threshold`` is set nowhere else."""
    threshold_name = re.compile(r".*(CONF|THRESHOLD|NONE|REPORT|SURE|IOU|ZOOM|TILE_SIDE).*")
    for path in VISION.glob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(
                node.value, ast.Constant
            ):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    name = getattr(target, "id", "")
                    assert not threshold_name.fullmatch(name), (path.name, name)
        if path.name not in ("kinds.py", "pipeline.py"):
            assert "sure_threshold" not in path.read_text(), path.name
