"""The synthetic card generator: reproducible, valid labels, corners labelled only when readable."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageFont

from datasets.cards_synth import (
    CORNER_MIN_VISIBLE,
    FINE_BACKS,
    JOKER,
    READABLE_HALF_VISIBLE,
    _crossed_q,
    _Drawn,
    _labels,
    _narrow_ten,
    all_labels,
    edge_pip_boxes,
    flat_three_fonts,
    index_halves,
    index_stamp,
    random_style,
    rank_fonts,
    render_back,
    render_card,
    render_scene,
    render_test_layout,
    shuffled_deck,
    stacked_pip_boxes,
)
from meldcam.vocabulary import INDEX_LETTERS
from scorer.pieces import parse_card

TEN_CARDS = ["AH", "2C", "3D", "4S", "5H", "6C", "7D", "8S", "9H", "10C"]


@pytest.fixture(scope="module")
def scenes():
    return [render_scene(seed, size=(640, 480)) for seed in range(6)]


def _inside(point, quad) -> bool:
    contour = np.array(quad, np.float32).reshape(-1, 1, 2)
    return cv2.pointPolygonTest(contour, (float(point[0]), float(point[1])), True) >= -1.0


def test_same_seed_same_scene_and_labels():
    a, b, c = render_scene(123), render_scene(123), render_scene(124)
    assert np.array_equal(a.image, b.image) and a.cards == b.cards and a.face_down == b.face_down
    assert a.image.shape != c.image.shape or not np.array_equal(a.image, c.image)


def test_labels_are_the_card_names_of_the_scorer():
    labels = all_labels()
    assert len(labels) == 53 and len(set(labels)) == 53 and "10D" in labels and JOKER in labels
    for label in labels:
        assert parse_card(label).name == label


def test_every_label_valid_and_every_box_inside_the_photo(scenes):
    valid = set(all_labels())
    corners = 0
    for scene in scenes:
        assert scene.image.shape == (480, 640, 3) and scene.image.dtype == np.uint8
        for card in scene.cards:
            assert card.label in valid
            x1, y1, x2, y2 = card.box
            assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 480
            for corner in card.corners:
                x1, y1, x2, y2 = corner.box
                assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 480
                assert corner.visible >= READABLE_HALF_VISIBLE
                # The index lies on its own card, near one of the card's corners.
                centre = ((x1 + x2) / 2, (y1 + y2) / 2)
                assert _inside(centre, card.quad)
                nearest = min(np.hypot(*(np.array(p) - centre)) for p in card.quad)
                card_w = np.hypot(*(np.array(card.quad[1]) - card.quad[0]))
                assert nearest < 0.6 * card_w  # the card centre is >= 0.86 card_w away
                corners += 1
        # A scene never holds more copies of a card than its (at most two) decks.
        counts = Counter(card.label for card in scene.cards)
        assert all(n <= 2 for label, n in counts.items() if label != JOKER)
        assert scene.corner_labels() == [
            (c.label, list(k.box)) for c in scene.cards for k in c.corners
        ]
    assert corners > 30


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**40))
def test_any_seed_gives_valid_labels_inside_the_photo(seed):
    scene = render_scene(seed, size=(320, 240))
    assert scene.image.shape == (240, 320, 3)
    valid = set(all_labels())
    for card in scene.cards:
        assert card.label in valid and (card.corners or card.visible >= 0.5)
        for corner in card.corners:
            x1, y1, x2, y2 = corner.box
            assert 0 <= x1 < x2 <= 320 and 0 <= y1 < y2 <= 240
            assert corner.visible >= READABLE_HALF_VISIBLE


def test_scenes_hold_fans_melds_and_face_down_cards():
    cards = corners = backs = 0
    for seed in range(10, 18):
        scene = render_scene(seed, size=(640, 480))
        cards += len(scene.cards)
        corners += sum(len(c.corners) for c in scene.cards)
        backs += len(scene.face_down)
        for back in scene.face_down:  # a face-down card is never reported as a card
            assert all(card.quad != back for card in scene.cards)
    assert cards > 40 and corners > cards * 0.8 and backs > 3


def test_fan_of_ten_shows_every_top_left_index():
    scene = render_test_layout(TEN_CARDS, layout="fan")
    assert [card.label for card in scene.cards] == TEN_CARDS
    for card in scene.cards[:-1]:
        # Each card covers the right part of the one before: only the top-left index shows.
        assert [corner.corner for corner in card.corners] == ["tl"]
    assert {corner.corner for corner in scene.cards[-1].corners} == {"tl", "br"}
    # The box sits on printed ink: dark or red pixels, not blank card stock.
    gray = cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)
    for card in scene.cards:
        x1, y1, x2, y2 = (round(v) for v in card.corners[0].box)
        assert (gray[y1:y2, x1:x2] < 140).mean() > 0.1


def test_overlapped_row_hides_bottom_right_indices_and_apart_shows_both():
    row = render_test_layout(["KS", "QS", "JS", "10S"], layout="row")
    assert [[k.corner for k in c.corners] for c in row.cards] == [["tl"]] * 3 + [["tl", "br"]]
    apart = render_test_layout(["KS", "QS", "JS", JOKER], layout="apart")
    assert [sorted(k.corner for k in c.corners) for c in apart.cards] == [["br", "tl"]] * 4


def test_a_layout_framed_lies_in_the_middle_of_a_photo_of_that_size():
    """``frame``: the same cards, laid out alike, in the middle of a photo of the frame's size
    (the scale benchmark's one card filling most of the frame); a layout too large is refused."""
    hand = ["KS", "2H", "10D"]
    own = render_test_layout(hand, layout="apart", card_w=120, seed=3)
    framed = render_test_layout(hand, layout="apart", card_w=120, seed=3, frame=(1200, 1600))
    assert framed.image.shape == (1600, 1200, 3)
    assert [c.label for c in framed.cards] == [c.label for c in own.cards] == hand
    height, width = own.image.shape[:2]
    dx, dy = (1200 - width) / 2, (1600 - height) / 2
    for mine, theirs in zip(own.cards, framed.cards, strict=True):
        for a, b in zip(mine.corners, theirs.corners, strict=True):
            assert np.allclose(np.array(b.box) - (dx, dy, dx, dy), a.box, atol=1.0)
    big = render_test_layout(["KH"], layout="apart", card_w=900, seed=3, frame=(1200, 1600))
    assert [sorted(k.corner for k in c.corners) for c in big.cards] == [["br", "tl"]]
    with pytest.raises(ValueError, match="do not fit"):
        render_test_layout(["KH"], layout="apart", card_w=1000, seed=3, frame=(900, 1600))


def test_partly_shown_indices_are_kept_apart_from_the_labelled_ones():
    """Indices 20-90 % visible and not readable are a card's ``partial`` ones (never training
    labels: the scene's corner labels are only the labelled indices); a card showing only such
    an index and under half its face is ``partly_shown``, not one of the scene's cards."""
    from datasets.cards_synth import CARD_MIN_VISIBLE, CORNER_PARTLY_SHOWN

    partial = partly_shown = 0
    for seed in range(10, 26):
        scene = render_scene(seed, size=(640, 480))
        labelled = [(c.label, list(k.box)) for c in scene.cards for k in c.corners]
        assert scene.corner_labels() == labelled
        for card in scene.cards:
            assert all(k.visible >= READABLE_HALF_VISIBLE for k in card.corners)
            assert all(CORNER_PARTLY_SHOWN <= k.visible < CORNER_MIN_VISIBLE for k in card.partial)
            partial += len(card.partial)
        for card in scene.partly_shown:
            assert not card.corners and card.partial and card.visible < CARD_MIN_VISIBLE
            partly_shown += 1
    assert partial > 10 and partly_shown > 0


def test_dark_faces_darken_every_deck_and_change_nothing_else():
    """``dark_faces`` (a deck style measured apart): every look-6 deck dark in light inks; a
    deck the plain draw made dark is the same deck."""
    plain_dark = 0
    for seed in range(40):
        plain = random_style(np.random.default_rng(seed), look=6)
        darkened = random_style(np.random.default_rng(seed), look=6, dark_faces=True)
        assert max(darkened.stock) <= 45 and min(darkened.inks[0]) >= 215
        assert darkened.index_letters == plain.index_letters
        if max(plain.stock) <= 45:
            assert darkened == plain
            plain_dark += 1
    assert 0 < plain_dark < 20  # about a fifth of plain look-6 decks


def test_face_down_cards_are_not_labelled():
    scene = render_test_layout(["AS", "2S", "3S"], layout="apart", face_down=3)
    assert [card.label for card in scene.cards] == ["AS", "2S", "3S"]
    assert len(scene.face_down) == 3
    # The backs are really drawn: their centres look nothing like the bare table.
    table = scene.image[:10, :10].reshape(-1, 3).mean(axis=0)
    for quad in scene.face_down:
        cx, cy = np.mean(np.array(quad), axis=0).astype(int)
        patch = scene.image[cy - 5 : cy + 5, cx - 5 : cx + 5].reshape(-1, 3).mean(axis=0)
        assert np.abs(patch - table).max() > 40


def test_shuffled_decks_hold_each_card_once_per_deck():
    rng = np.random.default_rng(0)
    one = shuffled_deck(rng, decks=1, jokers=2)
    assert len(one) == 54 and Counter(one)[JOKER] == 2 and len(set(one)) == 53
    two = shuffled_deck(rng, decks=2, jokers=0)
    assert Counter(two) == Counter({label: 2 for label in all_labels() if label != JOKER})


def test_visible_share_counts_covered_and_off_photo_pixels_as_hidden():
    from datasets.scene import visible_share

    ids = np.full((100, 100), 3, np.int32)
    box = np.array([[10, 10], [29, 10], [29, 29], [10, 29]], np.float32)
    assert visible_share(ids, box, 3) == 1.0
    ids[:, 20:] = 4  # another card covers the right half
    assert 0.4 < visible_share(ids, box, 3) < 0.6
    off = box - np.array([20, 0], np.float32)  # half the box lies left of the photo
    assert 0.4 < visible_share(np.full((100, 100), 3, np.int32), off, 3) < 0.6


def test_look_2_prints_more_fonts_and_jitters_the_lettering():
    """The reader's look: fonts beyond look 1's, lettering stretched / slanted / re-stroked;
    look 1 draws nothing more, so its seeds (the detector's scenes, the tests') render as
    before."""
    look1 = [random_style(np.random.default_rng(seed)) for seed in range(60)]
    look2 = [random_style(np.random.default_rng(seed), look=2) for seed in range(60)]
    assert {s.rank_font for s in look1} <= set(rank_fonts())
    assert all((s.rank_stretch, s.rank_shear, s.rank_stroke) == (1.0, 0.0, 0.0) for s in look1)
    assert len({s.rank_font for s in look2}) > len(set(rank_fonts()))
    assert any(s.rank_stretch != 1.0 for s in look2) and any(s.rank_stroke for s in look2)


@pytest.mark.parametrize("look", [2, 4, 5])
@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**40))
def test_reader_look_scenes_give_valid_labels_inside_the_photo(look, seed):
    scene = render_scene(seed, size=(320, 240), look=look)
    valid = set(all_labels())
    for card in scene.cards:
        assert card.label in valid
        for corner in card.corners:
            x1, y1, x2, y2 = corner.box
            assert 0 <= x1 < x2 <= 320 and 0 <= y1 < y2 <= 240


