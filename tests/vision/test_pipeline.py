"""The one detect -> read -> group pipeline on stand-in models: label ranking from two heads,
the report floor, sets, the sure flag, and the settings as the one place of every threshold."""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from training.evaluate import LABEL_SHAPES
from vision.errors import UnknownSet
from vision.kinds import CARDS, DOMINOES, KIND_SETTINGS, TILES
from vision.pipeline import NEVER_SURE, SURENESS, FaintBoxes, Recogniser
from vision.settings import Piece

VISION = Path(__file__).resolve().parents[2] / "vision"
BOX = [0.0, 0.0, 10.0, 10.0]


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


def test_every_piece_gets_a_boolean_sure_from_the_settings_threshold(stand_in):
    image, settings, sessions = stand_in
    for threshold, sure in ((0.0, [True, True]), (0.9, [True, False]), (1.01, [False, False])):
        by_confidence = replace(settings, sure_score="confidence", sure_threshold=threshold)
        recogniser = Recogniser(by_confidence, sessions=sessions)
        result = recogniser.recognise(image, channels="bgr")
        assert [p["label"] for p in result["pieces"]] == ["red-5", "blue-9"]  # "none" dropped
        assert [p["sure"] for p in result["pieces"]] == sure
        assert all(type(p["sure"]) is bool for p in result["pieces"])
        assert not any(key.startswith("_") for p in result["pieces"] for key in p)


def test_confidence_alternatives_and_report_floor(stand_in):
    image, settings, sessions = stand_in
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


def test_faint_boxes_are_kept_only_when_read_clearly(stand_in):
    image, settings, sessions = stand_in  # boxes of detector score 0.9: red-5 0.999, blue-9 0.8
    strict = replace(settings, passes=replace(settings.passes, score=0.95))
    assert Recogniser(strict, sessions=sessions).recognise(image, channels="bgr")["pieces"] == []
    for read_floor, labels in ((0.9, ["red-5"]), (0.5, ["red-5", "blue-9"]), (1.01, [])):
        faint = replace(strict, faint_boxes=FaintBoxes(score=0.5, read_floor=read_floor))
        result = Recogniser(faint, sessions=sessions).recognise(image, channels="bgr")
        assert [p["label"] for p in result["pieces"]] == labels  # "none" dropped as ever
    too_faint = replace(strict, faint_boxes=FaintBoxes(score=0.92, read_floor=0.5))
    assert Recogniser(too_faint, sessions=sessions).recognise(image, channels="bgr")["pieces"] == []
    # Boxes the detector is sure of do not need the read floor.
    sure = replace(settings, faint_boxes=FaintBoxes(score=0.5, read_floor=0.99))
    result = Recogniser(sure, sessions=sessions).recognise(image, channels="bgr")
    assert [p["label"] for p in result["pieces"]] == ["red-5", "blue-9"]


def test_a_label_floor_holds_back_only_its_own_label(stand_in):
    image, settings, sessions = stand_in  # confidence: red-5 0.999 x 0.9^0.25, blue-9 0.8 x ...
    for floors, labels in (
        ((("blue-9", 0.9),), ["red-5"]),
        ((("blue-9", 0.7),), ["red-5", "blue-9"]),
        ((("red-5", 0.99), ("blue-9", 0.99)), []),
        ((("red-5", 0.2),), ["red-5", "blue-9"]),  # the report floor still holds for the rest
    ):
        floored = replace(settings, label_floors=floors)
        result = Recogniser(floored, sessions=sessions).recognise(image, channels="bgr")
        assert [p["label"] for p in result["pieces"]] == labels


def test_a_label_never_sure_is_unsure_whatever_its_score(stand_in):
    """A domino's back reads as a blank double: a label of ``never_sure`` is never flagged sure,
    and calibration scores it 0 (training.calibrate leaves it out of the threshold)."""
    image, settings, sessions = stand_in
    settings = replace(settings, sure_score="confidence", sure_threshold=0.0)
    never = replace(settings, never_sure=frozenset({"red-5"}))
    result = Recogniser(never, sessions=sessions).recognise(image, channels="bgr")
    assert [(p["label"], p["sure"]) for p in result["pieces"]] == [
        ("red-5", False),
        ("blue-9", True),
    ]
    assert result["pieces"][0]["confidence"] > 0.9  # read as surely as before, only not sure
    from training.calibrate import _scoring

    scoring = _scoring(Recogniser(never, sessions=sessions))
    pieces = scoring.recognise(image, channels="bgr")["pieces"]
    assert set(pieces[0]["_sureness"].values()) == {0.0}
    assert min(pieces[1]["_sureness"].values()) > 0.0


