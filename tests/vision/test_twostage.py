"""The shared detect and read steps: tiling a photo for small pieces, more looks at a box."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from vision import twostage
from vision.detector import Detection
from vision.twostage import Looks, Passes, read_boxes, tile_starts


@pytest.mark.parametrize("overlap", [0.25, 0.125])
@pytest.mark.parametrize("length", [640, 641, 1000, 1067, 1200, 1600, 2399])
def test_tiles_cover_the_photo_and_overlap_by_at_least_the_share_asked(length, overlap):
    tile = 640
    starts = tile_starts(length, tile, overlap)
    assert starts[0] == 0
    assert starts[-1] + tile == max(length, tile)
    for a, b in itertools.pairwise(starts):
        assert a + tile - b >= tile * overlap  # a piece that long lies whole in one tile


def test_a_smaller_overlap_takes_fewer_tiles():
    assert len(tile_starts(1200, 640)) == 3 and len(tile_starts(1200, 640, 0.125)) == 2
    assert tile_starts(1600, 640) == [0, 480, 960]  # a quarter by default


def test_a_photo_smaller_than_a_tile_is_one_tile():
    assert tile_starts(300, 640) == [0]


class _Reader:
    """A fake reader: every crop cut at the estimated angle reads "unsure", every square cut
    (the second look, appended after them) reads "sure"; crops are told apart by position."""

    def __init__(self, estimated: int):
        self.estimated = estimated

    def run(self, _names, feeds):
        n = len(feeds["crops"]) // 2  # each crop and its half turn
        first = np.zeros((2 * n, 4), np.float32)
        second = np.zeros((2 * n, 3), np.float32)
        for i in range(2 * n):
            square = i % n >= self.estimated
            first[i] = [0.1, 0.9, 0.0, 0.0] if square else [0.4, 0.1, 0.1, 0.4]
            second[i] = [0.0, 1.0, 0.0] if square else [0.5, 0.5, 0.0]
        return first, second


@pytest.mark.parametrize("angle, second_look", [(30.0, True), (-20.0, True), (10.0, False)])
def test_a_box_far_from_its_estimated_angle_is_read_square_too(monkeypatch, angle, second_look):
    """An angle estimate more than ``square_beyond`` off the box's axes may be wrong (round
    pips outweigh a domino's sides): the box is read cut square too, the surer reading kept."""
    reader = _Reader(estimated=2)
    monkeypatch.setattr(twostage, "tile_angle", lambda _image, _box: angle)
    boxes = [Detection((10.0, 10.0, 50.0, 30.0), 0.9, 0), Detection((60, 10, 100, 30), 0.8, 0)]
    image = np.full((64, 128, 3), 200, np.uint8)
    readings = read_boxes(reader, image, boxes, 32, Looks(square_beyond=15.0))
    assert [r.detection for r in readings] == boxes
    for reading in readings:
        assert int(reading.first.argmax()) == (1 if second_look else 0)
    # off: only the estimated angle is read
    readings = read_boxes(reader, np.zeros((64, 128, 3), np.uint8), boxes, 32, Looks())
    assert all(int(r.first.argmax()) == 0 for r in readings)


@pytest.mark.parametrize("estimate, extra_look", [(30.0, True), (-25.0, True), (12.0, False)])
def test_a_rotated_box_far_from_its_edges_angle_is_read_at_the_estimate_too(
    monkeypatch, estimate, extra_look
):
    """A rotated box's angle (here 0 and 90 degrees: one fold) more than
    ``estimate_beyond`` off the angle estimated from the edges is also read cut at the
    estimate, and the surer reading kept; the square second look stays for unrotated boxes."""
    reader = _Reader(estimated=2)
    monkeypatch.setattr(twostage, "tile_angle", lambda _image, _box: estimate)
    boxes = [
        rotated_detection(30, 20, 40, 20, 0.0, 0.9),
        rotated_detection(80, 20, 20, 40, 90.0, 0.8),
    ]
    image = np.full((64, 128, 3), 200, np.uint8)
    looks = Looks(square_beyond=15.0, estimate_beyond=20.0)
    readings = read_boxes(reader, image, boxes, 32, looks)
    assert [r.detection for r in readings] == boxes
    assert all(int(r.first.argmax()) == (1 if extra_look else 0) for r in readings)
    # off: only the rotated box's angle is read
    readings = read_boxes(reader, image, boxes, 32, Looks(square_beyond=15.0))
    assert all(int(r.first.argmax()) == 0 for r in readings)


