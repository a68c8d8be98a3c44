"""One report per piece: the same label found twice on one piece is merged, neighbours are not."""

from __future__ import annotations

from vision.twostage import drop_repeats


def _piece(label, box, confidence):
    return {"label": label, "bbox": box, "confidence": confidence}


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