def test_look_3_prints_flat_topped_threes_on_half_the_decks_and_leaves_look_2_as_it_was():
    look2 = [random_style(np.random.default_rng(seed), look=2) for seed in range(60)]
    look3 = [random_style(np.random.default_rng(seed), look=3) for seed in range(60)]
    flat = [s for s in look3 if s.flat_three]
    assert 15 <= len(flat) <= 45 and not any(s.flat_three for s in look2)
    assert {s.rank_font for s in flat} <= set(flat_three_fonts())
    for two, three in zip(look2, look3, strict=True):  # the same deck, other than the 3
        assert (two.inks, two.rank_stretch, two.aspect) == (
            three.inks,
            three.rank_stretch,
            three.aspect,
        )
        if not three.flat_three:
            assert two == three
    style = flat[0]
    plain = replace(style, flat_three=False)
    flat_3 = np.asarray(index_stamp(style, "3H", 200))
    round_3 = np.asarray(index_stamp(plain, "3H", 200))
    assert flat_3.shape != round_3.shape or np.abs(flat_3.astype(int) - round_3).mean() > 1
    # Only the 3 changes.
    assert np.array_equal(
        np.asarray(index_stamp(style, "5H", 200)), np.asarray(index_stamp(plain, "5H", 200))
    )


def test_flat_three_fonts_have_the_glyph():
    fonts = flat_three_fonts()
    assert fonts and all("Liberation" not in path for path in fonts)