def test_edges_looks_cut_a_rotated_box_at_its_estimated_angle(monkeypatch):
    """``Looks(angle="edges")`` (tiles): the crop's angle is the edge estimate even where the
    detector gave a rotated box."""
    monkeypatch.setattr(twostage, "tile_angle", lambda _image, _box: 7.0)
    thetas = []
    cut = twostage.cut_crop

    def recording_cut(image, box, size, theta=None, sides=None):
        thetas.append(theta)
        return cut(image, box, size, theta=theta, sides=sides)

    monkeypatch.setattr(twostage, "cut_crop", recording_cut)
    boxes = [rotated_detection(30, 20, 40, 20, 30.0, 0.9)]
    image = np.full((64, 128, 3), 200, np.uint8)
    read_boxes(_Reader(estimated=1), image, boxes, 32, Looks(angle="edges"))
    read_boxes(_Reader(estimated=1), image, boxes, 32, Looks())
    assert thetas == [7.0, 30.0]


def test_turned_looks_read_every_box_cut_turned_and_keep_the_surest(monkeypatch):
    """With ``turned`` looks each box is also cut at its angle turned by each of them (a card
    index's rough angle estimate), and the surest reading is kept."""
    reader = _Reader(estimated=2)
    monkeypatch.setattr(twostage, "tile_angle", lambda _image, _box: 3.0)
    thetas = []
    cut = twostage.cut_crop

    def recording_cut(image, box, size, theta=None, sides=None):
        thetas.append(theta)
        return cut(image, box, size, theta=theta, sides=sides)

    monkeypatch.setattr(twostage, "cut_crop", recording_cut)
    boxes = [Detection((10.0, 10.0, 50.0, 30.0), 0.9, 0), Detection((60, 10, 100, 30), 0.8, 0)]
    image = np.full((64, 128, 3), 200, np.uint8)
    readings = read_boxes(reader, image, boxes, 32, Looks(turned=(10.0, -10.0)))
    assert thetas == [3.0, 3.0, 13.0, 13.0, -7.0, -7.0]
    assert all(int(r.first.argmax()) == 1 for r in readings)
    readings = read_boxes(reader, image, boxes, 32, Looks())
    assert all(int(r.first.argmax()) == 0 for r in readings)


def rotated_detection(cx, cy, w, h, angle, score):
    import cv2

    corners = cv2.boxPoints(((cx, cy), (w, h), angle))
    box = (*map(float, corners.min(0)), *map(float, corners.max(0)))
    return Detection(box, score, 0, ((cx, cy), (w, h), angle))


def test_passes_merge_by_rotated_overlap_when_every_box_is_rotated():
    """Dominoes side by side in a row turned 45 degrees: their extents overlap by a third,
    their rotated boxes not at all, so both stay even at a strict IoU; the same domino found
    by two passes is one."""
    first = rotated_detection(100, 100, 60, 30, 45, 0.9)
    neighbour = rotated_detection(100 - 21.2, 100 + 21.2, 60, 30, 45, 0.8)
    again = rotated_detection(101, 99, 58, 31, 44, 0.7)
    kept = twostage.suppress_overlaps([first, neighbour, again], conf=0.25, iou=0.25)
    assert kept == [first, neighbour]
    axis_only = [Detection(d.box, d.score, 0) for d in (first, neighbour, again)]
    assert len(twostage.suppress_overlaps(axis_only, conf=0.25, iou=0.25)) == 1


def test_a_rotated_box_follows_its_pass_back_to_the_photo():
    rotated = ((50.0, 40.0), (20.0, 10.0), 30.0)
    assert twostage.moved_rotated(rotated, -10, -5) == ((40.0, 35.0), (20.0, 10.0), 30.0)
    moved = twostage.moved_rotated(rotated, 10, 20, scale=0.5)
    assert moved == ((120.0, 120.0), (40.0, 20.0), 30.0)
    assert twostage.moved_rotated(None, 1, 1) is None


