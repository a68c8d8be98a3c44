"""The synthetic domino generator: reproducible, valid labels, pips that count right."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import replace

import cv2
import numpy as np
import pytest

from datasets.dominoes_synth import (
    BIG_PIPS,
    GRADED_PIPS,
    GRADED_SPREAD,
    MAX_PIP,
    MIN_HALF_VISIBLE,
    SET_NAMES,
    STYLE_KINDS,
    _Bag,
    _plan_side_by_side,
    all_labels,
    dark_surface,
    film_sheen,
    four_row_fit,
    low_camera,
    patterned_surface,
    pip_layout,
    random_style,
    render_scene,
    render_scene_detailed,
    render_scene_every_domino,
    render_test_layout,
    render_test_scene,
)
from scorer.sets import DOMINO_SETS

HALF_PX = 96


def _upright_half(image: np.ndarray, quad) -> np.ndarray:
    """A half warped onto a square, outer end up, divider at the bottom."""
    square = np.float32([[0, 0], [HALF_PX, 0], [HALF_PX, HALF_PX], [0, HALF_PX]])
    matrix = cv2.getPerspectiveTransform(np.float32(quad), square)
    return cv2.warpPerspective(image, matrix, (HALF_PX, HALF_PX))


def _ink(region: np.ndarray, body=None) -> np.ndarray:
    """Pixels far from the body colour (default: the median of the region)."""
    if body is None:
        body = np.median(region.reshape(-1, 3), axis=0)
    return (np.linalg.norm(region.astype(float) - body, axis=2) > 60).astype(np.uint8)


def count_pips(image: np.ndarray, quad, body=None) -> int:
    """Blobs inside a half, away from the bevel and the divider (and a spinner on it);
    ``body``: the face's BGR colour where pips cover most of a half."""
    half = _upright_half(image, quad)
    m = int(0.08 * HALF_PX)
    core = half[m : int(0.9 * HALF_PX), m : HALF_PX - m]
    n, _, stats, _ = cv2.connectedComponentsWithStats(_ink(core, body))
    return sum(1 for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 12)


def test_same_seed_same_scene_and_labels():
    a = render_scene_detailed(11)
    b = render_scene_detailed(11)
    assert np.array_equal(a.image, b.image)
    assert a.dominoes == b.dominoes and a.face_down == b.face_down and a.set_name == b.set_name
    img, labels = render_scene(11)
    assert np.array_equal(img, a.image) and labels == a.labels()
    c = render_scene_detailed(12)
    assert a.image.shape != c.image.shape or not np.array_equal(a.image, c.image)


@pytest.mark.parametrize("set_name", SET_NAMES)
def test_labels_are_valid_for_the_chosen_set(set_name):
    top, copies = DOMINO_SETS[set_name]
    valid = set(all_labels(set_name))
    assert len(valid) == (top + 1) * (top + 2) // 2
    total = 0
    for seed in range(4):
        scene = render_scene_detailed(seed, size=(640, 480), set_name=set_name)
        assert scene.set_name == set_name
        counts = Counter(d.label for d in scene.dominoes)
        for domino in scene.dominoes:
            a, b = (int(x) for x in domino.label.split("-"))
            assert domino.label in valid and a <= b <= top
            assert sorted(h.pips for h in domino.halves) == [a, b]
        assert all(n <= copies for n in counts.values()), counts
        total += len(scene.dominoes)
    assert total >= 8


def test_default_scenes_use_every_set_and_stay_within_double_twelve():
    seen = set()
    for seed in range(20, 32):
        scene = render_scene_detailed(seed, size=(480, 360))
        seen.add(scene.set_name)
        assert {d.label for d in scene.dominoes} <= set(all_labels(scene.set_name))
    assert len(seen) >= 3


def test_boxes_and_halves_inside_the_photo():
    w, h = 640, 480
    photo = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    total = 0
    for seed in range(6):
        scene = render_scene_detailed(seed, size=(w, h))
        assert scene.image.shape == (h, w, 3) and scene.image.dtype == np.uint8
        for domino in scene.dominoes:
            x1, y1, x2, y2 = domino.box
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
            corners = np.array([p for half in domino.halves for p in half.quad])
            assert np.allclose(np.clip(corners.min(axis=0), 0, [w, h]), (x1, y1), atol=1e-3)
            assert np.allclose(np.clip(corners.max(axis=0), 0, [w, h]), (x2, y2), atol=1e-3)
            for half in domino.halves:  # readable: most of each half lies inside the photo
                quad = np.float32(half.quad)
                inside, _ = cv2.intersectConvexConvex(photo, quad)
                assert inside >= MIN_HALF_VISIBLE * 0.97 * cv2.contourArea(quad)
        for x1, y1, x2, y2 in scene.face_down:
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
        total += len(scene.dominoes)
    assert total > 20


