"""The second reader on cards: the rank at the top of each corner index read by the general
text recogniser too (``SecondReader(cut="index", relabel=False)``), in any deck's letters; it
judges the card reader's label: a rank it reads clearly that is not the card reader's is the
label, never sure, the card reader's offered first (``text_decides``)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont
from text_readings import text_reading

from benchmarks.cards_closeups import closeup_hands
from datasets.cards_synth import render_test_layout
from vision.detector import Detection
from vision.kinds import CARDS
from vision.pipeline import MODELS_DIR, Recogniser
from vision.second import INDEX_CANVAS, _vetoing, fuse, index_views
from vision.textreader import TextRecogniser, numeral_probabilities
from vision.twostage import Reading, turned_whole

SECOND = CARDS.second_reader
RANKS = CARDS.heads.first
FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf")  # fonts-dejavu-core


def test_cards_have_a_second_reader_that_only_judges() -> None:
    assert SECOND is not None and SECOND.cut == "index" and not SECOND.relabel
    assert SECOND.text_decides
    assert {numeral for _text, numeral in SECOND.spellings} <= {t for _c, t in SECOND.numerals}


def test_letters_are_characters_of_a_numeral_too() -> None:
    # classes: 0 gap, 1 "K", 2 "1", 3 "0", 4 a suit sign (no character of any rank)
    classes = {"K": [1], "1": [2], "0": [3]}
    frames = np.zeros((2, 4, 5))
    frames[0, [0, 1, 2, 3], [0, 1, 4, 0]] = 1.0  # "K" then a spade
    frames[1, [0, 1, 2, 3], [2, 0, 3, 4]] = 1.0  # "1", "0", then a spade
    p = numeral_probabilities(frames, ("K", "10", "1"), classes)
    assert p[0, 0] == pytest.approx(1.0) and p[1, 1] == pytest.approx(1.0)


def _numerals(read: str | None, p: float = 0.95) -> np.ndarray:
    return text_reading(SECOND, read, p)


def test_a_rank_read_clearly_judges_the_card_readers_label() -> None:
    columns = [RANKS.index(c) for c, _t in SECOND.numerals]
    blind = [RANKS.index(c) for c in SECOND.blind]
    king, ten = RANKS.index("K"), RANKS.index("10")
    agreed = _vetoing(_numerals("K"), king, columns, blind, SECOND)
    assert agreed.agreed is True and agreed.other is None
    other = _vetoing(_numerals("K"), ten, columns, blind, SECOND)
    assert other.agreed is False and other.other == king  # offered first
    unread = _vetoing(_numerals(None), ten, columns, blind, SECOND)
    assert unread.agreed is None  # the card reader's own sure rule stands
    faint = _vetoing(_numerals("K", SECOND.agree - 0.05), ten, columns, blind, SECOND)
    assert faint.agreed is None
    joker = _vetoing(_numerals("J"), RANKS.index("joker"), columns, blind, SECOND)
    assert joker.agreed is None  # "JOKER" printed down the index is no jack


def test_a_clear_other_rank_is_the_label_as_confident_and_never_sure() -> None:
    first = np.full(len(RANKS) + 1, 0.01)
    first[RANKS.index("10")] = 0.85  # a Polish W the English card reader took for a 10
    reading = Reading(Detection((0.0, 0.0, 40.0, 60.0), 0.9, 0), first, np.full(4, 0.25))
    views = (_numerals("J"), _numerals(None))
    fused = fuse(reading, views, None, SECOND, RANKS)
    assert int(np.argmax(fused.first[:-1])) == RANKS.index("J")
    assert float(fused.first.max()) == pytest.approx(0.85)  # as confident as before
    assert fused.second_reading is not None and fused.second_reading.agreed is False
    assert fused.second_reading.other == RANKS.index("10")  # offered first
    same = fuse(reading, (_numerals("10"), _numerals(None)), None, SECOND, RANKS)
    assert np.array_equal(same.first, reading.first) and same.second_reading.agreed is True


@pytest.mark.skipif(not FONT.is_file(), reason="needs Debian's fonts-dejavu-core (setup.sh)")
@pytest.mark.parametrize("rank", ["K", "10", "W", "A"])
def test_the_rank_is_read_at_the_top_of_an_index_either_way_up(rank: str) -> None:
    index = Image.new("RGB", (60, 100), (250, 250, 250))
    draw = ImageDraw.Draw(index)
    draw.text((30, 28), rank, fill=(20, 20, 20), font=ImageFont.truetype(FONT, 36), anchor="mm")
    draw.text((30, 75), "\u2660", fill=(20, 20, 20), font=ImageFont.truetype(FONT, 34), anchor="mm")
    photo = np.full((200, 200, 3), 90, np.uint8)
    photo[50:150, 70:130] = np.asarray(index)[:, :, ::-1]
    box = Detection((70.0, 50.0, 130.0, 150.0), 0.9, 0)
    recogniser = TextRecogniser(MODELS_DIR / SECOND.recogniser_file)
    texts = tuple(t for _c, t in SECOND.numerals) + tuple(t for t, _n in SECOND.spellings)
    for picture, rank_view in ((photo, 0), (photo[::-1, ::-1].copy(), 1)):
        read = recogniser.numerals(list(index_views(picture, box)), texts, INDEX_CANVAS)
        assert texts[int(np.argmax(read[rank_view, :-1]))] == rank
        assert read[rank_view, :-1].max() > 0.8
        assert read[1 - rank_view, :-1].max() < SECOND.agree  # the suit reads as no rank


def test_on_a_deck_the_card_reader_knows_no_label_changes_and_sure_is_only_taken_away() -> None:
    labels = ["KS", "QH", "JD", "10C", "7S", "AH"]
    scene = render_test_layout(labels, layout="apart", card_w=160, seed=11)
    both = Recogniser(CARDS).recognise(scene.image, "bgr")["pieces"]
    alone = Recogniser(replace(CARDS, second_reader=None)).recognise(scene.image, "bgr")["pieces"]
    assert [p["label"] for p in both] == [p["label"] for p in alone]
    assert sorted(p["label"] for p in both) == sorted(labels)
    for with_text, without in zip(both, alone, strict=True):
        assert with_text["confidence"] == pytest.approx(without["confidence"])
        assert not with_text["sure"] or without["sure"]


def _reading(rank: str, p: float = 0.85) -> Reading:
    first = np.full(len(RANKS) + 1, 0.01)
    first[RANKS.index(rank)] = p
    return Reading(Detection((0.0, 0.0, 40.0, 60.0), 0.9, 0), first, np.full(4, 0.25))


def test_two_views_reading_two_ranks_judge_by_the_surer_and_never_relabel() -> None:
    # a German B the card reader took for an 8: the rank view reads J, the other view half reads
    # an A in the suit below (averaged, neither was clear: the 8 stood, sure)
    eight = _reading("8")
    jack = _numerals("J", 0.97)
    ace = _numerals("A", 0.39)
    ace[-1] = 0.49
    fused = fuse(eight, (jack, ace), None, SECOND, RANKS)
    assert fused.second_reading is not None and fused.second_reading.agreed is False
    assert np.array_equal(fused.first, eight.first)  # still an 8, now unsure
    agreeing = fuse(_reading("J"), (jack, ace), None, SECOND, RANKS)
    assert agreeing.second_reading is not None and agreeing.second_reading.agreed is True


def test_a_rank_read_only_turned_a_quarter_judges_and_never_relabels() -> None:
    eight = _reading("8")
    views = (_numerals("J"), _numerals(None))
    fused = fuse(eight, views, None, SECOND, RANKS, decides=False)
    assert fused.second_reading is not None and fused.second_reading.agreed is False
    assert np.array_equal(fused.first, eight.first)


def test_german_close_ups_turned_near_45_degrees_have_no_surely_wrong_card() -> None:
    # two hands of `benchmarks.cards_closeups --letters de --turn 135` whose B, read as an 8 by
    # the card reader, was sure: their indices cut a quarter turn off read no rank as cut
    recogniser = Recogniser(CARDS)
    hands = closeup_hands(letters="de")
    for number in (9, 18):
        hand, image = hands[number]
        pieces = recogniser.recognise(turned_whole(image, 135.0)[0], "bgr")["pieces"]
        assert {p["label"] for p in pieces if p["sure"]} <= set(hand)
