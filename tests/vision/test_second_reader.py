"""The second reader (vision/second.py, vision/textreader.py, vision/numerals.py,
vision/inks.py): CTC sums, joining digits into numerals, ink colours, fusion and the sure flag,
and the shipped PP-OCR recogniser reading real numerals."""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont
from text_readings import text_reading

from vision.detector import Detection
from vision.inks import InkColours
from vision.kinds import TILES
from vision.labels import TILE_COLOURS, TILE_VALUES
from vision.numerals import (
    DIGIT_CANVAS,
    DIGIT_WIDTH,
    Numeral,
    as_component,
    as_digit,
    find_numerals,
    join_digits,
    line_lean,
    upright_digit,
)
from vision.pipeline import MODELS_DIR, Recogniser
from vision.second import _long, fuse, with_numerals
from vision.textreader import TextDetector, TextRecogniser, ctc_probability, numeral_probabilities
from vision.twostage import Reading

SECOND = TILES.second_reader


def brute_force_ctc(frames: np.ndarray, label: list[int]) -> float:
    """Sum over every frame path whose collapse (repeats merged, gaps dropped) is ``label``."""
    steps, classes = frames.shape
    total = 0.0
    for path in itertools.product(range(classes), repeat=steps):
        collapsed = [c for i, c in enumerate(path) if c != 0 and (i == 0 or path[i - 1] != c)]
        if collapsed == label:
            total += float(np.prod([frames[t, c] for t, c in enumerate(path)]))
    return total


@pytest.mark.parametrize("label", [[1], [1, 2], [1, 1], [2, 1, 2]])
def test_ctc_probability_is_the_sum_over_paths(label: list[int]) -> None:
    rng = np.random.default_rng(7)
    frames = rng.dirichlet(np.ones(3), size=5)
    assert ctc_probability(frames[None], label)[0] == pytest.approx(brute_force_ctc(frames, label))


def test_numerals_fold_every_other_character_into_the_gap() -> None:
    # classes: 0 gap, 1 "x" (a letter), 2.. the digits 0-9
    digit_class = {str(d): [2 + d] for d in range(10)}
    frames = np.zeros((1, 4, 12))
    frames[0, 0, digit_class["1"]] = 1.0
    frames[0, 1, 1] = 1.0  # a letter between the digits: not part of the numeral
    frames[0, 2, digit_class["2"]] = 1.0
    frames[0, 3, 0] = 1.0
    p = numeral_probabilities(frames, ("1", "2", "12"), digit_class)[0]
    assert p[2] == pytest.approx(1.0)
    assert p[-1] == pytest.approx(0.0)


def test_a_one_and_the_next_digit_close_together_are_one_numeral() -> None:
    height = 40
    boxes = [(0, 0, 10, height), (14, 0, 40, height), (80, 0, 90, height), (120, 0, 146, height)]
    # "1" "0" nearly touching: 10; "1" then "2" a tile's margin apart: 1 and 2
    assert join_digits(boxes, ["1", "0", "1", "2"]) == [[0, 1], [2], [3]]


def test_four_ones_on_two_tiles_are_eleven_and_eleven() -> None:
    boxes = [(0, 0, 10, 40), (13, 0, 23, 40), (50, 0, 60, 40), (62, 0, 72, 40)]
    assert join_digits(boxes, ["1", "1", "1", "1"]) == [[0, 1], [2, 3]]


def test_no_numeral_beyond_the_largest_is_joined() -> None:
    boxes = [(0, 0, 10, 40), (13, 0, 40, 40)]
    assert join_digits(boxes, ["1", "8"], largest=17) == [[0], [1]]
    assert join_digits(boxes, ["1", "7"], largest=13) == [[0], [1]]


def test_as_digit_reads_a_thin_one_and_rejects_marks() -> None:
    assert as_digit("7") == "7"
    assert as_digit("l") == "1"
    assert as_digit("R") == ""
    assert as_digit("12") == ""


def test_a_leaning_digit_is_as_wide_as_it_stands() -> None:
    # a 7 on a rack seen from the side leans like italics: its box is wider than a digit's,
    # but stood upright it is one digit, not two blurred into one
    box = (0, 0, 62, 40)
    assert DIGIT_WIDTH * 40 < 62
    assert as_component("7", box, 17, lean=0.0) == ""
    assert as_component("7", box, 17, lean=0.5) == "7"
    assert as_component("12", (0, 0, 70, 40), 17, lean=0.0) == "12"  # a blurred pair still is