def test_detector_passes_alone_find_what_the_recogniser_finds(cards):
    """The training mines hard negatives with ``DetectorPasses`` alone (no reader): it must
    see the boxes the recogniser's own passes see (whole photo, tiles, zoomed out)."""
    from datasets.cards_synth import render_scene
    from vision.kinds import CARDS
    from vision.twostage import DetectorPasses

    tile_side, zoom_out = CARDS.passes.tile_side, CARDS.passes.zoom_out

    photo = render_scene(3, size=(1400, 1050)).image
    passes = DetectorPasses(cards.detector)
    alone = passes.detect(photo, Passes(0.25, zoom_out=zoom_out, tile_side=tile_side))
    full = cards.passes.detect(photo, Passes(0.25, zoom_out=zoom_out, tile_side=tile_side))
    assert alone and [d.box for d in alone] == [d.box for d in full]
    whole = passes.detect(photo, Passes(0.25))
    assert len(whole) < len(alone)  # the tiles find small indices the whole photo misses


class _Bright:
    """A stand-in detector that boxes the bright patch of whatever photo it is given, and
    only when the photo is taller than wide (as the card detector finds sideways indices
    only once the photo is turned)."""

    size = (640, 640)

    def detect(self, bgr, conf=0.25, iou=0.6, turned=False):
        if turned:  # the photo turned a quarter clockwise (``OnnxDetector.detect``)
            bgr = np.rot90(bgr, -1)
        ys, xs = np.nonzero(bgr[..., 0] > 200)
        if bgr.shape[0] <= bgr.shape[1] or not len(xs):
            return []
        box = (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))
        return [Detection(box, 0.9, 0)]


def test_the_quarter_turned_pass_finds_boxes_in_the_photos_own_pixels():
    photo = np.zeros((100, 200, 3), np.uint8)
    photo[10:30, 20:60] = 255  # x 20-60, y 10-30
    passes = twostage.DetectorPasses(_Bright())
    assert passes.detect(photo, Passes(0.25)) == []
    found = passes.detect(photo, Passes(0.25, quarter_turn=True))
    assert [d.box for d in found] == [(20.0, 10.0, 60.0, 30.0)]


def test_a_rotated_box_of_the_quarter_turned_pass_is_turned_back():
    class _Rotated:
        size = (640, 640)

        def detect(self, bgr, conf=0.25, iou=0.6, turned=False):
            # in the turned photo (200 x 100): a 40 x 20 box centred at (80, 40), at 10 degrees
            return [
                Detection((60.0, 30.0, 100.0, 50.0), 0.9, 0, ((80.0, 40.0), (40.0, 20.0), 10.0))
            ]

    photo = np.zeros((100, 200, 3), np.uint8)
    upright, found = twostage.DetectorPasses(_Rotated()).detect(
        photo, Passes(0.25, quarter_turn=True)
    )
    assert upright.box == (60.0, 30.0, 100.0, 50.0)  # the whole photo's, as found
    assert found.box == (30.0, 0.0, 50.0, 40.0)
    (cx, cy), sides, _angle = found.rotated
    assert (cx, cy) == pytest.approx((40.0, 20.0))  # (y, height - x) of the turned centre
    assert sorted(sides) == pytest.approx([20.0, 40.0])


def _boxes(short: float, long: float, count: int, score: float = 0.9) -> list[Detection]:
    """``count`` boxes ``short`` wide and ``long`` tall (photo pixels)."""
    return [Detection((10.0 * i, 0.0, 10.0 * i + short, long), score, 0) for i in range(count)]


SIZED = twostage.SizedPasses(tile_px=24.0, zoom_px=32.0)
PHOTO = (1200, 1600)  # h, w: the whole pass sees it at 0.4 of its pixels on a 640 px detector


def test_sized_passes_run_as_asked_where_the_whole_pass_boxes_nothing_surely():
    assert SIZED.choose([], PHOTO, 640, 2.0, 1600)[:2] == (2.0, 1600)
    assert SIZED.choose(_boxes(30, 60, 5, score=0.4), PHOTO, 640, 2.0, 1600)[:2] == (2.0, 1600)