def test_look_4_moves_pips_nearer_the_indices_busies_the_art_and_fines_the_backs():
    """The reader's hard-negative look; looks 1-3 draw nothing more, so their seeds render as
    before."""
    look2 = [random_style(np.random.default_rng(seed), look=2) for seed in range(60)]
    look3 = [random_style(np.random.default_rng(seed), look=3) for seed in range(60)]
    look4 = [random_style(np.random.default_rng(seed), look=4) for seed in range(60)]
    for style in look2 + look3:
        assert (style.pip_scale, style.pip_inset, style.busy_court) == (1.0, 0.0, False)
        assert style.back_pattern not in FINE_BACKS
    assert all(1.0 <= s.pip_scale <= 1.35 and 0.0 <= s.pip_inset <= 0.03 for s in look4)
    assert 25 <= sum(s.busy_court for s in look4) <= 55
    assert 25 <= sum(s.back_pattern in FINE_BACKS for s in look4) <= 55
    for two, four in zip(look2, look4, strict=True):  # the same deck's lettering and inks
        assert (two.inks, two.rank_stretch, two.aspect) == (
            four.inks,
            four.rank_stretch,
            four.aspect,
        )
    # Larger pips nearer the indices put more ink beside the top-left index.
    style = replace(look2[0], back_pattern="plain")
    near = replace(style, pip_scale=1.35, pip_inset=0.03)
    rng = np.random.default_rng(0)
    plain_9, boxes = render_card(rng, style, "9D", 200)
    near_9, _ = render_card(rng, near, "9D", 200)
    _x1, _y1, x2, y2 = (int(v) for v in boxes["tl"])
    beside = (slice(y2, y2 + 60), slice(x2, x2 + 30))
    ink = [(255 - img[..., :3][beside].mean(axis=2) > 60).mean() for img in (plain_9, near_9)]
    assert ink[1] > ink[0]
    # Fine backs repeat every few pixels; every pattern is drawn.
    for pattern in FINE_BACKS:
        back = render_back(replace(style, back_pattern=pattern), 200)
        middle = back[60:200, 40:160, :3].astype(float).mean(axis=2)
        assert middle.std() > 5


