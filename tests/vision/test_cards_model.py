"""The shipped card models: a rendered fan of 10 overlapped cards read exactly, a card whose two
corner indices both show reported once, face-down cards left out, bad files rejected."""

from __future__ import annotations

import json
from collections import Counter

import cv2
import numpy as np
import pytest

from datasets.cards_synth import render_test_layout
from vision.errors import ImageError

FAN = ["AH", "2H", "3H", "7C", "7D", "7S", "10S", "JS", "QD", "KC"]


def _read(recogniser, image) -> dict:
    return recogniser.recognise(image, channels="bgr")


def _labels(result: dict) -> Counter:
    return Counter(p["label"] for p in result["pieces"])


def test_a_fan_of_ten_overlapped_cards_is_read_exactly(cards):
    scene = render_test_layout(FAN, layout="fan", seed=7)
    result = _read(cards, scene.image)
    assert _labels(result) == Counter(FAN)
    assert len(result["melds"]) == 1 and sorted(result["melds"][0]) == list(range(10))
    for piece in result["pieces"]:
        assert 0 < piece["confidence"] <= 1
    json.dumps(result)


def test_an_overlapped_row_is_read_exactly(cards):
    hand = ["4D", "5D", "6D", "9C", "9H", "9S", "KH"]
    scene = render_test_layout(hand, layout="row", seed=12)
    assert _labels(_read(cards, scene.image)) == Counter(hand)


def test_both_corners_showing_give_one_card_each(cards):
    laid = ["3C", "8D", "QH", "AS", "10H"]
    scene = render_test_layout(laid, layout="apart", seed=5)
    assert all(len(card.corners) == 2 for card in scene.cards)  # both indices visible
    result = _read(cards, scene.image)
    assert _labels(result) == Counter(laid)
    assert all(len(p["corners"]) == 2 for p in result["pieces"])


@pytest.mark.parametrize(
    ("card", "card_w", "seed"),
    [("9H", 907, 20267206), ("4S", 740, 20266212), ("JC", 907, 20267207), ("10C", 740, 20266206)],
)
def test_one_card_filling_most_of_the_frame_is_read(cards, card, card_w, seed):
    """A close-up of one card, 40-60 % of the photo (``benchmarks.piece_scale``'s photos that
    were missed): its dark pips, boxed on the photo inverted, do not make it a dark deck, and
    where the whole and zoomed-out passes find nothing the photo is zoomed out further."""
    scene = render_test_layout([card], layout="apart", card_w=card_w, seed=seed, frame=(1200, 1600))
    assert _labels(_read(cards, scene.image)) == Counter([card])


def test_a_close_up_of_a_meld_is_read_though_its_suit_pips_are_boxed_too(cards):
    """Three cards overlapped as a meld, each 400 px wide (a disputed meld's photo): the JS's
    and AS's indices, whose suit pips the detector boxed too, less surely, were left out as
    boxes enclosing another (``drop_enclosing``)."""
    meld = ["JS", "AS", "JH"]
    scene = render_test_layout(meld, layout="row", card_w=400, seed=781000, frame=(1200, 1600))
    assert _labels(_read(cards, scene.image)) == Counter(meld)


def test_face_down_cards_are_not_reported(cards):
    scene = render_test_layout(["5S", "6S", "7S"], layout="row", seed=3, face_down=2)
    assert _labels(_read(cards, scene.image)) == Counter(["5S", "6S", "7S"])


def test_a_turned_photo_reads_the_same(cards):
    scene = render_test_layout(FAN[:6], layout="fan", seed=9)
    for turn in (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180):
        image = np.ascontiguousarray(cv2.rotate(scene.image, turn))
        assert _labels(_read(cards, image)) == Counter(FAN[:6]), turn


def test_bad_files_are_rejected_cleanly(cards, tmp_path):
    with pytest.raises(ImageError):
        cards.recognise(b"GIF89a not really")
    scene = render_test_layout(["2C"], layout="row", seed=1)
    truncated = tmp_path / "cut.png"
    truncated.write_bytes(cv2.imencode(".png", scene.image)[1].tobytes()[:500])
    with pytest.raises(ImageError):
        cards.recognise(truncated)


def test_an_empty_table_has_no_cards(cards):
    from datasets.tiles_synth import background

    image = background(np.random.default_rng(8), 600, 800)
    result = _read(cards, image)
    assert result["pieces"] == [] and result["melds"] == []


@pytest.mark.parametrize(
    ("layout", "seed", "hand"),
    [("fan", 7, FAN), ("row", 12, ["4D", "5D", "6D", "9C", "9H", "9S", "KH"])],
)
def test_a_dark_faced_deck_is_read_inverted_and_sure_by_its_own_threshold(
    cards, layout, seed, hand
):
    """Light inks on black faces are read on the photo with its lightness inverted (by the
    reader of such photos), sure by the threshold calibrated on dark decks; a deck whose letters
    the game names is read the same way, but its dark readings are not calibrated per set: never
    sure."""
    light = _read(cards, render_test_layout(hand, layout=layout, seed=seed).image)
    dark_image = render_test_layout(hand, layout=layout, seed=seed, dark_faces=True).image
    dark = _read(cards, dark_image)
    assert _labels(light) == _labels(dark) == Counter(hand)
    assert any(p["sure"] for p in light["pieces"])
    assert any(p["sure"] for p in dark["pieces"])
    named = cards.recognise(dark_image, channels="bgr", set_name="pl")
    assert _labels(named) == Counter(hand)
    assert not any(p["sure"] for p in named["pieces"])