def test_sized_passes_cut_the_tiles_as_fine_as_the_smaller_indices_need():
    # indices 30 px across in the photo are 12 px in the whole pass: 24 px needs 0.8 of the
    # photo's pixels (1280 px on the long side); 15 px across needs them all (at most 1600)
    assert SIZED.choose(_boxes(30, 90, 4), PHOTO, 640, 2.0, 1600)[:2] == (2.0, 1280)
    assert SIZED.choose(_boxes(15, 90, 4), PHOTO, 640, 2.0, 1600)[:2] == (2.0, 1600)
    # the smaller ones decide: one small among nine large still asks for (coarse) tiles
    assert SIZED.choose(_boxes(60, 90, 10), PHOTO, 640, 2.0, 1600)[1] is None
    mixed = _boxes(30, 90, 1) + _boxes(60, 90, 9)
    assert 640 < SIZED.choose(mixed, PHOTO, 640, 2.0, 1600)[1] < 1280


def test_sized_passes_cut_no_tiles_where_the_whole_pass_shows_the_indices_large():
    # 60 px across: 24 px in the whole pass already
    assert SIZED.choose(_boxes(60, 90, 3), PHOTO, 640, 2.0, 1600)[:2] == (2.0, None)
    # one box alone does not decide the tiles
    assert SIZED.choose(_boxes(60, 90, 1), PHOTO, 640, 2.0, 1600)[:2] == (2.0, 1600)


def test_sized_passes_cut_no_tiles_that_would_barely_enlarge_the_photo():
    # indices 30 px across need the photo at 1280 px: twice the whole pass's 640, tiled
    gaining = twostage.SizedPasses(tile_px=24.0, zoom_px=32.0, least_gain=1.15)
    assert gaining.choose(_boxes(30, 90, 4), PHOTO, 640, 2.0, 1600)[1] == 1280
    # 42 px across need it at 914 px: 1.43 times, tiled; 56 px across at 686 px: 1.07, not
    assert gaining.choose(_boxes(42, 90, 4), PHOTO, 640, 2.0, 1600)[1] == 914
    assert gaining.choose(_boxes(56, 90, 4), PHOTO, 640, 2.0, 1600)[1] is None
    assert SIZED.choose(_boxes(56, 90, 4), PHOTO, 640, 2.0, 1600)[1] == 686


def test_sized_tiles_overlap_by_what_the_largest_index_needs():
    spare = twostage.SizedPasses(tile_px=24.0, zoom_px=32.0, overlap_boxes=2.0)
    # boxes 90 px long in the photo are 72 px in 1280 px tiles: twice that is 0.225 of a tile
    chosen = spare.choose(_boxes(30, 90, 4), PHOTO, 640, 2.0, 1600)
    assert chosen == (2.0, 1280, pytest.approx(0.225))
    # never more than the overlap asked for, never less than ``least_overlap``
    assert spare.choose(_boxes(30, 200, 4), PHOTO, 640, 2.0, 1600)[2] == 0.25
    assert spare.choose(_boxes(15, 15, 4), PHOTO, 640, 2.0, 1600)[2] == 0.05
    # without it (or without tiles) the overlap asked for
    assert SIZED.choose(_boxes(30, 90, 4), PHOTO, 640, 2.0, 1600)[2] == 0.25
    assert spare.choose(_boxes(60, 90, 3), PHOTO, 640, 2.0, 1600, 0.25)[2] == 0.25


def test_sized_passes_zoom_out_only_for_a_close_ups_long_boxes():
    # 70 px long in the photo is 28 px in the whole pass: shorter than a close-up's
    assert SIZED.choose(_boxes(60, 70, 3), PHOTO, 640, 2.0, 1600)[:2] == (None, None)
    assert SIZED.choose(_boxes(60, 70, 3) + _boxes(60, 80, 1), PHOTO, 640, 2.0, 1600)[0] == 2.0


class _Counting:
    """A stand-in detector that boxes two large indices in any photo and counts its runs."""

    size = (640, 640)

    def __init__(self):
        self.runs = 0

    def detect(self, bgr, conf=0.25, iou=0.6, placed=None):
        self.runs += 1
        return _boxes(100, 150, 2)


def test_sized_passes_skip_the_tiles_the_whole_pass_makes_needless():
    photo = np.zeros((1200, 1600, 3), np.uint8)
    detector = _Counting()
    twostage.DetectorPasses(detector).detect(photo, Passes(0.25, zoom_out=2.0, tile_side=1600))
    assert detector.runs == 1 + 1 + 9  # whole, zoomed out, nine tiles
    detector.runs = 0
    twostage.DetectorPasses(detector).detect(
        photo, Passes(0.25, zoom_out=2.0, tile_side=1600, sized=SIZED)
    )
    assert detector.runs == 1 + 1  # whole and zoomed out (its boxes are a close-up's)