def test_the_sure_score_is_named_by_the_settings(stand_in):
    image, settings, sessions = stand_in
    by_confidence = replace(settings, sure_score="confidence", sure_threshold=0.999)
    result = Recogniser(by_confidence, sessions=sessions).recognise(image, channels="bgr")
    assert [p["sure"] for p in result["pieces"]] == [False, False]  # 0.999 x 0.9^0.25 < 0.999
    assert set(SURENESS) >= {"probability", "confidence", "margin"}


def test_the_margin_confidence_weighs_the_margin_as_confidence_weighs_the_probability():
    """A reading torn between two labels scores low however probable its first; a clear one
    the detector doubts (a back's art read as a card) scores low however clear."""
    score = SURENESS["margin_confidence"]
    torn = Piece("AH", BOX, p=0.55, runner_up=0.44, score=1.0)
    doubted = Piece("AH", BOX, p=0.99, runner_up=0.005, score=0.0625)  # 0.0625^(1/4) = 0.5
    clear = Piece("AH", BOX, p=0.99, runner_up=0.005, score=1.0)
    assert abs(score(torn) - 0.11) < 1e-9
    assert abs(score(doubted) - 0.985 * 0.5) < 1e-9
    assert abs(score(clear) - 0.985) < 1e-9
    assert score(clear) <= SURENESS["confidence"](clear)


def test_the_joint_score_is_framed_without_the_frame_rule():
    """Probability x detector score, touching the photo's edge or not; "framed" is 0 there."""
    inside = Piece("3-5", BOX, p=0.9, score=0.8, edge=40.0)
    touching = Piece("3-5", BOX, p=0.9, score=0.8, edge=0.0)
    assert SURENESS["joint"](inside) == SURENESS["framed"](inside) == pytest.approx(0.72)
    assert SURENESS["joint"](touching) == pytest.approx(0.72)
    assert SURENESS["framed"](touching) == 0


def test_a_set_is_an_argument_and_a_kind_without_sets_refuses_one(stand_in):
    image, settings, sessions = stand_in
    recogniser = Recogniser(settings, sessions=sessions)
    with pytest.raises(UnknownSet, match="tiles have no sets"):
        recogniser.recognise(image, channels="bgr", set_name="double-six")
    with pytest.raises(UnknownSet):
        Recogniser(settings, sessions=sessions, set_name="double-six")


def test_a_set_with_a_reader_of_its_own_is_read_by_it(stand_in, tmp_path, monkeypatch):
    """A set named in ``set_readers`` (cards' index letters) is read by its own reader, opened
    once from the models folder and sharing the detector, with the set's own sure threshold; the
    other sets, and no set, by the kind's reader; a missing reader file is a clear error."""
    import vision.pipeline
    from vision.errors import RecogniserUnavailable
    from vision.pipeline import SetReader

    image, settings, sessions = stand_in
    every = frozenset(settings.heads.vocabulary())
    own = SetReader("other_reader.onnx", sure_threshold=0.0)
    lettered = replace(
        settings,
        sets=(("plain", every), ("other", every), ("strict", every)),
        set_readers=(("other", own), ("strict", replace(own, sure_threshold=1.01))),
        sure_threshold=1.01,
    )
    other_reader = type(sessions[1])({0: (np.eye(19, dtype=np.float32)[6], np.eye(4)[1])})
    opened: list[Path] = []

    def open_stand_in(path):
        opened.append(Path(path))
        return other_reader

    monkeypatch.setattr(vision.pipeline, "open_session", open_stand_in)
    recogniser = Recogniser(lettered, models_dir=tmp_path, sessions=sessions)
    for set_name in (None, "plain"):
        result = recogniser.recognise(image, channels="bgr", set_name=set_name)
        assert [p["label"] for p in result["pieces"]] == ["red-5", "blue-9"]
        assert not any(p["sure"] for p in result["pieces"])
    with pytest.raises(RecogniserUnavailable, match=r"other_reader\.onnx is missing"):
        recogniser.recognise(image, channels="bgr", set_name="other")
    (tmp_path / "other_reader.onnx").write_bytes(b"stand-in")
    for _ in range(2):
        result = recogniser.recognise(image, channels="bgr", set_name="other")
        assert [p["label"] for p in result["pieces"]] == ["orange-7"] * 3
        assert all(p["sure"] for p in result["pieces"])  # the set reader's own threshold
        boxes = recogniser.read_boxes(image, [[20, 20, 80, 100]], "bgr", set_name="other")
        assert [p["label"] for p in boxes] == ["orange-7"]
    # a set sharing that reader file reads with it, at a threshold of its own
    strict = recogniser.recognise(image, channels="bgr", set_name="strict")["pieces"]
    assert [p["label"] for p in strict] == ["orange-7"] * 3 and not any(p["sure"] for p in strict)
    assert recogniser.recognise(image, channels="bgr", set_name="other")["pieces"][0]["sure"]
    assert opened == [tmp_path / "other_reader.onnx"]  # opened once
    fixed = Recogniser(lettered, models_dir=tmp_path, sessions=sessions, set_name="other")
    assert fixed.recognise(image, channels="bgr")["pieces"][0]["label"] == "orange-7"