@pytest.mark.parametrize(
    ("hand", "layout", "seed"),
    [(["QH", "7S", "10D"], "fan", 7), (["4D", "5D", "6D", "9C", "9H", "9S", "KH"], "row", 12)],
)
def test_a_greyscale_photo_is_read_by_the_grey_reader_red_suits_and_all(cards, hand, layout, seed):
    """Without colour the English reader takes red cards for black ones (a 4D for a 4S); a
    photo without colour is read by the reader that learned grey views, and none is sure."""
    from dataclasses import replace

    from vision.pipeline import Recogniser

    image = render_test_layout(hand, layout=layout, seed=seed).image
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    result = _read(cards, grey)
    assert _labels(result) == Counter(hand)
    assert not any(p["sure"] for p in result["pieces"])
    settings = cards.settings
    kinds_reader = replace(settings, grey_photos=replace(settings.grey_photos, reader_file=None))
    misread = _labels(_read(Recogniser(kinds_reader), grey))
    assert sum((misread & Counter(hand)).values()) <= len(hand) - 2, misread


def test_a_deck_with_its_own_letters_reads_grey_photos_with_its_own_reader(cards):
    polish = cards.for_set("pl")
    assert polish.settings.grey_photos.reader_file is None  # read by its own reader
    assert cards.settings.grey_photos.reader_file == "card_reader_grey.onnx"


@pytest.mark.parametrize(("layout", "seed"), [("fan", 5), ("row", 3)])
def test_a_german_decks_b_jacks_are_read_as_jacks(cards, layout, seed):
    """A German deck's jack prints B, which the letters reader alone reads as an 8; joined
    with the glyph reader's reading of the printed letter, the game naming the deck German
    reads every card (docs/experiments/cards.md, "Reading the letters"); and so does the
    second reader's reading of the B ("A second reader")."""
    from dataclasses import replace

    from vision.pipeline import Recogniser

    hand = ["JS", "QD", "KH", "AC", "JD", "7C", "10H"]
    image = render_test_layout(hand, layout=layout, seed=seed, index_letters="de").image
    german = cards.for_set("de")
    assert _labels(german.recognise(image, channels="bgr")) == Counter(hand)
    sessions = (german.detector, german.reader)
    alone = Recogniser(replace(german.settings, glyphs=None, second_reader=None), sessions=sessions)
    misread = _labels(_read(alone, image))
    assert misread["JS"] + misread["JD"] == 0 and misread["8S"] + misread["8D"] >= 1, misread
    with_text = Recogniser(replace(german.settings, glyphs=None), sessions=sessions)
    assert _labels(_read(with_text, image)) == Counter(hand)


def test_a_decks_index_letters_are_told_from_the_photo(cards):
    """A rendered table of a Polish deck (five W jacks showing; the glyph reader never saw this
    scene) is told Polish and read as a Polish deck is; a hand of an English deck whose jacks
    and queens show is never told another deck's."""
    from datasets.cards_synth import render_scene

    polish = render_scene(20411413, look=6, letter_sets=("pl",)).image
    told = cards.recognise(polish, channels="bgr", set_name="auto")
    assert told["set"] == "pl"
    named = cards.recognise(polish, channels="bgr", set_name="pl")
    assert told["pieces"] == named["pieces"] and told["melds"] == named["melds"]
    hand = ["JS", "QD", "JH", "QC", "KC", "2H", "9D"]
    english = render_test_layout(hand, layout="row", seed=3).image
    assert cards.recognise(english, channels="bgr", set_name="auto")["set"] in ("en", None)


@pytest.mark.parametrize(("letters", "layout", "seed"), [("pl", "row", 3), ("fr", "fan", 5)])
def test_a_deck_whose_queens_show_but_no_jack_is_read_as_one_with_other_letters(
    cards, letters, layout, seed
):
    """A hand of a Polish or French deck without a jack (nor a French king's R) shows only
    letters several decks print: its queens' Ds tell no deck, but that the deck's letters are
    not English ones ("other"), and it is read as a deck with other letters is, by their
    reader at the strictest of their thresholds."""
    from meldcam.vocabulary import OTHER_LETTERS

    hand = ["QS", "QD", "AH", "AC", "7C", "10H", "2D"]
    image = render_test_layout(hand, layout=layout, seed=seed, index_letters=letters).image
    told = cards.recognise(image, channels="bgr", set_name="auto")
    assert told["set"] == OTHER_LETTERS
    assert _labels(told) == Counter(hand)
    assert (
        told["pieces"] == cards.recognise(image, channels="bgr", set_name=OTHER_LETTERS)["pieces"]
    )
