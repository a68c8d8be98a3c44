"""Grouping detected pieces into the rows they lie in (melds on the table, rows of a rack).

Two pieces are neighbours in a row when they lie side by side along their short side: upright
pieces (box taller than wide) next to each other left-right, pieces turned a quarter (box wider
than tall) above each other. "Side by side" means the boxes overlap across the row by at least
half the smaller piece and the gap along the row is at most ``MAX_GAP`` of a piece's width:
touching or near-touching, as players lay melds. Rows of a rack touch top to bottom, which is
across the row, so each rack row is its own group.

With the pieces' rotated boxes (a rotated-box detector's: centre, sides, angle), the same
rule is applied in each piece's own frame, so that rows laid at any angle are found: a row at
40 degrees has axis-aligned boxes that overlap their neighbours by half and cannot tell side by
side from one above the other. Neighbours then also lie at about the same angle.

A group is ordered in reading order along its row (left to right; top to bottom for a vertical
row). Every piece is in exactly one group; a lone piece is a group of one. Groups are listed in
reading order of their first piece (top to bottom, then left to right).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

MAX_GAP = 0.45  # of the smaller piece's short side
MIN_OVERLAP = 0.5  # of the smaller piece's extent across the row
MAX_SIZE_RATIO = 1.6  # neighbours have about the same size
MAX_TURN = 20.0  # degrees: rotated neighbours lie at about the same angle

Rotated = tuple[tuple[float, float], tuple[float, float], float]  # centre, (w, h), degrees


def _upright(box: Sequence[float]) -> bool:
    return (box[3] - box[1]) >= (box[2] - box[0])


def _neighbours(a: Sequence[float], b: Sequence[float]) -> bool:
    """Whether two boxes lie side by side in one row."""
    aw, ah = a[2] - a[0], a[3] - a[1]
    bw, bh = b[2] - b[0], b[3] - b[1]
    if max(aw, bw) > MAX_SIZE_RATIO * min(aw, bw) or max(ah, bh) > MAX_SIZE_RATIO * min(ah, bh):
        return False
    if _upright(a) and _upright(b):  # row runs left-right
        return _in_row(a, b, along=0)
    if not _upright(a) and not _upright(b):  # row runs top-bottom
        return _in_row(a, b, along=1)
    return False


def _in_row(a: Sequence[float], b: Sequence[float], along: int) -> bool:
    """Side by side along axis ``along`` (0: x, 1: y): overlapping enough across, small gap."""
    cross = 1 - along
    a_along, b_along = a[along + 2] - a[along], b[along + 2] - b[along]
    a_cross, b_cross = a[cross + 2] - a[cross], b[cross + 2] - b[cross]
    overlap = min(a[cross + 2], b[cross + 2]) - max(a[cross], b[cross])
    if overlap < MIN_OVERLAP * min(a_cross, b_cross):
        return False
    gap = max(a[along], b[along]) - min(a[along + 2], b[along + 2])
    return gap <= MAX_GAP * min(a_along, b_along)


def _row_axis(rotated: Rotated) -> tuple[tuple[float, float], float, float]:
    """A rotated piece's row direction (along its short side) as a unit vector, and its short
    and long sides."""
    _centre, (w, h), angle = rotated
    a = math.radians(angle if w <= h else angle + 90.0)
    return (math.cos(a), math.sin(a)), min(w, h), max(w, h)


def _rotated_offset(a: Rotated, b: Rotated) -> tuple[float, float] | None:
    """``b``'s centre along and across ``a``'s row when the two lie side by side in one row
    (the rule of ``_in_row`` in ``a``'s own frame), else None."""
    (ua, va), short_a, long_a = _row_axis(a)
    (ub, vb), short_b, long_b = _row_axis(b)
    if max(short_a, short_b) > MAX_SIZE_RATIO * min(short_a, short_b):
        return None
    if max(long_a, long_b) > MAX_SIZE_RATIO * min(long_a, long_b):
        return None
    if abs(ua * ub + va * vb) < math.cos(math.radians(MAX_TURN)):  # rows not parallel
        return None
    dx, dy = b[0][0] - a[0][0], b[0][1] - a[0][1]
    along, across = dx * ua + dy * va, -dx * va + dy * ua
    if abs(across) > (1 - MIN_OVERLAP) * min(long_a, long_b):
        return None
    if abs(along) - (short_a + short_b) / 2 > MAX_GAP * min(short_a, short_b):
        return None
    return along, across


def group_rows(
    boxes: Sequence[Sequence[float]], rotated: Sequence[Rotated | None] | None = None
) -> list[list[int]]:
    """Indices of ``boxes`` grouped into rows, each in reading order (see module docstring).
    ``rotated``: the pieces' rotated boxes, where known (then used for pairs that have both)."""
    n = len(boxes)
    rotated = list(rotated) if rotated is not None else [None] * n
    # Link each piece only to its nearest neighbour on each side along the row: a piece in a
    # row has at most two row neighbours, which keeps two crowded rows from fusing.
    links = []
    for i in range(n):
        best: dict[int, tuple[float, int]] = {}
        for j in range(n):
            if i == j:
                continue
            ri, rj = rotated[i], rotated[j]
            if ri is not None and rj is not None:
                offset = _rotated_offset(ri, rj)
                if offset is None:
                    continue
                along = offset[0]
            elif _neighbours(boxes[i], boxes[j]):
                axis = 0 if _upright(boxes[i]) else 1
                ci = (boxes[i][axis] + boxes[i][axis + 2]) / 2
                cj = (boxes[j][axis] + boxes[j][axis + 2]) / 2
                along = cj - ci
            else:
                continue
            side = 1 if along > 0 else -1
            if side not in best or abs(along) < best[side][0]:
                best[side] = (abs(along), j)
        links += [(i, j) for _distance, j in best.values()]
    groups = connected_groups(n, links)

    def centre(i: int) -> tuple[float, float]:
        b = boxes[i]
        return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)

    ordered = []
    for members in groups:
        xs = [centre(i)[0] for i in members]
        ys = [centre(i)[1] for i in members]
        vertical = (max(ys) - min(ys)) > (max(xs) - min(xs))
        members.sort(key=lambda i: (centre(i)[1], centre(i)[0]) if vertical else centre(i))
        ordered.append(members)
    ordered.sort(key=lambda g: (_row_key(boxes, g[0]), centre(g[0])[0]))
    return ordered


def connected_groups(n: int, links: Sequence[tuple[int, int]]) -> list[list[int]]:
    """The connected groups of items 0..n-1 joined by ``links`` (union-find), each in index
    order, groups in order of their first seen root."""
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in links:
        parent[find(i)] = find(j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    return list(groups.values())


def _row_key(boxes: Sequence[Sequence[float]], i: int) -> float:
    b = boxes[i]
    return round((b[1] + b[3]) / 2 / max(1.0, b[3] - b[1]))  # same band for pieces of one row