def _stand_in_model_files(readers: dict, folder: Path, monkeypatch) -> list[str]:
    """Model files in ``folder`` that open as the stand-in ``readers`` (file name -> reader);
    the names opened, in order, are listed in the list returned."""
    import vision.pipeline

    opened: list[str] = []

    def open_stand_in(path):
        opened.append(Path(path).name)
        return readers[Path(path).name]

    monkeypatch.setattr(vision.pipeline, "open_session", open_stand_in)
    for name in readers:
        (folder / name).write_bytes(b"stand-in")
    return opened


def test_a_set_reader_flags_sure_by_its_own_score_or_else_the_kinds(
    stand_in, tmp_path, monkeypatch
):
    """Cards' English reader is sure by "margin_confidence", the letters reader by
    "confidence" (the score that certifies for it: docs/experiments/cards.md, "The sure
    flag"); a set reader naming none takes the kind's."""
    import vision.pipeline
    from vision.pipeline import SetReader

    _image, settings, sessions = stand_in
    every = frozenset(settings.heads.vocabulary())
    own = SetReader("reader.onnx", sure_threshold=0.5)
    kind = replace(
        settings,
        sets=(("scored", every), ("inherits", every)),
        set_readers=(("scored", replace(own, sure_score="confidence")), ("inherits", own)),
        sure_score="margin_confidence",
    )
    monkeypatch.setattr(vision.pipeline, "open_session", lambda path: sessions[1])
    (tmp_path / "reader.onnx").write_bytes(b"stand-in")
    recogniser = Recogniser(kind, models_dir=tmp_path, sessions=sessions)
    scored, inherits = recogniser.for_set("scored"), recogniser.for_set("inherits")
    assert (scored.settings.sure_score, scored.settings.sure_threshold) == ("confidence", 0.5)
    assert scored._sure is vision.pipeline.SURENESS["confidence"]
    assert inherits.settings.sure_score == "margin_confidence"
    assert (
        recogniser.for_set(None) is recogniser and recogniser._sure is SURENESS["margin_confidence"]
    )


