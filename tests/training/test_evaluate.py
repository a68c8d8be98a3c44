"""``training.evaluate``: groups of real photos, generated scenes, cards counted once per card.

Recognisers here are fakes (a dict from photo name to the labels they "read"): these tests are
about the scoring, not about any model.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import datasets.cards_synth as cards_synth
from training.evaluate import (
    SYNTHETIC_GROUP,
    EvalDataError,
    Score,
    SyntheticScene,
    card_truth,
    evaluate,
    evaluate_synthetic,
    format_report,
)

BOX = [10.0, 10.0, 40.0, 60.0]


class FakeRecogniser:
    """Reads, for each photo, the labels listed for its file name; records what it was given."""

    def __init__(self, readings: dict[str, list[str]]):
        self.readings = readings
        self.seen: list[str] = []

    def recognise(self, image) -> dict:
        name = Path(image).stem
        self.seen.append(name)
        pieces = [{"label": label, "bbox": BOX, "confidence": 0.9} for label in self.readings[name]]
        return {"kind": "fake", "pieces": pieces, "melds": [], "ms": 1.0}


def write_real(folder: Path, name: str, domain: str, labels, scene="table", source="x/y@1"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.jpg").write_bytes(b"not read by the fake recogniser")
    pieces = None if labels is None else [{"label": label, "bbox": None} for label in labels]
    meta = {"domain": domain, "scene": scene, "source": source, "pieces": pieces}
    (folder / f"{name}.json").write_text(json.dumps(meta))


def write_generated(folder: Path, name: str, pieces, seed=1, size=(800, 600), partly=None):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.jpg").write_bytes(b"not read by the fake recogniser")
    meta = {"seed": seed, "size": list(size), "pieces": [[label, BOX] for label in pieces]}
    if partly is not None:
        meta["partly_shown"] = [[label, BOX] for label in partly]
    (folder / f"{name}.json").write_text(json.dumps(meta))


# ------------------------------------------------------------------------------ scores


def test_score_counts_label_multisets_per_photo():
    score = Score()
    score.add("a", ["3-4", "3-4", "0-0"], ["3-4", "0-0", "6-6"], 0.2)
    score.add("b", ["1-2"], ["1-2"], 0.4)
    d = score.as_dict()
    assert (d["pieces_read"], d["pieces_true"], d["exact_photos"]) == (4, 4, 1)
    assert d["precision"] == d["recall"] == 0.75 and d["f1"] == 0.75
    assert d["seconds_per_photo"] == 0.3
    assert score.misses == ["a: read ['3-4'] instead of ['6-6']"]


# ------------------------------------------------------------------------ real photos


def test_crops_are_their_own_group_and_whole_table_groups_leave_them_out(tmp_path):
    write_real(tmp_path, "dm_table_1", "domino", ["3-4", "5-6"])
    write_real(tmp_path, "dm_table_2", "domino", ["0-0"], source="ann/other-set@2:b.jpg")
    write_real(tmp_path, "dm_crop_1", "domino", ["2-3"], scene="crop")
    write_real(tmp_path, "dm_crop_2", "domino", ["10-12"], scene="crop")
    write_real(tmp_path, "dm_unlabelled", "domino", None)
    write_real(tmp_path, "cd_table", "card", ["QH"])
    fake = FakeRecogniser(
        {
            "dm_table_1": ["3-4", "5-6"],
            "dm_table_2": ["0-0", "0-1"],
            "dm_crop_1": ["2-3"],
            "dm_crop_2": ["10-11"],
        }
    )
    report = evaluate(tmp_path, "dominoes", fake)
    groups = report["groups"]
    assert list(groups) == ["all", "measurement_only", "crops", "source y", "source other-set"]
    assert groups["all"]["photos"] == 2 and groups["all"]["pieces_true"] == 3
    assert groups["source y"]["f1"] == 1.0 and groups["source other-set"]["precision"] == 0.5
    assert groups["all"]["precision"] == 0.75 and groups["all"]["recall"] == 1.0
    assert groups["measurement_only"] == groups["all"]
    assert groups["crops"]["photos"] == 2 and groups["crops"]["exact_photos"] == 1
    assert groups["crops"]["f1"] == 0.5
    assert report["not_exact"]["crops"] == ["dm_crop_2: read ['10-11'] instead of ['10-12']"]
    assert report["not_exact"]["measurement_only"] == ["dm_table_2: read ['0-1'] instead of -"]
    assert not any(name.startswith("source") for name in report["not_exact"])
    assert sorted(fake.seen) == ["dm_crop_1", "dm_crop_2", "dm_table_1", "dm_table_2"]
    text = format_report(report)
    assert "crops" in text.splitlines()[4] and "not read exactly (crops):" in text


def test_trainable_source_split_into_held_out_and_trained_on(tmp_path):
    trainable = "conner-replogle/rummikub-detector@abc:photo.jpg"
    for i in range(4):
        write_real(tmp_path, f"rk_{i}", "rummikub", ["red-1"], source=trainable)
    write_real(tmp_path, "rk_other", "rummikub", ["joker"], source="Inc-G/Rummikub-helper@1")
    fake = FakeRecogniser({f"rk_{i}": ["red-1"] for i in range(4)} | {"rk_other": ["joker"]})
    groups = evaluate(tmp_path, "tiles", fake)["groups"]
    assert groups["all"]["photos"] == 5
    assert groups["held_out"]["photos"] == 1  # every 4th by name: rk_3
    assert groups["trained_on"]["photos"] == 3
    assert groups["measurement_only"]["photos"] == 1
    assert "crops" not in groups


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda d: None, "no domino photos"),
        (lambda d: write_real(d, "cd_1", "card", ["QH"]), "no domino photos"),
        (lambda d: write_real(d, "dm_1", "domino", None), "none is labelled"),
        (lambda d: write_generated(d, "00000", ["3-4"]), "--synthetic"),
    ],
)
def test_a_folder_with_nothing_to_score_is_refused(tmp_path, setup, message):
    setup(tmp_path)
    with pytest.raises(EvalDataError, match=message):
        evaluate(tmp_path, "dominoes", FakeRecogniser({}))


def test_a_missing_folder_is_refused(tmp_path):
    with pytest.raises(EvalDataError, match="not a folder"):
        evaluate(tmp_path / "nowhere", "cards", FakeRecogniser({}))
    with pytest.raises(EvalDataError, match="not a folder"):
        evaluate_synthetic(tmp_path / "nowhere", "cards", FakeRecogniser({}))


# -------------------------------------------------------------------- generated scenes


def test_synthetic_dominoes_stored_pieces_are_the_truth(tmp_path):
    write_generated(tmp_path, "00000", ["3-4", "3-4", "12-12"])
    write_generated(tmp_path, "00001", ["0-5"])
    (tmp_path / "00002.json").write_text("{}")  # no image: not a scene
    fake = FakeRecogniser({"00000": ["3-4", "12-12"], "00001": ["0-5"]})
    report = evaluate_synthetic(tmp_path, "dominoes", fake)
    assert list(report["groups"]) == [SYNTHETIC_GROUP]
    score = report["groups"][SYNTHETIC_GROUP]
    assert (score["photos"], score["exact_photos"], score["pieces_true"]) == (2, 1, 4)
    assert score["precision"] == 1.0 and score["recall"] == 0.75
    assert report["not_exact"] == {SYNTHETIC_GROUP: ["00000: read - instead of ['3-4']"]}


def test_synthetic_dominoes_partly_shown_read_right_count_neither_way(tmp_path):
    # 2-5 shows partly and is read by its label (not counted), 6-6 shows partly and is read
    # twice (once counted), 1-1 is read where nothing is (false), 0-0 is missed.
    write_generated(tmp_path, "00000", ["3-4", "0-0"], partly=["2-5", "6-6"])
    write_generated(tmp_path, "00001", ["0-5"], partly=[])
    predicted = ["3-4", "2-5", "6-6", "6-6", "1-1"]
    fake = FakeRecogniser({"00000": predicted, "00001": ["0-5"]})
    score = evaluate_synthetic(tmp_path, "dominoes", fake)["groups"][SYNTHETIC_GROUP]
    assert (score["pieces_read"], score["precision"], score["recall"]) == (6, 0.3333, 0.6667)
    assert score["partly_shown_read"] == 2
    # matched 2 of 4 counted readings, 2 of 3 true: F1 = 2 * 0.5 * 0.667 / 1.167
    assert score["f1_partly_shown_free"] == round(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3), 4)
    assert "F1 0.571 with the 2 readings of partly shown pieces" in format_report(
        evaluate_synthetic(tmp_path, "dominoes", fake)
    )


def test_synthetic_partly_shown_unknown_when_a_scene_file_lacks_them(tmp_path):
    write_generated(tmp_path, "00000", ["3-4"], partly=["2-5"])
    write_generated(tmp_path, "00001", ["0-5"])  # written before they were stored
    fake = FakeRecogniser({"00000": ["3-4", "2-5"], "00001": ["0-5"]})
    score = evaluate_synthetic(tmp_path, "dominoes", fake)["groups"][SYNTHETIC_GROUP]
    assert score["partly_shown_read"] is None and score["f1_partly_shown_free"] is None
    assert score["precision"] == round(2 / 3, 4)


def test_synthetic_folder_of_another_kind_or_empty_is_refused(tmp_path):
    write_generated(tmp_path / "tiles", "00000", ["red-7", "joker"])
    with pytest.raises(EvalDataError, match="'red-7', which is not a domino"):
        evaluate_synthetic(tmp_path / "tiles", "dominoes", FakeRecogniser({}))
    write_real(tmp_path / "real", "dm_1", "domino", ["3-4"])
    with pytest.raises(EvalDataError, match="no generated scenes"):
        evaluate_synthetic(tmp_path / "real", "dominoes", FakeRecogniser({}))


def _corner(name: str) -> cards_synth.CornerIndex:
    quad = ((0.0, 0.0), (10.0, 0.0), (10.0, 20.0), (0.0, 20.0))
    return cards_synth.CornerIndex(name, (0.0, 0.0, 10.0, 20.0), quad, 1.0)


def _card(label: str, *corners: str) -> cards_synth.CardLabel:
    quad = ((0.0, 0.0), (50.0, 0.0), (50.0, 80.0), (0.0, 80.0))
    return cards_synth.CardLabel(
        label, quad, (0.0, 0.0, 50.0, 80.0), 0.8, tuple(_corner(c) for c in corners)
    )


@pytest.fixture
def card_scene(monkeypatch):
    """A scene of two decks: 7H twice (one showing both corners), KS, and QD with no whole
    corner; ``render_scene`` is replaced so that re-rendering seed 5 gives it."""
    cards = (_card("7H", "tl", "br"), _card("7H", "tl"), _card("KS", "br"), _card("QD"))
    scene = cards_synth.CardScene(np.zeros((600, 800, 3), np.uint8), cards, ())

    _render_only(monkeypatch, scene, given_look=1)
    return scene


def _render_only(
    monkeypatch,
    scene,
    given_look: int,
    given_letters=None,
    given_dark: bool = False,
    given_fans: bool = False,
    given_crossed_q: float = 0.0,
) -> None:
    """``render_scene`` replaced: seed 5 in ``given_look`` (and with only ``given_letters`` as
    the index letter sets, when given; with dark faces only, when ``given_dark``; with tight
    fans only, when ``given_fans``; with this share of crossed Qs only) gives ``scene``, other
    looks none."""
    empty = cards_synth.CardScene(np.zeros((600, 800, 3), np.uint8), (), ())

    def render_scene(
        seed,
        size=None,
        look=1,
        letter_sets=None,
        dark_faces=False,
        tight_fans=False,
        crossed_q=0.0,
    ):
        assert seed == 5 and size is None
        letters_match = given_letters is None or letter_sets == given_letters
        match = look == given_look and letters_match and dark_faces == given_dark
        match = match and crossed_q == given_crossed_q
        return scene if match and tight_fans == given_fans else empty

    monkeypatch.setattr(cards_synth, "render_scene", render_scene)


def test_cards_truth_is_each_card_with_a_corner_once(tmp_path, card_scene):
    stored = [label for label, _box in card_scene.corner_labels()]
    assert sorted(stored) == ["7H", "7H", "7H", "KS"]
    write_generated(tmp_path, "00000", stored, seed=5)
    write_generated(tmp_path, "00001", stored, seed=5)
    fake = FakeRecogniser({"00000": ["7H", "KS", "7H"], "00001": stored})
    report = evaluate_synthetic(tmp_path, "cards", fake)
    score = report["groups"][SYNTHETIC_GROUP]
    assert (score["pieces_true"], score["pieces_read"], score["exact_photos"]) == (6, 7, 1)
    assert score["recall"] == 1.0 and score["precision"] == round(6 / 7, 4)
    assert report["not_exact"][SYNTHETIC_GROUP] == ["00001: read ['7H'] instead of -"]


def test_cards_partly_shown_is_a_card_with_no_whole_corner_but_a_partial_one(tmp_path, monkeypatch):
    partial = (_corner("tl"),)
    cards = (
        _card("7H", "tl"),
        replace(_card("QD"), partial=partial),  # face mostly shown, its index only partly
        _card("2C"),  # no index shown at all: nobody can name it
    )
    scene = cards_synth.CardScene(
        np.zeros((600, 800, 3), np.uint8),
        cards,
        (),
        partly_shown=(replace(_card("KS"), partial=partial),),
    )
    _render_only(monkeypatch, scene, given_look=1)
    write_generated(tmp_path, "00000", ["7H"], seed=5)
    fake = FakeRecogniser({"00000": ["7H", "QD", "KS", "2C"]})
    score = evaluate_synthetic(tmp_path, "cards", fake)["groups"][SYNTHETIC_GROUP]
    assert (score["precision"], score["partly_shown_read"]) == (0.25, 2)
    assert score["f1_partly_shown_free"] == round(2 * 0.5 / 1.5, 4)


@pytest.mark.parametrize(
    ("look", "letters", "dark", "fans", "crossed_q"),
    [
        (2, None, False, False, 0.0),
        (5, None, False, False, 0.0),
        (5, None, False, True, 0.0),
        (5, None, False, False, 0.5),
        (6, None, False, False, 0.0),
        (6, ("de",), False, False, 0.0),
        (6, None, True, False, 0.0),
    ],
)
def test_cards_truth_finds_a_reader_look_scene(
    tmp_path, card_scene, monkeypatch, look, letters, dark, fans, crossed_q
):
    """The reader's scenes (``look=2``: more fonts; up to 5: real backs, and with tight fans,
    and with crossed Qs; 6: other languages' letters, from every set or one, and with every
    deck's face dark) keep only their seed: re-rendered as look 1 they differ, so the truth
    comes from their own look."""
    _render_only(
        monkeypatch,
        card_scene,
        look,
        letters,
        given_dark=dark,
        given_fans=fans,
        given_crossed_q=crossed_q,
    )
    stored = [label for label, _box in card_scene.corner_labels()]
    write_generated(tmp_path, "00000", stored, seed=5)
    report = evaluate_synthetic(tmp_path, "cards", FakeRecogniser({"00000": ["7H", "KS", "7H"]}))
    assert report["groups"][SYNTHETIC_GROUP]["exact_photos"] == 1


def test_cards_scene_that_does_not_re_render_is_refused(tmp_path, card_scene):
    stored = tuple((label, tuple(box)) for label, box in card_scene.corner_labels())
    scene = SyntheticScene("00000", tmp_path / "00000.jpg", 5, (800, 600), stored)
    assert sorted(card_truth(scene)) == ["7H", "7H", "KS"]
    with pytest.raises(EvalDataError, match="re-rendering seed 5"):
        card_truth(replace(scene, pieces=stored[1:]))  # a corner fewer than the renderer draws
    with pytest.raises(EvalDataError, match="generate the test set again"):
        card_truth(replace(scene, size=(600, 800)))