def test_a_digit_fits_the_recognisers_narrow_canvas_whole() -> None:
    # a component at most DIGIT_WIDTH wide, with digit_crop's margins, scaled to the
    # recogniser's 48 px, fits DIGIT_CANVAS without being shrunk
    pad = 0.15
    widest = (DIGIT_WIDTH + 2 * pad) / (1 + 2 * pad) * 48
    assert widest <= DIGIT_CANVAS


def test_inks_are_named_per_photo() -> None:
    inks = InkColours(TILE_COLOURS)
    # (lightness, chroma, hue): black, blue, red, orange
    named = inks.name([(80, 5, 40), (120, 40, 285), (140, 50, 25), (185, 40, 65), None])
    assert [TILE_COLOURS[int(np.argmax(p))] for p in named[:4]] == [
        "black",
        "blue",
        "red",
        "orange",
    ]
    assert named[4] is None


def test_a_photos_warm_inks_split_at_their_own_gap() -> None:
    inks = InkColours(TILE_COLOURS)
    # warm light: the reds at 38-40 degrees, the oranges at 55-57; the gap sets the boundary
    warm = [(140, 40, 38), (140, 40, 40), (185, 40, 55), (185, 40, 57)]
    assert inks.photo_split(warm) == pytest.approx(47.5)
    named = inks.name([*warm, (140, 40, 44)])
    assert TILE_COLOURS[int(np.argmax(named[-1]))] == "red"


def test_two_tight_warm_groups_split_even_where_warm_light_brings_them_close() -> None:
    """Original Rummikub under warm light (``rk5_``): reds at 23-31 degrees, oranges at 37-41,
    6 degrees apart; each group tight, so the gap between them is the boundary. One group of
    reds spread as widely is not split."""
    inks = InkColours(TILE_COLOURS)
    reds = [(130, 75, h) for h in (18.4, 23.4, 23.9, 25.9, 25.9, 28.6, 28.6, 29.7, 29.9, 30.7)]
    oranges = [(150, 70, h) for h in (37.0, 38.0, 38.0, 38.8, 39.0, 39.3, 39.9, 40.5, 41.2)]
    named = inks.name(reds + oranges)
    assert [TILE_COLOURS[int(np.argmax(p))] for p in named] == ["red"] * 10 + ["orange"] * 9
    spread = [(130, 75, h) for h in (22.0, 24.0, 26.0, 28.0, 30.0, 32.0, 34.0, 36.0)]
    assert inks.photo_split(spread) is None
    # with no gap to tell them apart, each of those inks may be red or orange
    red, orange = TILE_COLOURS.index("red"), TILE_COLOURS.index("orange")
    assert all(p[red] > 0.9 and p[orange] > 0.9 for p in inks.name(spread))


def reading(value: str, colour: str, p: float = 0.9) -> Reading:
    first = np.full(len(TILE_VALUES) + 1, (1 - p) / len(TILE_VALUES))
    first[TILE_VALUES.index(value)] = p
    first[-1] = 0.0
    second = np.full(len(TILE_COLOURS), 0.02)
    second[TILE_COLOURS.index(colour)] = 0.94
    return Reading(Detection((0, 0, 30, 40), 0.9, 0), first, second)


def text_says(numeral: str | None, p: float = 0.95) -> np.ndarray:
    return text_reading(SECOND, numeral, p)


def test_a_clear_numeral_outvotes_a_confident_joker() -> None:
    fused = fuse(reading("joker", "red", 0.9), (text_says("12", 0.9),), None, SECOND, TILE_VALUES)
    assert TILE_VALUES[int(np.argmax(fused.first[:-1]))] == "12"
    assert not fused.second_reading.agreed
    assert TILE_VALUES[fused.second_reading.other] == "joker"


def test_a_numeral_read_surely_and_unmistakably_is_sure_alone() -> None:
    """Read at least ``text_alone`` surely, a numeral no other contains makes the readers agree
    whatever the piece reader's own best class; a part of a longer numeral (a 1, the 3 of a 13)
    or a 6 or 9 whose way up was not read never does."""
    assert SECOND.text_alone is not None
    sure = SECOND.text_alone + 0.01
    joker = reading("joker", "red", 0.9)
    assert fuse(joker, (text_says("12", sure),), None, SECOND, TILE_VALUES).second_reading.agreed
    for part_or_twin in ("1", "3", "6", "9"):
        fused = fuse(joker, (text_says(part_or_twin, sure),), None, SECOND, TILE_VALUES)
        assert TILE_VALUES[int(np.argmax(fused.first[:-1]))] == part_or_twin
        assert not fused.second_reading.agreed, part_or_twin
    on_row = replace(joker, detection=replace(joker.detection, numeral_way_up=True))
    assert fuse(on_row, (text_says("9", sure),), None, SECOND, TILE_VALUES).second_reading.agreed
    # the ink must still name the colour
    orange_ink = np.array([0.02, 0.02, 0.02, 0.94])
    said = (text_says("12", sure),)
    assert not fuse(joker, said, orange_ink, SECOND, TILE_VALUES).second_reading.agreed