@pytest.mark.parametrize(
    ("told", "labels"), [("other", ["orange-7"] * 3), (None, ["red-5", "blue-9"])]
)
def test_a_set_told_from_the_photo_reads_the_same_boxes_as_that_set(
    stand_in, tmp_path, monkeypatch, told, labels
):
    """``set_name`` "auto": the boxes found are read by the guess reader, ``SetGuess.guess``
    names the set (read again, the same boxes, by its own reader, at its own threshold) or
    None (the kind's reading stands); the result says which. A kind that cannot tell refuses
    "auto"."""
    from meldcam.vocabulary import AUTO_SET
    from vision.errors import UnknownSet
    from vision.pipeline import SetGuess, SetReader

    image, settings, sessions = stand_in
    every = frozenset(settings.heads.vocabulary())
    shown: list[np.ndarray] = []

    def guess(probabilities: np.ndarray) -> str | None:
        shown.append(probabilities)
        return told

    kind = replace(
        settings,
        sets=(("plain", every), ("other", every)),
        set_readers=(("other", SetReader("other_reader.onnx", sure_threshold=0.0)),),
        set_guess=SetGuess("guess.onnx", guess, crop_size=32),
        sure_threshold=1.01,
    )
    glyph = np.eye(19, dtype=np.float32)[11], np.eye(4, dtype=np.float32)[0]
    readers = {
        "other_reader.onnx": type(sessions[1])(
            {0: (np.eye(19, dtype=np.float32)[6], np.eye(4)[1])}
        ),
        "guess.onnx": type(sessions[1])({0: glyph}),
    }
    opened = _stand_in_model_files(readers, tmp_path, monkeypatch)
    recogniser = Recogniser(kind, models_dir=tmp_path, sessions=sessions)
    for _ in range(2):
        result = recogniser.recognise(image, channels="bgr", set_name=AUTO_SET)
        assert result["set"] == told
        assert [p["label"] for p in result["pieces"]] == labels
        assert all(p["sure"] for p in result["pieces"]) == (told == "other")
    # ``untold``: the set a photo that tells none is read as, the same boxes by its reader
    result = recogniser.recognise(image, channels="bgr", set_name=AUTO_SET, untold="other")
    assert [p["label"] for p in result["pieces"]] == ["orange-7"] * 3
    assert (result["set"], result.get("set_from")) == ("other", None if told else "untold")
    if told is None:
        plain = recogniser.recognise(image, channels="bgr", set_name=AUTO_SET, untold="plain")
        assert (plain["set"], plain["set_from"]) == ("plain", "untold")
        assert [p["label"] for p in plain["pieces"]] == labels  # "plain" has no reader
    with pytest.raises(UnknownSet):
        recogniser.recognise(image, channels="bgr", set_name=AUTO_SET, untold="nowhere")
    # every box found (the "none" patch too) read by the guess reader, as is and turned
    assert all(p.shape == (3, 19) and np.allclose(p[:, 11], 1.0) for p in shown)
    assert opened.count("guess.onnx") == 1
    assert "set" not in recogniser.recognise(image, channels="bgr")  # no guess asked for
    with pytest.raises(UnknownSet):
        Recogniser(settings, models_dir=tmp_path, sessions=sessions).recognise(
            image, channels="bgr", set_name=AUTO_SET
        )


def test_a_set_reader_joins_the_glyph_readers_reading_of_each_box(stand_in, tmp_path, monkeypatch):
    """A set reader with ``glyphs`` weighs each class by what ``set_guess``'s reader
    reads its box shows: the patch read 9 (0.8) or 10 (0.2) reads 10 where the glyph reader
    says (0.9) it shows what only a 10 shows, unless the set asks that reader to be surer;
    "none" stays the set reader's own (the dark patch is no piece); one glyph reader session
    serves every set, read boxes too."""
    from vision.pipeline import JoinedGlyphs, SetGuess, SetReader

    image, settings, sessions = stand_in
    every = frozenset(settings.heads.vocabulary())
    classes = tuple((1,) if value == "10" else (0,) for value in settings.heads.first)
    kind = replace(
        settings,
        sets=(("plain", every), ("glyphs", every), ("stricter", every)),
        set_readers=(
            ("glyphs", SetReader("reader.onnx", 1.01, glyphs=JoinedGlyphs(classes, 0.8))),
            ("stricter", SetReader("reader.onnx", 1.01, glyphs=JoinedGlyphs(classes, 0.95))),
        ),
        set_guess=SetGuess("glyphs.onnx", lambda _glyphs: None, crop_size=32),
    )
    glyph = np.array([0.1, 0.9, 0.0], np.float32), np.eye(4, dtype=np.float32)[0]
    readers = {"reader.onnx": sessions[1], "glyphs.onnx": type(sessions[1])({0: glyph})}
    opened = _stand_in_model_files(readers, tmp_path, monkeypatch)
    recogniser = Recogniser(kind, models_dir=tmp_path, sessions=sessions)
    for set_name in ("plain", "stricter"):
        pieces = recogniser.recognise(image, channels="bgr", set_name=set_name)["pieces"]
        assert [p["label"] for p in pieces] == ["red-5", "blue-9"]
    pieces = recogniser.recognise(image, channels="bgr", set_name="glyphs")["pieces"]
    assert [p["label"] for p in pieces] == ["red-5", "blue-10"]
    assert pieces[1]["confidence"] > 0.6  # 0.2 x 0.9 against 0.8 x 0.1
    boxes = recogniser.read_boxes(image, [[140, 20, 200, 100]], "bgr", set_name="glyphs")
    assert [p["label"] for p in boxes] == ["blue-10"]
    assert opened.count("glyphs.onnx") == 1


