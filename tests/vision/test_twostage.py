"""The shared detect-and-read stages: tiling a photo for small pieces."""

from __future__ import annotations

import itertools

import pytest

from vision.twostage import _tile_starts


@pytest.mark.parametrize("length", [640, 641, 1000, 1067, 1600, 2399])
def test_tiles_cover_the_photo_and_overlap_by_a_quarter(length):
    tile = 640
    starts = _tile_starts(length, tile)
    assert starts[0] == 0
    assert starts[-1] + tile == max(length, tile)
    for a, b in itertools.pairwise(starts):
        assert a + tile - b >= tile // 4  # a piece up to a quarter tile long lies whole in one


def test_a_photo_smaller_than_a_tile_is_one_tile():
    assert _tile_starts(300, 640) == [0]