def test_no_numeral_read_leaves_the_piece_reader_to_decide() -> None:
    fused = fuse(reading("7", "blue"), (text_says(None),), None, SECOND, TILE_VALUES)
    assert TILE_VALUES[int(np.argmax(fused.first[:-1]))] == "7"
    # its probabilities too: a tile read "7" at 0.9 is not dropped under the report floor
    assert fused.first == pytest.approx(reading("7", "blue").first, abs=1e-3)
    assert not fused.second_reading.agreed  # nothing read: no agreement


def test_a_joker_agrees_where_no_numeral_is_read() -> None:
    fused = fuse(reading("joker", "red"), (text_says(None),), None, SECOND, TILE_VALUES)
    assert fused.second_reading.agreed


def test_agreement_needs_the_ink_colour_too() -> None:
    blue_ink = np.array([0.02, 0.02, 0.94, 0.02])
    red_ink = np.array([0.94, 0.02, 0.02, 0.02])
    said = (text_says("5"),)
    assert fuse(reading("5", "blue"), said, blue_ink, SECOND, TILE_VALUES).second_reading.agreed
    assert not fuse(reading("5", "blue"), said, red_ink, SECOND, TILE_VALUES).second_reading.agreed


def test_six_and_nine_read_both_ways_support_both() -> None:
    views = (text_says("6", 0.9), text_says("9", 0.9))
    fused = fuse(reading("9", "black"), views, None, SECOND, TILE_VALUES)
    assert TILE_VALUES[int(np.argmax(fused.first[:-1]))] == "9"
    assert fused.second_reading.agreed


def test_a_six_and_a_nine_read_both_ways_do_not_count_the_way_up_twice() -> None:
    # the piece reader calls a tile a 6 at 0.62, its turn head sure the tile is upside down:
    # read as cut the text says 9, turned 6. The text cannot tell which (both ways read), so
    # the fused 6 is no surer than the piece reader's own
    upside_down = reading("6", "blue", 0.62)
    turns = np.zeros((len(TILE_VALUES), 4))
    turns[:, 2] = 1.0 / len(TILE_VALUES)
    upside_down = replace(upside_down, turns=turns)
    views = (text_says("9", 0.99), text_says("6", 0.98))
    fused = fuse(upside_down, views, None, SECOND, TILE_VALUES)
    six, nine = TILE_VALUES.index("6"), TILE_VALUES.index("9")
    share = fused.first[six] / (fused.first[six] + fused.first[nine])
    own = upside_down.first[six] / (upside_down.first[six] + upside_down.first[nine])
    assert share == pytest.approx(own, abs=0.02)


def test_a_nine_its_turn_head_finds_upright_whose_text_reads_six_upright_is_not_agreed() -> None:
    """Rendered racks: an upright 6 the piece reader read as an upright 9, sure; the text read
    "6" as cut and "9" turned. The view the turn head finds upright reads the twin."""
    nine = reading("9", "orange", 0.92)
    views = (text_says("6", 0.99), text_says("9", 0.99))
    turns = np.zeros((len(TILE_VALUES) + 1, 4))
    turns[TILE_VALUES.index("9"), 0] = 0.95
    turns[TILE_VALUES.index("9"), 2] = 0.05
    fused = fuse(replace(nine, turns=turns), views, None, SECOND, TILE_VALUES)
    assert TILE_VALUES[int(np.argmax(fused.first[:-1]))] == "9"  # judged, not relabelled
    assert not fused.second_reading.agreed
    undecided = turns.copy()
    undecided[TILE_VALUES.index("9")] = [0.5, 0.0, 0.5, 0.0]
    fused = fuse(replace(nine, turns=undecided), views, None, SECOND, TILE_VALUES)
    assert fused.second_reading.agreed  # no way up found: the rule below the pair's stands