@pytest.mark.parametrize("kind", STYLE_KINDS)
def test_every_pip_count_renders_that_many_pips_in_both_halves_and_orientations(kind):
    # Counts 0..12 each appear as a first and as a second half.
    row = [f"{n}-{(n + 1) % (MAX_PIP + 1)}" for n in range(MAX_PIP + 1)]
    rows = [row[:7], row[7:]]
    for seed in (0, 1):
        base = random_style(np.random.default_rng(seed), MAX_PIP, kind=kind)
        variant = replace(base, spinner=0.06, turn=not base.turn, mirror=not base.mirror)
        for style in (base, variant):
            for arrangement, angle in (("chain", 0.0), ("side", 0.0), ("chain", 37.0)):
                scene = render_test_scene(
                    rows, tile_width=HALF_PX, arrangement=arrangement, style=style, angle=angle
                )
                assert len(scene.dominoes) == len(row)
                for domino in scene.dominoes:
                    for half in domino.halves:
                        found = count_pips(scene.image, half.quad)
                        assert found == half.pips, (kind, arrangement, angle, domino.label)


def test_a_scene_framed_lies_in_the_middle_of_a_photo_of_that_size():
    """``frame``: the same dominoes in the middle of a photo of the frame's size; a layout too
    large for it is refused."""
    rows = [["3-8", "1-2"]]
    own = render_test_scene(rows, tile_width=80, seed=3)
    framed = render_test_scene(rows, tile_width=80, seed=3, frame=(1600, 1200))
    assert framed.image.shape == (1200, 1600, 3)
    assert [label for label, _box in framed.labels()] == ["3-8", "1-2"]
    widths = [np.subtract(box[2:], box[:2]) for _label, box in own.labels()]
    assert np.allclose([np.subtract(b[2:], b[:2]) for _l, b in framed.labels()], widths)
    (x1, y1, _x2, _y2), (_x, _y, x2, y2) = (box for _label, box in framed.labels())
    assert abs((x1 + x2) / 2 - 800) <= 2 and abs((y1 + y2) / 2 - 600) <= 2
    with pytest.raises(ValueError, match="does not fit"):
        render_test_scene([["3-8"]], tile_width=900, seed=3, frame=(1600, 1200))


def _assert_every_half_countable(row: list[str], style) -> None:
    """Each half of ``row``'s dominoes, drawn clean in ``style`` in two rows, shows its count."""
    scene = render_test_scene([row[:7], row[7:]], tile_width=HALF_PX, style=style)
    body = np.array(style.body[::-1], float)  # BGR
    for domino in scene.dominoes:
        for half in domino.halves:
            assert count_pips(scene.image, half.quad, body) == half.pips, domino.label


@pytest.mark.parametrize("top", [9, 12])
def test_large_pip_printings_keep_every_pip_apart_and_countable(top):
    """Look 5's large-pip double-nines and double-twelves: twelve pips a tenth of the width
    across still lie apart, inside the face, each half countable."""
    row = [f"{n}-{(n + 5) % (top + 1)}" for n in range(top + 1)]
    for seed in range(3):
        style = random_style(np.random.default_rng(seed), top, kind="coded", big_pips=1.0)
        assert BIG_PIPS[0] <= style.pip_radius <= BIG_PIPS[1]
        largest = replace(style, pip_radius=BIG_PIPS[1], spread=1.04, turn=False)
        for drawn in (style, largest):
            _assert_every_half_countable(row, drawn)
    # double-six printings keep their own sizes; without the share no printing is large
    six = random_style(np.random.default_rng(0), 6, big_pips=1.0)
    assert six == random_style(np.random.default_rng(0), 6)
    usual = [random_style(np.random.default_rng(seed), top).pip_radius for seed in range(40)]
    assert max(usual) < (BIG_PIPS[0] if top == 12 else BIG_PIPS[1])


def test_look_5_draws_large_pips_and_renders_look_4_as_it_was():
    """Look 5 draws the large pips only for itself: look 4's scenes (the detector's and the
    reader's training sets) render as they did."""
    look4 = [[d.label for d in render_scene_detailed(seed, look=4).dominoes] for seed in (1, 2)]
    assert look4 == [
        ["1-6", "0-3", "8-9", "1-2", "4-8", "1-4", "1-7"],
        ["0-6", "0-5", "2-2", "2-5"],
    ]
    radii = []
    for seed in range(40):
        rng = np.random.default_rng(seed)
        radii.append(random_style(rng, 12, big_pips=0.5).pip_radius)
    assert 0.3 < np.mean([r >= BIG_PIPS[0] for r in radii]) < 0.7
    scene = render_scene_detailed(3, size=(640, 480), look=5)
    assert scene.image.shape == (480, 640, 3)