def test_look_5_prints_real_diamond_backs_and_lays_hands_face_down():
    """Look 4's decks, most with the back real decks print (coloured diamonds between white
    lines); scenes add hands lying face down. Looks 1-4 draw nothing more."""
    look4 = [random_style(np.random.default_rng(seed), look=4) for seed in range(60)]
    look5 = [random_style(np.random.default_rng(seed), look=5) for seed in range(60)]
    assert not any(s.back_pattern == "diamonds" or s.back_line for s in look4)
    diamonds = [s for s in look5 if s.back_pattern == "diamonds"]
    assert 35 <= len(diamonds) <= 55
    assert all(0.25 <= s.back_line <= 0.5 and 10 <= s.back_cells <= 24 for s in diamonds)
    for four, five in zip(look4, look5, strict=True):  # only the back differs
        back = {"back": four.back, "back_pattern": four.back_pattern}
        assert replace(five, back_line=0.0, back_cells=0.0, **back) == four
    # White lines over the colour, inside a white border.
    back = render_back(diamonds[0], 200).astype(float)
    middle = back[60:200, 40:160, :3]
    white = (middle.min(axis=2) > 200).mean()
    assert 0.15 < white < 0.85
    assert back[1:12, 100, :3].min() > 200 and back[100, 1:12, :3].min() > 200
    assert (back[..., 3][0, 0], back[..., 3][100, 100]) == (0, 255)  # rounded corners
    # Hands lying face down: more face-down cards over the same seeds.
    face_down = [
        sum(len(render_scene(seed, size=(480, 360), look=look).face_down) for seed in range(6))
        for look in (4, 5)
    ]
    assert face_down[1] > face_down[0] + 6