def test_a_thirteen_read_as_three_does_not_outvote_a_piece_reader_sure_of_it() -> None:
    fused = fuse(reading("13", "orange", 0.95), (text_says("3", 0.9),), None, SECOND, TILE_VALUES)
    assert TILE_VALUES[int(np.argmax(fused.first[:-1]))] == "13"
    assert not fused.second_reading.agreed  # the text recogniser did not read 13: not sure


def test_the_view_the_wrong_way_up_does_not_decide() -> None:
    """A 7 turned half a turn reads "1": the view the piece reader's turn head finds upright
    outweighs it."""
    upright = reading("7", "black", 0.95)
    turns = np.zeros((len(TILE_VALUES) + 1, 4))
    turns[TILE_VALUES.index("7"), 0] = 0.9
    turns[TILE_VALUES.index("7"), 2] = 0.1
    views = (text_says(None), text_says("1", 0.72))
    fused = fuse(replace(upright, turns=turns), views, None, SECOND, TILE_VALUES)
    assert TILE_VALUES[int(np.argmax(fused.first[:-1]))] == "7"


def test_a_numeral_read_clearly_is_a_piece_whatever_the_piece_reader_says() -> None:
    """A tile of a printing the piece reader never saw, on a rack row, read "none" at 0.88: the
    numeral found on the row and read clearly (a 6 or a 9, either way up) makes it a piece, its
    probability the classes'. In a detector box of its own, the piece reader's "none" stands
    (a numeral showing above a tier is part of a hidden tile)."""
    unseen = reading("10", "blue", 0.9)
    first = unseen.first * 0.12
    first[-1] = 0.88
    on_row = replace(unseen.detection, numeral=((15.0, 12.0), (10.0, 14.0), 0.0))
    views = (text_says("9", 0.98), text_says("6", 0.99))
    fused = fuse(replace(unseen, first=first, detection=on_row), views, None, SECOND, TILE_VALUES)
    assert fused.none < 0.05
    assert fused.first.sum() == pytest.approx(1.0)
    assert TILE_VALUES[int(np.argmax(fused.first[:-1]))] in {"6", "9"}
    assert not fused.second_reading.agreed
    boxed = fuse(replace(unseen, first=first), views, None, SECOND, TILE_VALUES)
    assert boxed.none == pytest.approx(0.88)


@pytest.fixture(scope="module")
def recogniser() -> TextRecogniser:
    return TextRecogniser(MODELS_DIR / SECOND.recogniser_file)


FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")  # fonts-dejavu-core


def drawn(text: str, colour=(200, 30, 30)) -> np.ndarray:
    """A numeral printed in a bold sans face on a light face (BGR)."""
    image = Image.new("RGB", (70 * len(text) + 30, 120), (235, 235, 235))
    ImageDraw.Draw(image).text((15, 10), text, fill=colour, font=ImageFont.truetype(FONT, 90))
    return cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)


@pytest.mark.skipif(not FONT.is_file(), reason="needs Debian's fonts-dejavu-core (setup.sh)")
@pytest.mark.parametrize("numeral", ["1", "3", "7", "10", "11", "12", "13"])
def test_the_shipped_recogniser_reads_printed_numerals(recogniser, numeral: str) -> None:
    texts = tuple(text for _cls, text in SECOND.numerals)
    p = recogniser.numerals([drawn(numeral)], texts)[0]
    assert texts[int(np.argmax(p[:-1]))] == numeral
    assert p[texts.index(numeral)] >= SECOND.agree  # read surely enough to agree


def test_a_blank_face_reads_no_numeral(recogniser) -> None:
    texts = tuple(text for _cls, text in SECOND.numerals)
    blank = np.full((120, 90, 3), 235, np.uint8)
    assert recogniser.numerals([blank], texts)[0][-1] > 0.8


def test_a_photo_of_no_tiles_reads_nothing_with_both_readers() -> None:
    rng = np.random.default_rng(3)
    wood = cv2.GaussianBlur(rng.integers(90, 140, (600, 800, 3), dtype=np.uint8), (0, 0), 4)
    result = Recogniser(TILES).recognise(wood, channels="bgr")
    assert result["pieces"] == []