@pytest.mark.parametrize("top", [9, 12])
def test_graded_pip_printings_keep_every_pip_apart_and_countable(top):
    """Look 6's graded pips: halves of up to nine pips printed larger than 10-12's, at the
    largest radii still apart, inside the face, each half countable."""
    row = [f"{n}-{(n + 5) % (top + 1)}" for n in range(top + 1)]
    for seed in range(3):
        style = random_style(np.random.default_rng(seed), top, kind="coded", graded_pips=1.0)
        assert GRADED_PIPS[0][0] <= style.radius(9) <= GRADED_PIPS[0][1]
        assert GRADED_PIPS[1][0] <= style.radius(10) <= GRADED_PIPS[1][1]
        assert style.radius(12) < style.radius(9)
        largest = replace(
            style,
            pip_radius=GRADED_PIPS[0][1],
            four_row_radius=four_row_fit(GRADED_SPREAD[1][1]),
            four_row_spread=(GRADED_SPREAD[0][1], GRADED_SPREAD[1][1]),
            spread=1.04,
            turn=False,
        )
        pressed = (GRADED_SPREAD[0][1], GRADED_SPREAD[1][0])  # rows pressed the closest
        tightest = replace(
            largest,
            four_row_spread=pressed,
            four_row_radius=four_row_fit(pressed[1]),
            aspect=1.9,
        )
        for drawn in (style, largest, tightest):
            _assert_every_half_countable(row, drawn)
    # without the share every half of a printing has one radius and one spread
    usual = random_style(np.random.default_rng(0), 12, big_pips=1.0)
    assert usual.radius(12) == usual.radius(1) == usual.pip_radius
    assert usual.spreads(12) == usual.spreads(1) == (usual.spread, usual.spread)
    # a radius of their own for 10-12 leaves their spread as it was unless one is given
    smaller = replace(usual, four_row_radius=0.07)
    assert smaller.radius(10) == 0.07 and smaller.spreads(10) == (usual.spread, usual.spread)


def test_look_6_draws_graded_pips_and_renders_look_5_as_it_was():
    """Look 6 draws graded pips only for itself: look 5's scenes (a reader's training set and
    a held-back test) render as they did."""
    look5 = render_scene_detailed(9, size=(640, 480), look=5)  # a double-twelve table
    assert [d.label for d in look5.dominoes] == ["2-9", "4-7", "4-5", "5-10", "1-1"]
    graded = [random_style(np.random.default_rng(s), 12, graded_pips=0.5) for s in range(40)]
    assert 0.3 < np.mean([style.four_row_radius > 0 for style in graded]) < 0.7
    scene = render_scene_detailed(3, size=(640, 480), look=6)
    assert scene.image.shape == (480, 640, 3)


def test_standard_layouts_for_ten_eleven_and_twelve():
    def columns(count: int) -> list[int]:
        xs = Counter(round(x, 2) for x, _ in pip_layout(count))
        return [xs[x] for x in sorted(xs)]

    for n in range(MAX_PIP + 1):
        points = pip_layout(n)
        assert len(points) == len(set(points)) == n
        assert all(0 < x < 1 and 0 < y < 1 for x, y in points)
    assert columns(6) == [3, 3]
    assert columns(8) == [3, 2, 3]
    assert columns(10) == [4, 2, 4]
    assert columns(11) == [4, 3, 4]
    assert columns(12) == [4, 4, 4]
    ten_middle = sorted(y for x, y in pip_layout(10) if x == 0.5)
    assert ten_middle[0] < 0.2 and ten_middle[1] > 0.8  # top and bottom of the middle column
    with pytest.raises(ValueError):
        pip_layout(13)


def test_test_layout_keeps_chain_order_and_halves():
    img, labels = render_test_layout([["8-3", "3-3"], ["12-10"]])
    assert [label for label, _ in labels] == ["3-8", "3-3", "10-12"]
    (_, a), (_, b), (_, c) = labels
    assert a[2] <= b[0] + 1 and a[3] < c[1]  # end to end, then the next row below
    assert img.shape[0] > c[3] and img.shape[1] > b[2]
    scene = render_test_scene([["8-3", "3-3"], ["12-10"]])
    first = scene.dominoes[0]
    assert [h.pips for h in first.halves] == [8, 3]  # near half first: the chain reads 8-3, 3-3
    assert np.mean(first.halves[0].quad, axis=0)[0] < np.mean(first.halves[1].quad, axis=0)[0]
    assert [(d.chain, d.position) for d in scene.dominoes] == [(0, 0), (0, 1), (1, 0)]