def test_look_6_prints_other_languages_index_letters_and_dark_faces_over_look_5():
    """Look 5's decks, each with the index letters of one deck language and a fifth with dark
    faces; the labels keep the English ranks whatever the deck prints."""
    look5 = [random_style(np.random.default_rng(seed), look=5) for seed in range(100)]
    look6 = [random_style(np.random.default_rng(seed), look=6) for seed in range(100)]
    assert {s.index_letters for s in look5} == {"en"}
    assert {s.index_letters for s in look6} == set(INDEX_LETTERS)
    dark = [s for s in look6 if max(s.stock) < 60]
    assert 8 <= len(dark) <= 35
    assert all(min(s.inks[0]) > 200 for s in dark)  # light ink on the dark face
    for five, six in zip(look5, look6, strict=True):  # the same deck otherwise
        if six not in dark:
            assert replace(six, index_letters="en") == five
    only_german = [random_style(np.random.default_rng(s), 6, ("de",)) for s in range(10)]
    assert {s.index_letters for s in only_german} == {"de"}
    # The court and ace letters change; the numbers do not.
    english = replace(look6[0], index_letters="en")
    polish = replace(english, index_letters="pl")
    for label, changes in (("JH", True), ("QS", True), ("KD", False), ("7C", False)):
        en, pl = (np.asarray(index_stamp(style, label, 200)) for style in (english, polish))
        differ = en.shape != pl.shape or np.abs(en.astype(int) - pl).mean() > 1
        assert bool(differ) == changes, label
    scene = render_scene(5, size=(480, 360), look=6, letter_sets=("pl",))
    assert scene.cards and {card.label for card in scene.cards} <= set(all_labels())


def test_look_6_scenes_of_some_letter_sets_are_the_same_cards_as_of_all():
    """So that a scene file, which keeps only its seed, re-renders to its cards (the index boxes
    move with the letters' widths)."""
    for seed in (1, 2):
        every = render_scene(seed, size=(480, 360), look=6)
        for sets in (("pl",), ("de", "fr")):
            some = render_scene(seed, size=(480, 360), look=6, letter_sets=sets)
            assert [label for label, _box in some.corner_labels()] == [
                label for label, _box in every.corner_labels()
            ]
            assert [c.quad for c in some.cards] == [c.quad for c in every.cards]


def _covered_index(cover: str, share: float) -> tuple[np.ndarray, np.ndarray]:
    """Piece 0's 40 x 60 px index at (20, 20) with ``share`` of it covered by piece 1 from the
    ``cover`` side ("right" or "bottom"): (ids, quad)."""
    ids = np.zeros((100, 100), np.int32)
    if cover == "right":
        ids[:, 60 - round(40 * share) :] = 1
    else:
        ids[80 - round(60 * share) :, :] = 1
    quad = np.array([[20, 20], [60, 20], [60, 80], [20, 80]], np.float32)
    return ids, quad


@pytest.mark.parametrize(
    ("cover", "share", "readable"),
    [
        ("right", 0.05, True),  # 95 % visible
        ("right", 0.3, True),  # a tight fan: rank and suit each 70 % visible
        ("right", 0.45, False),  # each half 55 % visible
        ("bottom", 0.3, False),  # 70 % visible, but the suit's half only 40 %
        ("bottom", 0.08, True),  # 92 % visible
    ],
)
def test_an_index_is_labelled_when_its_rank_and_suit_both_show(cover, share, readable):
    from datasets.cards_synth import _readable
    from datasets.scene import visible_share

    ids, quad = _covered_index(cover, share)
    seen = visible_share(ids, quad, 0)
    assert _readable(ids, quad, 0, seen) is readable


def test_index_halves_split_rank_from_suit_on_a_turned_index():
    quad = np.array([[10, 0], [20, 10], [0, 30], [-10, 20]], np.float32)  # turned 45 degrees
    top, bottom = index_halves(quad)
    assert np.allclose(top, [[10, 0], [20, 10], [10, 20], [0, 10]])
    assert np.allclose(bottom, [[0, 10], [10, 20], [0, 30], [-10, 20]])