def test_a_row_of_numerals_the_detector_never_learned_is_read_and_sure_only_if_agreed() -> None:
    """Tiles drawn in a font and layout the tile models never saw, touching in one row."""
    row = np.full((260, 1100, 3), (60, 90, 140), np.uint8)  # a wooden table
    faces = []
    for k, (numeral, colour) in enumerate(
        [("4", (40, 40, 200)), ("5", (40, 40, 200)), ("6", (40, 40, 200)), ("7", (40, 40, 200))]
    ):
        x = 80 + k * 180
        row[40:240, x : x + 170] = 240
        cv2.putText(row, numeral, (x + 30, 180), cv2.FONT_HERSHEY_DUPLEX, 4.5, colour, 12)
        faces.append(numeral)
    result = Recogniser(TILES).recognise(row, channels="bgr")
    for piece in result["pieces"]:
        if piece["sure"]:
            assert piece["label"] in {f"red-{n}" for n in faces}


def test_small_print_on_a_tile_is_no_numeral() -> None:
    """A maker's name under the numeral read as digits ("Rummikub"'s "i" as a 1) is too small
    for a tile's numeral: the box keeps no numeral and no tile is made round it."""
    tile = Detection((100.0, 100.0, 250.0, 300.0), 0.9, 0, rotated=((175, 200), (150, 200), 0))
    small = Numeral(((175.0, 280.0), (8.0, 15.0), 0.0), "1", 0.8)
    tall = Numeral(((175.0, 170.0), (60.0, 90.0), 0.0), "7", 0.8)
    assert with_numerals([tile], [small], SECOND) == [tile]
    (kept,) = with_numerals([tile], [small, tall], SECOND)
    assert kept.numeral == tall.rect
    away = Numeral(((600.0, 200.0), (8.0, 15.0), 0.0), "1", 0.8)  # held by no box
    assert with_numerals([tile], [away], SECOND) == [tile]


def test_a_box_astride_two_tiles_gives_way_to_the_tiles_round_their_numerals() -> None:
    box = Detection((100.0, 100.0, 400.0, 300.0), 0.9, 0)
    numerals = [
        Numeral(((170.0, 170.0), (60.0, 90.0), 0.0), "4", 0.8),
        Numeral(((330.0, 170.0), (60.0, 90.0), 0.0), "5", 0.8),
    ]
    tiles = with_numerals([box], numerals, SECOND)
    assert sorted(round((d.box[0] + d.box[2]) / 2) for d in tiles) == [170, 330]
    assert all(d.numeral is not None for d in tiles)


def test_a_tiles_two_digits_standing_apart_are_one_numeral_not_two_tiles() -> None:
    """A printing whose 11 stands its digits apart: the line splits it into two 1s, which one
    box holds too close to lie on two tiles (rendered racks: two sure blue 1s for a blue 11)."""
    tile = Detection((722.0, 321.0, 776.0, 380.0), 0.87, 0, rotated=((749, 350), (52, 57), -2))
    ones = [
        Numeral(((742.0, 348.0), (5.0, 17.0), 0.0), "1", 0.8, False),
        Numeral(((756.0, 346.0), (6.0, 16.0), 0.0), "1", 0.8, False),
    ]
    (kept,) = with_numerals([tile], ones, SECOND)
    assert kept.box == tile.box
    assert kept.numeral is not None
    (cx, cy), (w, h), _angle = kept.numeral
    assert cx == pytest.approx(749, abs=1) and cy == pytest.approx(347, abs=1.5)
    assert w == pytest.approx(19.5, abs=0.5) and h == pytest.approx(18.5, abs=0.5)


def test_two_tiles_lying_askew_side_by_side_keep_their_own_boxes() -> None:
    """Rendered table: the extents of two tiles at 27 and 35 degrees each held the other's
    numeral, and both boxes gave way to boxes round the numerals, half a tile wide."""
    fifteen = Detection((191.0, 326.0, 289.0, 423.0), 0.83, 0, rotated=((240, 374), (73, 72), 27))
    twelve = Detection((233.0, 359.0, 333.0, 458.0), 0.77, 0, rotated=((283, 409), (73, 70), 35))
    numerals = [
        Numeral(((279.0, 408.0), (26.0, 21.0), 218.0), "12", 0.9),
        Numeral(((236.0, 375.0), (27.0, 23.0), 218.0), "15", 0.9),
    ]
    kept = with_numerals([fifteen, twelve], numerals, SECOND)
    assert [d.box for d in kept] == [fifteen.box, twelve.box]
    assert [d.numeral for d in kept] == [numerals[1].rect, numerals[0].rect]