class _OnlyZoomedOut:
    """A stand-in detector that boxes an index only in a photo shrunk at least ``least`` times
    (a close-up's index, larger than any it learned), counting its runs."""

    size = (640, 640)

    def __init__(self, least: float, long: float = 150.0):
        self.least, self.long, self.runs = least, long, 0

    def detect(self, bgr, conf=0.25, iou=0.6, placed=None):
        self.runs += 1
        shrunk = 1.0 if placed is None else placed.height / bgr.shape[0]
        if shrunk < self.least:
            return []
        left, top = (0, 0) if placed is None else (placed.left, placed.top)
        return [Detection((left + 10.0, top + 10.0, left + 110.0, top + 10 + self.long), 0.9, 0)]


def test_a_close_up_found_by_no_pass_is_zoomed_out_further():
    """``zoom_further`` runs only where the whole and zoomed-out passes found nothing (one card
    filling the frame), and not at all without a zoomed-out pass."""
    photo = np.zeros((1600, 1200, 3), np.uint8)
    further = Passes(0.25, zoom_out=2.0, zoom_further=4.0)
    detector = _OnlyZoomedOut(least=4.0)
    found = twostage.DetectorPasses(detector).detect(photo, further)
    assert len(found) == 1 and detector.runs == 3  # whole, 2x, 4x
    detector = _OnlyZoomedOut(least=2.0)
    assert len(twostage.DetectorPasses(detector).detect(photo, further)) == 1
    assert detector.runs == 2  # found at 2x: no further
    detector = _OnlyZoomedOut(least=4.0)
    assert twostage.DetectorPasses(detector).detect(photo, Passes(0.25, zoom_out=2.0)) == []
    assert twostage.DetectorPasses(detector).detect(photo, Passes(0.25, zoom_further=4.0)) == []
    assert detector.runs == 2 + 1
    # sized: boxed at 2x, but as long as a close-up's (32 px of the zoomed-out input or more)
    sized = replace(further, sized=SIZED)
    for long, runs in ((150.0, 2), (400.0, 3)):  # 150 px is 20 px at 2x: a table's index
        detector = _OnlyZoomedOut(least=2.0, long=long)
        twostage.DetectorPasses(detector).detect(photo, sized)
        assert detector.runs == runs, long


def _one_hot(n: int, size: int, p: float = 0.9) -> np.ndarray:
    out = np.full(size, (1 - p) / (size - 1))
    out[n] = p
    return out


def test_a_domino_read_half_by_half_takes_the_count_each_half_shows_alone():
    """A ring of ten taken for eight beside a nine (smaller half read 8) is read 9-10 once
    each half, read alone as a double, says 9 and 10; "none" keeps its share."""
    smaller = np.append(0.55 * _one_hot(8, 13, 0.7) + 0.25 * _one_hot(9, 13, 0.7), 0.2)
    smaller = smaller / smaller.sum() * 1.0
    larger = _one_hot(10, 13, 0.7)
    reading = twostage.Reading(Detection((0, 0, 10, 20), 0.9, 0), smaller, larger)
    nine = (np.append(_one_hot(9, 13), 0.0), _one_hot(9, 13))
    ten = (np.append(_one_hot(10, 13), 0.0), _one_hot(10, 13))
    merged = twostage.merged_with_halves(reading, ten, nine)
    assert int(np.argmax(merged.first[:-1])) == 9 and int(np.argmax(merged.second)) == 10
    assert np.isclose(merged.first[-1], reading.first[-1])  # "none" as it was
    assert np.isclose(merged.first.sum(), 1) and np.isclose(merged.second.sum(), 1)
    # halves that agree with the reading leave it as it was
    same = twostage.merged_with_halves(reading, (reading.first, reading.first[:-1]), ten)
    assert int(np.argmax(same.second)) == 10


def test_a_crop_doubles_each_half_with_itself_turned():
    crop = np.arange(8 * 4 * 3, dtype=np.uint8).reshape(8, 4, 3)
    top, bottom = twostage.doubled_halves(crop)
    assert top.shape == bottom.shape == crop.shape
    assert (top[:4] == crop[:4]).all() and (top[4:] == crop[:4][::-1, ::-1]).all()
    assert (bottom[4:] == crop[4:]).all() and (bottom[:4] == crop[4:][::-1, ::-1]).all()