def test_face_down_dominoes_are_not_labelled_and_show_no_face():
    scene = render_test_scene([["3-4", "back", "5-6"], ["back", "0-0"]], style="ivory")
    assert [d.label for d in scene.dominoes] == ["3-4", "5-6", "0-0"]
    assert len(scene.face_down) == 2
    blank = scene.dominoes[2]
    for x1, y1, x2, y2 in scene.face_down:  # chains lie flat: a box is the whole back
        left = [(x1, y1), ((x1 + x2) / 2, y1), ((x1 + x2) / 2, y2), (x1, y2)]
        right = [(x2, y2), ((x1 + x2) / 2, y2), ((x1 + x2) / 2, y1), (x2, y1)]
        assert count_pips(scene.image, left) == count_pips(scene.image, right) == 0
        middle = scene.image[
            int(y1 + 10) : int(y2 - 10), int((x1 + x2) / 2 - 6) : int((x1 + x2) / 2 + 6)
        ]
        assert _ink(middle).sum() == 0  # no divider: a back is not a 0-0
    bx1, by1, bx2, by2 = blank.box
    middle = scene.image[
        int(by1 + 10) : int(by2 - 10), int((bx1 + bx2) / 2 - 6) : int((bx1 + bx2) / 2 + 6)
    ]
    assert _ink(middle).sum() > 0


def test_face_down_dominoes_in_random_scenes_never_get_a_label():
    face_down = 0
    for seed in range(30, 42):
        scene = render_scene_detailed(seed, size=(640, 480))
        face_down += len(scene.face_down)
        for back in scene.face_down:
            for domino in scene.dominoes:
                assert not np.allclose(back, domino.box, atol=1.0)
    assert face_down > 0


def test_dominoes_cut_off_by_the_photo_are_not_labelled():
    rows = [["1-2", "3-4", "5-6"], ["7-8", "9-10", "11-12"], ["0-1", "2-2", "4-4"]]
    scene = render_test_scene(rows, margin=-20)
    assert [d.label for d in scene.dominoes] == ["9-10"]  # only the middle one is whole
    whole = render_test_scene(rows)
    assert len(whole.dominoes) == 9
    # ... but they are listed apart with their true labels and the boxes of what shows
    h, w = scene.image.shape[:2]
    assert sorted(label for label, _box in scene.partial) == sorted(
        ["1-2", "3-4", "5-6", "7-8", "11-12", "0-1", "2-2", "4-4"]
    )
    for _label, (x1, y1, x2, y2) in scene.partial:
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
    assert whole.partial == ()


def test_every_domino_renderer_adds_the_partly_shown_after_the_labels():
    for look in (1, 3):
        image, every = render_scene_every_domino(3, look)
        scene = render_scene_detailed(3, look=look)
        assert np.array_equal(image, scene.image)
        assert every == scene.labels() + [(label, list(box)) for label, box in scene.partial]


def test_bad_layouts_and_sets_are_refused():
    for cell in ("13-1", "x", "3"):
        with pytest.raises(ValueError):
            render_test_scene([[cell]])
    with pytest.raises(ValueError):
        render_scene_detailed(0, set_name="double-eight")
    with pytest.raises(ValueError):
        random_style(np.random.default_rng(0), kind="gold")


def test_a_scene_renders_well_under_a_second():
    start = time.perf_counter()
    for seed in range(4):
        render_scene(seed)
    assert (time.perf_counter() - start) / 4 < 1.0


def test_look_3_low_camera_foreshortens_and_crops_inside_the_table():
    """The round-3 camera: the table squashed and its far edge narrowed, the photo cut from
    inside it (no mirrored border), so every photo corner maps back onto the canvas."""
    big_w, big_h, w, h = 1000, 800, 640, 480
    for seed in range(20):
        homography = low_camera(np.random.default_rng(seed), big_w, big_h, w, h)
        back = cv2.perspectiveTransform(
            np.float32([[[0, 0], [w, 0], [w, h], [0, h]]]), np.linalg.inv(homography)
        )[0]
        assert (back >= -1).all() and (back[:, 0] <= big_w + 1).all()
        assert (back[:, 1] <= big_h + 1).all()
        # Foreshortened: a square on the table comes out wider than deep.
        square = np.float32([[[400, 400], [500, 400], [500, 500], [400, 500]]])
        x, y = cv2.perspectiveTransform(square, homography)[0].T
        assert (x.max() - x.min()) > 1.05 * (y.max() - y.min())