def test_a_1_and_a_3_half_a_box_apart_are_two_tiles_boxed_as_one() -> None:
    box = Detection((100.0, 100.0, 220.0, 180.0), 0.9, 0)
    numerals = [
        Numeral(((130.0, 140.0), (20.0, 40.0), 0.0), "1", 0.8),
        Numeral(((190.0, 140.0), (26.0, 40.0), 0.0), "3", 0.8),
    ]
    tiles = with_numerals([box], numerals, SECOND)
    assert sorted(round((d.box[0] + d.box[2]) / 2) for d in tiles) == [130, 190]


@pytest.mark.skipif(not FONT.is_file(), reason="needs Debian's fonts-dejavu-core (setup.sh)")
def test_a_row_upside_down_is_read_the_way_its_digits_read_best(recogniser) -> None:
    row = np.full((300, 900, 3), (60, 90, 140), np.uint8)
    font = ImageFont.truetype(FONT, 110)
    for k, numeral in enumerate(("2", "4", "5", "7")):
        face = Image.new("RGB", (140, 180), (235, 235, 235))
        ImageDraw.Draw(face).text((35, 20), numeral, fill=(30, 30, 200), font=font)
        row[60:240, 60 + 142 * k : 200 + 142 * k] = np.asarray(face)[:, :, ::-1]  # touching
    turned = row[::-1, ::-1].copy()
    detector = TextDetector(MODELS_DIR / SECOND.detector_file)
    read = []
    for photo, up in ((row, 0.0), (turned, 180.0)):
        lines = [b for b in detector.detect(photo) if _long(b, SECOND.line_shape)]
        numerals = find_numerals(photo, lines, recogniser, 17)
        assert len(numerals) >= 2 and {n.text for n in numerals} <= {"2", "4", "5", "7"}
        assert all(abs((n.rect[2] - up + 180) % 360 - 180) < 15 for n in numerals)
        read.append(sorted(n.text for n in numerals))
    assert read[0] == read[1]


@pytest.mark.skipif(not FONT.is_file(), reason="needs Debian's fonts-dejavu-core (setup.sh)")
def test_a_makers_name_too_small_for_a_numeral_is_not_read_at_all(recogniser) -> None:
    """Components shorter than ``tall_enough`` allows are never given to the recogniser (a
    brand name under each numeral is most of a rack's components), and the numerals found stay
    the same."""
    row = np.full((300, 900, 3), (60, 90, 140), np.uint8)
    big, small = ImageFont.truetype(FONT, 110), ImageFont.truetype(FONT, 18)
    for k, numeral in enumerate(("2", "4", "5", "7")):
        face = Image.new("RGB", (140, 200), (235, 235, 235))
        draw = ImageDraw.Draw(face)
        draw.text((35, 10), numeral, fill=(30, 30, 200), font=big)
        draw.text((22, 160), "Rummikub", fill=(120, 120, 120), font=small)
        row[50:250, 60 + 142 * k : 200 + 142 * k] = np.asarray(face)[:, :, ::-1]
    lines = [b for b in TextDetector(MODELS_DIR / SECOND.detector_file).detect(row)]
    read: list[np.ndarray] = []

    class Spy:
        def text(self, crops, width=None):
            read.extend(crops)
            return recogniser.text(crops, width)

    every = find_numerals(row, lines, Spy(), 17)
    every_read = len(read)
    read.clear()
    tall = find_numerals(row, lines, Spy(), 17, lambda rect: rect[1][1] >= 40)
    assert sorted(n.text for n in tall) == sorted(n.text for n in every)
    assert len(tall) >= 2 and {n.text for n in tall} <= {"2", "4", "5", "7"}
    assert len(read) < every_read / 2  # the name's letters were half the crops or more
    assert min(crop.shape[0] for crop in read) >= 40


def test_a_leaning_stroke_is_measured_and_stood_upright() -> None:
    stroke = np.zeros((60, 60), np.uint8)
    for y in range(10, 50):
        x = 20 + round(0.5 * (y - 10))
        stroke[y, x : x + 6] = 1
    labels = stroke.astype(np.int32)
    lean = line_lean(labels, [(0, 0, 60, 60, 1)])
    assert lean == pytest.approx(0.5, abs=0.05)
    crop = np.where(stroke[..., None] > 0, 40, 235).astype(np.uint8).repeat(3, axis=2)
    upright = upright_digit(crop, lean)
    ys, xs = np.nonzero(upright[..., 0] < 128)
    assert np.ptp([xs[ys == y].mean() for y in range(12, 48)]) < 3  # a vertical stroke now