def test_a_tight_fan_labels_indices_covered_from_the_side():
    """Fanned 5 degrees a card, most indices show only their left part (under 90 % of the
    box) and are still labelled; fanned 12 degrees, every one shows whole."""
    hand = ["AS", "2H", "3C", "4D", "5S", "6H", "7C", "8D", "9S", "10H", "JC", "QD", "KS"]
    tight = render_test_layout(hand, layout="fan", card_w=150, fan_step=5.0)
    side_covered = [k for c in tight.cards for k in c.corners if k.visible < CORNER_MIN_VISIBLE]
    assert len(tight.cards) >= 10 and len(side_covered) >= 4
    loose = render_test_layout(hand, layout="fan", card_w=150, fan_step=12.0)
    assert [c.label for c in loose.cards] == hand
    assert all(k.visible >= CORNER_MIN_VISIBLE for c in loose.cards for k in c.corners)


def test_tight_fan_scenes_hold_hands_of_at_least_seven_cards():
    fans = [render_scene(seed, size=(640, 480), look=5, tight_fans=True) for seed in range(4)]
    assert all(len(s.cards) + len(s.partly_shown) >= 7 for s in fans)


def _only_stamp_changed(plain, changed, label: str, others: tuple[str, ...]) -> None:
    """``changed`` (a style) prints ``label``'s index otherwise than ``plain``, ``others`` alike."""

    def stamp(style, name: str) -> np.ndarray:
        return np.asarray(index_stamp(style, name, 200))

    for other in others:
        assert np.array_equal(stamp(plain, other), stamp(changed, other))
    assert not np.array_equal(stamp(plain, label), stamp(changed, label))


def test_crossed_q_is_drawn_last_and_changes_only_the_q():
    """``crossed_q`` draws after every other choice (a style drawn without it is unchanged) and
    prints the Q as a narrow O with a bar sticking out on both sides; other ranks as before."""
    for seed in range(30):
        plain = random_style(np.random.default_rng(seed), look=5)
        assert random_style(np.random.default_rng(seed), look=5, crossed_q=0.0) == plain
        crossed = random_style(np.random.default_rng(seed), look=5, crossed_q=1.0)
        assert crossed == replace(plain, crossed_q=True)
    shares = [
        random_style(np.random.default_rng(s), 5, crossed_q=0.5).crossed_q for s in range(100)
    ]
    assert 30 <= sum(shares) <= 70
    plain = random_style(np.random.default_rng(3), look=5)
    _only_stamp_changed(plain, replace(plain, crossed_q=True), "QH", ("KD", "8C", "10S"))
    font = ImageFont.truetype(rank_fonts()[0], 60)
    img, (left, _top, right, bottom) = _crossed_q(
        Image.new("RGBA", (180, 180)), font, (0, 0, 0, 255), 90
    )
    ink = np.asarray(img)[..., 3] > 128
    cols = np.flatnonzero(ink.any(axis=0))
    assert cols[0] < left and cols[-1] > right  # the bar sticks out on both sides
    below = ink[int(bottom) + 2 :]
    assert not below.any()  # the bar crosses the O, not under it
    o = ImageFont.truetype(rank_fonts()[0], 60).getbbox("O")
    assert right - left < 0.8 * (o[2] - o[0])  # narrowed