@pytest.mark.parametrize(
    ("angle", "off"), [(0, 0), (30, 30), (45, 45), (60, 30), (-10, 10), (100, 10)]
)
def test_off_axes_is_the_angle_to_the_nearer_axis(angle, off):
    assert twostage.off_axes(angle) == pytest.approx(off)


def test_a_diagonal_passs_box_on_a_piece_is_its_twin_and_a_lone_one_is_a_piece():
    short = rotated_detection(200, 200, 40, 90, 45, 0.9)  # boxed short by the upright pass
    other = rotated_detection(500, 200, 40, 120, 10, 0.9)
    twin = rotated_detection(202, 200, 40, 120, 45, 0.9)  # the same piece, its full length
    again = rotated_detection(198, 201, 38, 118, 44, 0.9)  # a second box of it: left out
    lone = rotated_detection(200, 500, 40, 120, 45, 0.9)  # a piece only the diagonal pass found
    kept = twostage.with_twins([short, other], [twin, again, lone])
    assert [d.box for d in kept] == [short.box, other.box, lone.box]
    assert kept[0].twin == twin and kept[1].twin is None and kept[2].twin is None


class _Diagonal:
    """A fake rotated-box detector: on the upright photo (not square) a box at ``angle``; on the
    diagonal pass's square canvas, a box square to it at the canvas's centre."""

    size = (640, 640)

    def __init__(self, angle: float):
        self.angle, self.calls = angle, []

    def detect(self, bgr, conf=0.25, iou=0.6):
        h, w = bgr.shape[:2]
        self.calls.append((h, w))
        if h != w:
            return [rotated_detection(100, 50, 30, 60, self.angle, 0.9)]
        return [rotated_detection(w / 2, h / 2, 40, 120, 0.0, 0.9)]


@pytest.mark.parametrize(
    ("angle", "turned"), [(5.0, False), (24.0, False), (30.0, True), (-45.0, True)]
)
def test_the_diagonal_pass_runs_where_a_box_lies_off_the_axes(angle, turned):
    detector = _Diagonal(angle)
    photo = np.zeros((100, 200, 3), np.uint8)
    found = twostage.DetectorPasses(detector).detect(photo, Passes(0.25, diagonal_beyond=25.0))
    side = int(np.ceil(300 * np.sqrt(0.5)))  # the turned photo's every corner kept
    assert detector.calls == [(100, 200), (side, side)] if turned else [(100, 200)]
    if turned:  # the canvas's centre is the photo's; the box turned back by 45 degrees
        assert len(found) == 1 and found[0].twin is not None
        (cx, cy), sides, box_angle = found[0].twin.rotated
        assert (cx, cy) == pytest.approx((100.0, 50.0), abs=0.5)
        assert sorted(sides) == pytest.approx([40.0, 120.0], abs=0.5)
        assert twostage.off_axes(box_angle) == pytest.approx(45.0, abs=0.5)


class _Brightness:
    """A fake reader: a crop bright on average reads "1" surely, a dark one unsurely."""

    def run(self, _names, feeds):
        crops = feeds["crops"]
        bright = crops.reshape(len(crops), -1).mean(axis=1) > 0.5
        first = np.where(bright[:, None], [0.02, 0.96, 0.02], [0.4, 0.3, 0.3]).astype(np.float32)
        second = np.where(bright[:, None], [0.0, 1.0], [0.5, 0.5]).astype(np.float32)
        return first, second


def test_a_twin_read_surer_is_kept_with_its_box():
    photo = np.zeros((300, 300, 3), np.uint8)
    photo[100:200, 100:200] = 255  # what the twin's box holds; the upright box is mostly dark
    upright = rotated_detection(60, 60, 60, 60, 0.0, 0.9)
    twin = rotated_detection(150, 150, 90, 90, 0.0, 0.9)
    readings = read_boxes(_Brightness(), photo, [replace(upright, twin=twin)], 32, Looks())
    assert readings[0].detection == twin and readings[0].first.argmax() == 1
    readings = read_boxes(_Brightness(), photo, [replace(twin, twin=upright)], 32, Looks())
    assert readings[0].detection.rotated == twin.rotated