@pytest.mark.parametrize("look", [3, 4])
def test_looks_3_and_4_scenes_hold_valid_dominoes(look):
    total = 0
    for seed in range(6):
        scene = render_scene_detailed(seed, size=(640, 480), look=look)
        assert scene.image.shape == (480, 640, 3)
        for domino in scene.dominoes:
            x1, y1, x2, y2 = domino.box
            assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 480
        total += len(scene.dominoes)
    assert total > 5


def test_dark_surfaces_are_dark():
    surface = dark_surface(np.random.default_rng(1), 200, 300)
    assert surface.shape == (200, 300, 3) and surface.mean() < 90


def test_look_4_renders_looks_1_to_3_as_they_were():
    """Look 4 draws nothing more for the looks before it: their training sets re-render (the
    rotated-box rounds re-render scenes by seed and refuse any that changed)."""
    labels = {
        look: [
            [d.label for d in render_scene_detailed(seed, look=look).dominoes] for seed in (1, 2)
        ]
        for look in (1, 2, 3)
    }
    assert labels[1] == [
        ["5-8", "8-9", "0-1", "0-5", "4-5", "4-7", "6-7", "7-7", "0-0", "1-2", "0-4", "0-3"],
        ["5-5", "2-6", "1-3", "1-1", "0-6", "3-3", "2-3"],
    ]
    assert labels[2] == [["5-8"], ["5-5", "2-6", "1-3", "1-1", "3-3"]]
    assert labels[3] == [
        ["1-1", "0-4", "3-9", "4-6", "3-8", "1-4", "6-8", "4-9", "3-5"],
        ["1-1", "1-6", "4-5", "5-5", "2-2", "1-3", "0-3", "6-6"],
    ]


def test_look_4_surfaces_are_busy_and_reproducible():
    """Every covering is a textured BGR image (not one flat colour), the same from one seed."""
    seen_textures = 0
    for seed in range(24):
        surface = patterned_surface(np.random.default_rng(seed), 120, 160)
        assert surface.shape == (120, 160, 3) and surface.dtype == np.uint8
        again = patterned_surface(np.random.default_rng(seed), 120, 160)
        assert np.array_equal(surface, again)
        # Fine texture: neighbouring pixels differ (a plain surface's would hardly).
        grey = surface.astype(float).mean(axis=2)
        seen_textures += np.abs(np.diff(grey, axis=1)).mean() > 0.8
    assert seen_textures >= 20


def test_look_4_side_by_side_close_up_fills_the_photo_with_touching_dominoes():
    rng = np.random.default_rng(3)
    w, h = 1000, 750
    for _ in range(20):
        styles = [random_style(rng, 12)]
        placed = _plan_side_by_side(rng, w, h, _Bag(rng, 12, 1), styles)
        assert 2 <= len(placed) <= 6
        assert len({p.chain for p in placed}) == 1 and all(p.halves for p in placed)
        centres = np.array([(p.cx, p.cy) for p in placed])
        steps = np.linalg.norm(np.diff(centres, axis=0), axis=1)
        width = placed[0].width
        # Long sides touching: one domino's width apart, give or take the gap and jitter.
        assert (steps > 0.9 * width).all() and (steps < 1.2 * width).all()
        assert len(placed) * width >= 0.3 * min(w, h)


def test_film_streaks_only_brighten():
    photo = np.full((200, 300, 3), 100, np.uint8)
    streaked = film_sheen(np.random.default_rng(0), photo)
    assert (streaked >= photo).all() and streaked.max() > 150


def test_a_style_kinds_limit_draws_printings_of_those_kinds_only():
    rng = np.random.default_rng(3)
    kinds = {random_style(rng, kinds=("black", "coloured")).kind for _ in range(40)}
    assert kinds == {"black", "coloured"}


def test_leave_one_out_scenes_render_the_named_look_and_kinds():
    from training.leave_one_out import render_styles

    image, labels, quads, partly_shown = render_styles(11, "mix:coded")
    assert image.ndim == 3 and labels and len(quads) == len(labels)
    assert all(isinstance(label, str) and len(box) == 4 for label, box in partly_shown)
    # the same scene as the generator's own, asked for directly
    same, same_labels = render_scene(11, look=1 + 11 % 3, style_kinds=("coded",))
    assert labels == same_labels and np.array_equal(image, same)
