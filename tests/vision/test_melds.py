"""Meld grouping on known layouts."""

from __future__ import annotations

import pytest

from vision.melds import group_rows


def row(x0: float, y0: float, n: int, w: float = 60, h: float = 80, gap: float = 2):
    return [[x0 + i * (w + gap), y0, x0 + i * (w + gap) + w, y0 + h] for i in range(n)]


def test_two_separate_rows_in_reading_order():
    boxes = row(100, 400, 4) + row(50, 100, 3)
    assert group_rows(boxes) == [[4, 5, 6], [0, 1, 2, 3]]


def test_two_melds_on_one_line_split_by_a_wide_gap():
    boxes = row(0, 0, 3) + row(0 + 3 * 62 + 70, 0, 4)
    assert group_rows(boxes) == [[0, 1, 2], [3, 4, 5, 6]]


def test_near_touching_tiles_stay_together_and_order_follows_position():
    boxes = row(0, 0, 5, gap=15)  # gap a quarter of a tile: still one meld
    shuffled = [boxes[i] for i in (3, 0, 4, 2, 1)]
    assert group_rows(shuffled) == [[1, 4, 3, 0, 2]]


def test_rack_rows_touching_top_to_bottom_are_separate_groups():
    boxes = row(0, 0, 6, gap=0) + row(0, 80, 6, gap=0)
    assert group_rows(boxes) == [[0, 1, 2, 3, 4, 5], [6, 7, 8, 9, 10, 11]]


def test_a_slightly_tilted_row_is_one_group():
    boxes = [[i * 62, 10 + i * 12, i * 62 + 60, 10 + i * 12 + 80] for i in range(5)]
    assert group_rows(boxes) == [[0, 1, 2, 3, 4]]


def test_a_row_of_quarter_turned_tiles_reads_top_to_bottom():
    boxes = [[100, 10 + i * 62, 180, 10 + i * 62 + 60] for i in (2, 0, 1)]
    assert group_rows(boxes) == [[1, 2, 0]]


def test_lone_tiles_are_groups_of_one_and_every_tile_is_in_exactly_one_group():
    boxes = [*row(0, 0, 3), [600, 600, 660, 680], [900, 20, 960, 100]]
    groups = group_rows(boxes)
    assert sorted(i for g in groups for i in g) == list(range(5))
    assert [0, 1, 2] in groups and [3] in groups and [4] in groups


def test_tiles_of_very_different_size_are_not_one_row():
    boxes = [[0, 0, 60, 80], [62, 0, 182, 160]]
    assert sorted(group_rows(boxes)) == [[0], [1]]


def test_empty():
    assert group_rows([]) == []


def test_a_box_inside_a_much_larger_box_is_dropped_but_neighbours_stay():
    from vision.detector import Detection
    from vision.tiles import drop_nested

    tile = Detection((0, 0, 100, 135), 0.9, 0)
    digit = Detection((30, 40, 70, 90), 0.6, 0)  # the printed number found as a "tile"
    neighbour = Detection((98, 0, 198, 135), 0.9, 0)
    on_top = Detection((60, 60, 160, 195), 0.8, 0)  # overlapping, same size: a real tile
    assert drop_nested([tile, digit, neighbour, on_top]) == [tile, neighbour, on_top]


def test_a_box_far_smaller_than_the_photos_tiles_is_dropped_unless_at_the_edge():
    from vision.detector import Detection
    from vision.tiles import drop_undersized

    row = [Detection((100 + 102 * i, 100, 200 + 102 * i, 235), 0.9, 0) for i in range(4)]
    far = Detection((600, 400, 660, 480), 0.8, 0)  # 0.59 of the others: perspective, kept
    turned = Detection((700, 100, 835, 235), 0.9, 0, ((767.5, 167.5), (100.0, 135.0), 45.0))
    knot = Detection((893, 130, 951, 188), 0.5, 0)  # 0.43 of the others: not a tile
    cut_off = Detection((0, 300, 50, 360), 0.7, 0)  # at the photo's edge: part of a tile
    boxes = [*row, far, turned, knot, cut_off]
    assert drop_undersized(boxes, (750, 1000)) == [*row, far, turned, cut_off]
    # Too few boxes to know the photo's tile size: nothing is dropped.
    assert drop_undersized([row[0], knot], (750, 1000)) == [row[0], knot]


def turned_row(x0: float, y0: float, n: int, angle: float, w=60.0, h=80.0, gap=3.0, shift=0.0):
    """Rotated boxes of ``n`` upright tiles side by side in a row turned ``angle`` degrees
    (image y down), the row moved ``shift`` across itself; and their axis-aligned extents."""
    import math

    import cv2

    a = math.radians(angle)
    along, across = (math.cos(a), math.sin(a)), (-math.sin(a), math.cos(a))
    rotated, boxes = [], []
    for i in range(n):
        cx = x0 + i * (w + gap) * along[0] + shift * across[0]
        cy = y0 + i * (w + gap) * along[1] + shift * across[1]
        rotated.append(((cx, cy), (w, h), angle))
        corners = cv2.boxPoints(rotated[-1])
        boxes.append([*corners.min(0), *corners.max(0)])
    return boxes, rotated


@pytest.mark.parametrize("angle", [-45, -40, 35, 45])
def test_a_diagonal_row_is_one_group_with_its_rotated_boxes(angle):
    boxes, rotated = turned_row(200, 300, 5, angle, gap=12)  # near-touching
    assert group_rows(boxes, rotated) == [[0, 1, 2, 3, 4]]


def test_axis_aligned_extents_alone_break_up_a_row_at_45_degrees():
    boxes, _rotated = turned_row(200, 300, 5, 45, gap=12)
    assert len(group_rows(boxes)) == 5  # why the rotated boxes are used when known


def test_two_parallel_turned_rows_touching_stay_two_melds():
    first, first_rotated = turned_row(200, 300, 4, 35)
    second, second_rotated = turned_row(200, 300, 4, 35, shift=82)  # the next row, touching
    groups = group_rows(first + second, first_rotated + second_rotated)
    assert groups == [[4, 5, 6, 7], [0, 1, 2, 3]] or groups == [[0, 1, 2, 3], [4, 5, 6, 7]]


def test_rotated_pieces_across_each_other_are_not_one_row():
    upright = ((100.0, 100.0), (60.0, 80.0), 10.0)
    sideways = ((163.0, 100.0), (60.0, 80.0), 100.0)  # a quarter turn from its neighbour
    assert group_rows([[70, 60, 130, 140], [123, 70, 203, 130]], [upright, sideways]) == [[0], [1]]