def test_joining_a_second_readers_reading_keeps_none_as_read():
    from vision.detector import Detection
    from vision.pipeline import join_glyphs
    from vision.twostage import Reading

    views = np.array([[0.5, 0.3, 0.2], [0.3, 0.5, 0.2]], np.float32)
    reading = Reading(Detection((0, 0, 1, 1), 1.0, 0), views.mean(0), np.ones(1), views)
    joined = join_glyphs(reading, np.array([0.2, 0.8]), ((0,), (1,)))
    assert np.allclose(joined.first, [0.8 * 0.4 * 0.2 / 0.4, 0.8 * 0.4 * 0.8 / 0.4, 0.2])
    assert joined.first[-1] == reading.first[-1] and joined.first.dtype == np.float32
    assert np.allclose(joined.first_views[:, -1], 0.2)
    assert np.allclose(joined.first_views.sum(axis=1), 1.0)
    assert joined.second is reading.second


def test_cards_are_read_for_a_decks_index_letters():
    """Every card is in every letter set; decks with other letters than English (and a deck
    told only to print such letters) have a reader of their own, shipped in the models folder."""
    from meldcam.vocabulary import INDEX_LETTERS, OTHER_LETTERS
    from vision.pipeline import MODELS_DIR

    sets = dict(CARDS.sets)
    assert tuple(sets) == (*INDEX_LETTERS, OTHER_LETTERS)
    assert all(labels == frozenset(CARDS.heads.vocabulary()) for labels in sets.values())
    readers = dict(CARDS.set_readers)
    assert set(readers) == set(INDEX_LETTERS) - {"en"} | {OTHER_LETTERS}
    # each letter set sure by the score its threshold was calibrated with
    assert {reader.sure_score for reader in readers.values()} == {"confidence"}
    for own in readers.values():
        assert (MODELS_DIR / own.reader_file).is_file()
        assert 0.0 <= own.sure_threshold <= 1.01


def test_read_boxes_reads_every_box_with_a_sure_flag(stand_in):
    image, settings, sessions = stand_in
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
        assert 0.0 <= settings.sure_threshold <= NEVER_SURE


def test_thresholds_live_only_in_the_kind_settings():
    """No recogniser module keeps a threshold of its own beside ``vision/kinds.py``: no numeric
    module constant named like one (but ``NEVER_SURE``, no threshold: above every score), and
    ``sure_threshold`` is set nowhere else."""
    threshold_name = re.compile(r".*(CONF|THRESHOLD|NONE|REPORT|SURE|IOU|ZOOM|TILE_SIDE).*")
    for path in VISION.glob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(
                node.value, ast.Constant
            ):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    name = getattr(target, "id", "")
                    if name != "NEVER_SURE":
                        assert not threshold_name.fullmatch(name), (path.name, name)
        if path.name not in ("kinds.py", "pipeline.py", "settings.py"):  # declared, set
            assert "sure_threshold" not in path.read_text(), path.name


def test_calibrated_thresholds_are_read_from_the_metrics_files():
    """Every calibrated threshold comes from ``models/<kind>.json`` (``vision.metrics``): the
    settings hold the files' values, every value of the files is used, no ``sure_threshold`` in
    ``vision/kinds.py`` is a number written there, and no number with 3 or more decimals (a
    calibrated one's look) is written there at all, comments included."""
    from meldcam.vocabulary import OTHER_LETTERS
    from vision.kinds import LETTER_SET_THRESHOLDS
    from vision.metrics import SET_PREFIX, thresholds

    for kind, settings in KIND_SETTINGS.items():
        assert settings.sure_threshold == thresholds(kind)["sure"], kind
    cards = thresholds("cards")
    assert CARDS.dark_faces is not None
    assert CARDS.dark_faces.sure_threshold == cards["dark_faces"]
    readers = dict(CARDS.set_readers)
    sets = {name[len(SET_PREFIX) :]: v for name, v in cards.items() if name.startswith(SET_PREFIX)}
    assert sets == LETTER_SET_THRESHOLDS and sets
    for name, value in sets.items():
        assert readers[name].sure_threshold == value, name
    assert readers[OTHER_LETTERS].sure_threshold == max(sets.values())
    used = {"sure"} | {"dark_faces"} | {SET_PREFIX + name for name in sets}
    assert set(cards) == used
    assert set(thresholds("tiles")) == set(thresholds("dominoes")) == {"sure"}

    source = (VISION / "kinds.py").read_text()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.arg == "sure_threshold":
            assert not isinstance(node.value, ast.Constant), ast.unparse(node)
    assert re.findall(r"(?<![\w.])\d+\.\d{3,}", source) == []


