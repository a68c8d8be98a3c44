"""One report per piece: the same label found twice on one piece is merged, neighbours are not."""

from __future__ import annotations

from dataclasses import replace

from vision.settings import Piece
from vision.twostage import doubt_repeats, drop_repeats


def _piece(label, box, confidence):
    return Piece(label, box, confidence)


def test_one_tile_found_twice_is_reported_once_with_its_best_reading():
    pieces = [
        _piece("orange-3", [464, 308, 526, 359], 0.76),
        _piece("red-5", [100, 100, 150, 160], 0.9),
        _piece("orange-3", [479, 304, 532, 353], 0.77),
    ]
    assert drop_repeats(pieces, 0.5) == [pieces[1], pieces[2]]


def test_two_tiles_with_one_label_side_by_side_are_both_kept():
    pieces = [_piece("red-7", [0, 0, 50, 70], 0.9), _piece("red-7", [48, 0, 98, 70], 0.8)]
    assert drop_repeats(pieces, 0.5) == pieces


def test_different_labels_on_overlapping_boxes_are_kept():
    pieces = [_piece("red-7", [0, 0, 50, 70], 0.9), _piece("red-1", [5, 5, 50, 70], 0.4)]
    assert drop_repeats(pieces, 0.5) == pieces


def test_with_any_label_one_place_is_one_piece_read_the_surer_way():
    pieces = [_piece("AH", [186, 254, 229, 292], 0.84), _piece("JK", [173, 252, 232, 290], 0.66)]
    assert drop_repeats(pieces, 0.5, any_label=True) == [pieces[0]]


def test_a_tile_read_whole_and_on_a_box_over_its_right_half_is_sure_neither_way():
    """Rendered held-out rack: a blue 13 boxed whole and again over its 3 (read 3, sure)."""
    whole = replace(_piece("blue-13", [593, 332, 688, 398], 0.6), agreed=True)
    part = replace(_piece("blue-3", [621, 327, 692, 392], 0.9), agreed=True)
    beside = replace(_piece("blue-2", [690, 330, 745, 395], 0.9), agreed=True)
    doubted = doubt_repeats([whole, part, beside], 0.8)
    assert [p.agreed for p in doubted] == [False, False, True]
    assert [p.label for p in doubted] == ["blue-13", "blue-3", "blue-2"]


def test_a_tile_of_an_upper_tier_hiding_part_of_the_lower_one_leaves_both_as_read():
    upper = replace(_piece("red-4", [100, 100, 160, 180], 0.9), agreed=True)
    lower = replace(_piece("black-9", [100, 150, 160, 230], 0.9), agreed=True)
    assert doubt_repeats([upper, lower], 0.8) == [upper, lower]


def _domino(label, cx, cy, angle, confidence, length=120.0):
    import cv2

    rotated = ((cx, cy), (length / 2, length), angle)
    corners = cv2.boxPoints(rotated)
    box = [*map(float, corners.min(0)), *map(float, corners.max(0))]
    return replace(_piece(label, box, confidence), rotated=rotated)


def test_dominoes_side_by_side_at_45_degrees_are_told_apart_by_their_rotated_boxes():
    """Their extents share more than half, their rotated boxes nothing: both kept."""
    step = 62 / 2**0.5  # a domino's width and a little, along the diagonal
    pieces = [_domino("3-5", 200, 200, 45, 0.9), _domino("2-6", 200 + step, 200 - step, 45, 0.8)]
    assert drop_repeats(pieces, 0.5, any_label=True) == pieces


def test_one_domino_boxed_twice_is_reported_once_whatever_the_shorter_box_reads():
    pieces = [_domino("0-6", 200, 200, 45, 0.88), _domino("2-7", 205, 195, 47, 0.37, 80.0)]
    assert drop_repeats(pieces, 0.5, any_label=True) == [pieces[0]]