def test_narrow_ten_changes_only_the_tens():
    """``narrow_ten`` is drawn apart from the scene's other choices (a scene rendered with it
    holds the same cards in the same places, only its 10s drawn otherwise) and prints the 10
    as an I beside a narrowed O, no wider than the font's 10; other ranks as before."""
    changed = 0
    for seed in range(3):
        plain = render_scene(seed, size=(480, 360), look=6)
        narrow = render_scene(seed, size=(480, 360), look=6, narrow_ten=1.0)
        assert [c.label for c in narrow.cards] == [c.label for c in plain.cards]
        assert [c.quad for c in narrow.cards] == [c.quad for c in plain.cards]
        changed += not np.array_equal(narrow.image, plain.image)
    assert changed  # some scene shows a 10
    plain = random_style(np.random.default_rng(3), look=6)
    _only_stamp_changed(plain, replace(plain, narrow_ten=0.5), "10S", ("KD", "8C", "QH", "AS"))
    font = ImageFont.truetype(rank_fonts()[0], 60)
    img, (left, top, right, bottom) = _narrow_ten(
        Image.new("RGBA", (180, 180)), font, (0, 0, 0, 255), 90, 0.4
    )
    ink = np.asarray(img)[..., 3] > 128
    cols = np.flatnonzero(ink.any(axis=0))
    assert left <= cols[0] and cols[-1] < right + 1  # the pair's ink inside its box
    gaps = np.flatnonzero(~ink[int(top) : int(bottom)].any(axis=0)[cols[0] : cols[-1]])
    assert len(gaps) > 0  # two glyphs side by side: the I and the O
    ten = font.getbbox("10")
    assert right - left <= ten[2] - ten[0]  # no wider than the font's own 10


def test_stacked_pip_boxes_box_two_pips_of_a_column_on_number_cards_only():
    style = random_style(np.random.default_rng(1), look=4)
    nine = stacked_pip_boxes(style, "9D", 200)
    assert len(nine) == 6  # three pairs in each of the two outer columns
    for x1, y1, x2, y2 in nine:
        assert 0 < x1 < x2 < 200 and 0 < y1 < y2 < 200 * style.aspect
        assert y2 - y1 > 1.8 * (x2 - x1)  # two pips, one above the other
    assert len({round(box[0]) for box in nine}) == 2
    for label in ("AS", "JH", "QC", "KD", JOKER):
        assert stacked_pip_boxes(style, label, 200) == []


def test_edge_pip_boxes_reach_past_each_pip_up_and_down_on_number_cards_only():
    style = random_style(np.random.default_rng(1), look=4)
    three = edge_pip_boxes(style, "3C", 200)
    assert len(three) == 6  # each of the three pips, above and below
    for box, pip, strip in three:
        assert box[0] == pip[0] == strip[0] and box[2] == pip[2] == strip[2]
        assert (box[1], box[3]) in ((strip[1], pip[3]), (pip[1], strip[3]))  # pip + strip
        assert strip[3] == pip[1] or strip[1] == pip[3]  # the strip touches the pip
    for label in ("AS", "JH", "KD", JOKER):
        assert edge_pip_boxes(style, label, 200) == []


def test_a_pip_whose_strip_another_card_covers_is_a_decoy():
    """A lone pip by another card's edge is a decoy; the same pip with its strip on its own card
    is not (it is part of the card's pattern, read from the index)."""
    ids = np.zeros((100, 100), np.int32)  # card 0 everywhere ...
    ids[:44] = 1  # ... but card 1 lies over its top, down to the pip

    def quad(x1, y1, x2, y2):
        return np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)

    pip, above, below = quad(45, 45, 55, 55), quad(45, 37, 55, 45), quad(45, 55, 55, 63)
    card = _Drawn(
        "3C",
        quad(0, 0, 100, 100),
        {},
        edge_pip_quads=((quad(45, 37, 55, 55), pip, above), (quad(45, 45, 55, 63), pip, below)),
    )
    *_, decoys = _labels(ids, [card], lambda points: points)
    assert decoys == ((45.0, 37.0, 55.0, 55.0),)


def test_pip_decoys_box_visible_stacked_pips_and_change_nothing_else():
    for seed in range(3):
        plain = render_scene(seed, size=(640, 480), look=4)
        boxed = render_scene(seed, size=(640, 480), look=4, pip_decoys=True)
        assert np.array_equal(plain.image, boxed.image)
        assert plain.corner_labels() == boxed.corner_labels() and not plain.decoys
        for x1, y1, x2, y2 in boxed.decoys:
            centre = ((x1 + x2) / 2, (y1 + y2) / 2)
            assert any(
                card.box[0] <= centre[0] <= card.box[2] and card.box[1] <= centre[1] <= card.box[3]
                for card in boxed.cards
            )
    assert sum(len(render_scene(s, look=4, pip_decoys=True).decoys) for s in range(6)) > 0