def _layout(kind: str) -> np.ndarray:
    if kind == "tiles":
        from datasets.tiles_synth import render_test_layout

        return render_test_layout([["red-3", "red-4", "red-5"]], seed=3)[0]
    if kind == "dominoes":
        from datasets.dominoes_synth import render_test_layout

        return render_test_layout([["3-8", "8-8", "8-12"]], seed=3)[0]
    from datasets.cards_synth import render_test_layout

    return render_test_layout(["QH", "7S", "10D"], layout="fan", seed=7).image


@pytest.mark.parametrize("kind", ["tiles", "dominoes", "cards"])
def test_every_piece_the_shipped_recognisers_read_has_a_boolean_sure(kind, request):
    recogniser = request.getfixturevalue(kind)  # the shipped models (tests/vision/conftest.py)
    result = recogniser.recognise(_layout(kind), channels="bgr")
    assert len(result["pieces"]) == 3
    assert all(type(p["sure"]) is bool for p in result["pieces"])
    assert recogniser.settings is KIND_SETTINGS[kind]  # the app reads with the kinds' settings


def test_inverting_the_lightness_keeps_the_hues():
    from vision.pipeline import invert_lightness

    image = np.array([[[0, 0, 0], [255, 255, 255], [140, 140, 250]]], np.uint8)  # BGR: light red
    inverted = invert_lightness(image).astype(int)
    assert (inverted[0, 0] > 240).all() and (inverted[0, 1] < 15).all()
    blue, green, red = inverted[0, 2]
    assert red > green + 50 and red > blue + 50  # still red, now darker
    assert inverted[0, 2].sum() < image[0, 2].astype(int).sum()


class _LightOnly:
    """A stand-in detector that finds its boxes only in a light photo (as a detector that
    learned light card faces does)."""

    size = (64, 64)

    def __init__(self, detector):
        self.detector = detector

    def detect(self, bgr, conf=0.25, iou=0.6):
        return self.detector.detect(bgr, conf, iou) if bgr.mean() > 128 else []


class _SurerWhenLight:
    """A stand-in detector that finds its boxes either way, surer in a light photo (as a
    detector that learned light faces and a few dark ones does)."""

    size = (64, 64)

    def __init__(self, detector):
        self.detector = detector

    def detect(self, bgr, conf=0.25, iou=0.6):
        score = 0.9 if bgr.mean() > 128 else 0.5
        return [replace(d, score=score) for d in self.detector.detect(bgr, conf, iou)]


def test_a_dark_photo_whose_boxes_already_sum_enough_is_still_looked_at_inverted(stand_in):
    """The sum of the whole pass's boxes alone does not tell a light photo: dark boxes (their
    grey under ``light_boxes``) are looked at inverted too."""
    from vision.pipeline import DarkFaces

    image, settings, (detector, reader) = stand_in  # grey patches on a dark ground (30)
    sessions = (_SurerWhenLight(detector), reader)
    sure_of_all = replace(settings, sure_score="confidence", sure_threshold=0.0)
    summed = DarkFaces(light_from=1.0)  # the dark photo's boxes sum 1.5
    pieces = Recogniser(replace(sure_of_all, dark_faces=summed), sessions=sessions).recognise(
        image, "bgr"
    )["pieces"]
    assert pieces and not any(p["sure"] for p in pieces), "read inverted"
    by_sum_alone = replace(sure_of_all, dark_faces=replace(summed, light_boxes=0.0))
    pieces = Recogniser(by_sum_alone, sessions=sessions).recognise(image, "bgr")["pieces"]
    assert pieces and all(p["sure"] for p in pieces), "taken for light, read as it is"


class _SurerOnALightGround:
    """A stand-in detector that finds its boxes (scaled to the photo it is given) either way,
    surer on a light ground: a burnt-out photo looked at inverted."""

    size = (64, 64)

    def __init__(self, detector):
        self.detector = detector

    def detect(self, bgr, conf=0.25, iou=0.6):
        scale = bgr.shape[1] / 360  # the stand-in photo's width
        score = 0.9 if bgr[0, 0].mean() > 128 else 0.3
        return [
            replace(d, box=tuple(v * scale for v in d.box), score=score)
            for d in self.detector.detect(bgr, conf, iou)
        ]


def test_a_photo_is_read_inverted_only_where_its_inverted_boxes_are_dark(stand_in):
    """Inverted, a photo whose light faces burnt out white can sum surer boxes than as it is,
    but on its white: it is read as it is. A dark deck's boxes are dark in the photo."""
    from vision.pipeline import DarkFaces

    image, settings, (detector, reader) = stand_in  # patches of grey 200, 120, 60 on 30
    sessions = (_SurerOnALightGround(detector), reader)
    dark = replace(settings, sure_score="confidence", sure_threshold=0.0, dark_faces=DarkFaces())
    pieces = Recogniser(dark, sessions=sessions).recognise(image, "bgr")["pieces"]
    assert pieces and not any(p["sure"] for p in pieces), "boxes of median grey 120: inverted"
    burnt = image.copy()
    for k in range(3):
        burnt[20:100, 20 + 120 * k : 80 + 120 * k] = 250
    pieces = Recogniser(dark, sessions=sessions).recognise(burnt, "bgr")["pieces"]
    assert pieces and all(p["sure"] for p in pieces), "white boxes: read as it is"


class _OnADarkGround:
    """A stand-in detector that boxes its patches (scaled to the photo it is given) only where
    the photo's ground is dark: as a detector that learned light faces boxes a light card's
    dark pips once the photo is inverted, and nothing in a close-up of it as it is."""

    size = (64, 64)

    def __init__(self, detector):
        self.detector = detector

    def detect(self, bgr, conf=0.25, iou=0.6):
        if bgr[0, 0].mean() > 128:
            return []
        scale = bgr.shape[1] / 360  # the stand-in photo's width
        found = self.detector.detect(bgr, conf, iou)
        return [replace(d, box=tuple(v * scale for v in d.box)) for d in found]


def test_dark_marks_on_a_light_face_are_not_taken_for_a_dark_deck(stand_in):
    """A light card filling the frame: as it is nothing is found, inverted its dark pips are,
    dark in the photo but lying on white. It is not read inverted (a dark deck's indices lie on
    its dark face): what ``DarkFaces.around`` looks at. Looking at the boxes alone, it was."""
    from vision.pipeline import DarkFaces, invert_lightness

    image, settings, (detector, reader) = stand_in
    close_up = invert_lightness(image)  # dark patches (median grey under 150) on a light ground
    sessions = (_OnADarkGround(detector), reader)
    looking_around = replace(settings, dark_faces=DarkFaces())
    assert Recogniser(looking_around, sessions=sessions).recognise(close_up, "bgr")["pieces"] == []
    boxes_alone = replace(settings, dark_faces=DarkFaces(around=0.0))
    assert Recogniser(boxes_alone, sessions=sessions).recognise(close_up, "bgr")["pieces"]


def test_a_dark_photo_is_read_inverted_and_its_pieces_are_never_sure(stand_in):
    from vision.pipeline import DarkFaces, invert_lightness

    image, settings, (detector, reader) = stand_in  # grey patches on a dark ground (30)
    sessions = (_LightOnly(detector), reader)
    sure_of_all = replace(settings, sure_score="confidence", sure_threshold=0.0)
    assert Recogniser(sure_of_all, sessions=sessions).recognise(image, "bgr")["pieces"] == []
    dark = replace(sure_of_all, dark_faces=DarkFaces())
    pieces = Recogniser(dark, sessions=sessions).recognise(image, "bgr")["pieces"]
    assert pieces and not any(p["sure"] for p in pieces)
    # A light photo is read as it is, sure by the kind's threshold.
    light = invert_lightness(image)
    pieces = Recogniser(dark, sessions=sessions).recognise(light, "bgr")["pieces"]
    assert pieces and all(p["sure"] for p in pieces)


def test_a_photo_read_inverted_is_read_by_the_dark_faces_own_reader(
    stand_in, tmp_path, monkeypatch
):
    """``DarkFaces.reader_file`` reads a photo read inverted (cards: ``card_reader_dark``), for
    a set with a reader of its own too, never sure there; a light photo keeps the kind's or the
    set's reader; each file is opened once."""
    from vision.pipeline import DarkFaces, SetReader, invert_lightness

    image, settings, (detector, reader) = stand_in  # grey patches on a dark ground (30)
    every = frozenset(settings.heads.vocabulary())
    dark = replace(
        settings,
        dark_faces=DarkFaces(reader_file="dark_reader.onnx"),
        sets=(("other", every),),
        set_readers=(("other", SetReader("other_reader.onnx", sure_threshold=0.0)),),
    )
    readers = {
        "dark_reader.onnx": type(reader)({0: (np.eye(19, dtype=np.float32)[6], np.eye(4)[1])}),
        "other_reader.onnx": type(reader)({0: (np.eye(19, dtype=np.float32)[2], np.eye(4)[3])}),
    }
    opened = _stand_in_model_files(readers, tmp_path, monkeypatch)
    recogniser = Recogniser(dark, models_dir=tmp_path, sessions=(_LightOnly(detector), reader))
    for _ in range(2):
        pieces = recogniser.recognise(image, "bgr")["pieces"]
        assert [p["label"] for p in pieces] == ["orange-7"] * 3
        assert not any(p["sure"] for p in pieces)
    light = recogniser.recognise(invert_lightness(image), "bgr")["pieces"]
    assert sorted(p["label"] for p in light) == ["blue-9", "red-5"]  # the kind's reader
    other = recogniser.recognise(image, "bgr", set_name="other")["pieces"]
    assert [p["label"] for p in other] == ["orange-7"] * 3  # inverted: the dark faces' reader
    assert not any(p["sure"] for p in other)
    light_other = recogniser.recognise(invert_lightness(image), "bgr", set_name="other")
    assert {p["label"] for p in light_other["pieces"]} == {"black-3"}  # the set's own reader
    assert opened == ["dark_reader.onnx", "other_reader.onnx"]


def test_a_photo_without_colour_is_told_from_a_colour_photo():
    from vision.pipeline import GreyPhotos

    rng = np.random.default_rng(1)
    colour = rng.integers(0, 256, (300, 400, 3), dtype=np.uint8)
    grey = cv2.cvtColor(cv2.cvtColor(colour, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    grey_jpeg = cv2.imdecode(cv2.imencode(".jpg", grey, [cv2.IMWRITE_JPEG_QUALITY, 70])[1], 1)
    assert not GreyPhotos().applies(colour)
    assert GreyPhotos().applies(grey) and GreyPhotos().applies(grey_jpeg)
    # A grey table with one small red card on it has colour.
    grey[100:140, 100:130] = (40, 40, 200)
    assert not GreyPhotos().applies(grey)


def test_pieces_read_on_a_photo_without_colour_are_never_sure(stand_in):
    from vision.pipeline import GreyPhotos

    image, settings, sessions = stand_in
    sure_of_all = replace(settings, sure_score="confidence", sure_threshold=0.0)
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    for photo, sure in ((image, True), (grey, False)):
        recogniser = Recogniser(replace(sure_of_all, grey_photos=GreyPhotos()), sessions=sessions)
        pieces = recogniser.recognise(photo, "bgr")["pieces"]
        assert [p["label"] for p in pieces] == ["red-5", "blue-9"]
        assert [p["sure"] for p in pieces] == [sure, sure]
        boxes = [p["bbox"] for p in pieces]
        assert [p["sure"] for p in recogniser.read_boxes(photo, boxes, "bgr")] == [sure, sure]
    # Without the setting (dominoes: colour tells no label apart) a grey photo is sure as any.
    colour_blind = replace(sure_of_all, grey_photos=None)
    pieces = Recogniser(colour_blind, sessions=sessions).recognise(grey, "bgr")["pieces"]
    assert all(p["sure"] for p in pieces)


@pytest.mark.parametrize("kind", ["tiles", "cards"])
def test_the_shipped_tiles_and_cards_are_never_sure_on_a_photo_without_colour(kind, request):
    recogniser = request.getfixturevalue(kind)
    image = _layout(kind)
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    assert any(p["sure"] for p in recogniser.recognise(image, channels="bgr")["pieces"])
    pieces = recogniser.recognise(grey, channels="bgr")["pieces"]
    assert pieces and not any(p["sure"] for p in pieces)
