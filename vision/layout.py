"""Grouping detected dominoes into chains and rows, and cards into hands and melds.

Same output shape as ``vision.melds.group_rows``: lists of indices into the input, every index
in exactly one group, each group in its own order, groups in reading order of their first piece
(top to bottom in bands, then left to right).

Dominoes (``group_chains``)
---------------------------
A detector gives axis-aligned boxes, and the box of a domino lying at 30 degrees is much larger
than the domino: the boxes of neighbours in a diagonal chain overlap, and so do the boxes of two
diagonal chains lying a domino-width apart. So each box is first turned back into the domino it
holds: the rectangle of aspect ``ASPECT`` (length / width) whose axis-aligned box is the
detected box. That fixes the domino's width and the size of its angle; the sign of a diagonal
angle (down or up to the right) is not in the box, so a diagonal domino has two candidate
rectangles ("poses").

Two rectangles touch when

- the gap between them (the largest separation along their own axes) is at most ``MAX_GAP`` of
  the smaller width; they may overlap by up to ``MAX_OVERLAP`` of it (they are estimates),
- they are parallel or perpendicular, within ``ANGLE_TOLERANCE`` degrees,
- across the gap they overlap by at least ``MIN_ACROSS`` of the smaller extent (end to end: the
  width; side by side: the length; an L-turn or a crosswise double: the width of the turning
  tile), so dominoes meeting only at their corners do not touch.

Each diagonal domino then settles on one pose, so that as many contacts as possible hold and no
two rectangles lie deeply on each other (``OVERLAP_COST``): in a row of steep dominoes lying side
by side, the wrong sign puts every second tile end to end and neighbours on top of each other.
The groups are the sets of dominoes touching directly or through others, with one exception: the
rows of a rack touch end to end, so an end-to-end contact between two dominoes that both lie side
by side with others does not join their rows. Two chains lying along each other, touching, are one
group (nothing in the boxes tells them from a row). Measured on ``datasets.dominoes_synth``
scenes: see ``docs/choices/layout.md``.

A group is walked from an end (a domino with one neighbour; of the ends, the left one when they
lie more across than down, the top one otherwise) from neighbour to neighbour, so an L keeps its
order around the corner. A group without an end (a ring) starts at its leftmost (or top) domino;
at a branch the walk takes the nearer neighbour first and comes back (depth first).

Cards (``group_cards``)
-----------------------
A card is known by the boxes of its visible corner indices (rank over suit): one or two, four on
four-index decks. Two cards are linked when some pair of their index boxes lies within
``CARD_LINK`` times the larger index box's long side (centre to centre); a group is a set of
cards linked directly or through others (a fan, an overlapped hand, a meld laid in a row with
small gaps). A group is ordered along its main direction: the principal axis of its cards'
places, pointing right (down for a group that runs more down than across). A card showing
several indices is placed by the one nearest to a one-index card's (the top card of a fan also
shows its far corner), or by their middle when every card of the group shows several. Groups
are listed in reading order of their first card's top index, in bands of 3 median index lengths
(about a card width).

``CARD_LINK`` = 4.5: a meld laid apart (cards side by side with gaps of a tenth of a card, both
indices showing) needs up to 4.2 with the small indices of some decks; fans and overlapped rows
need under 2. Cards of other groups lying closer than that are joined: on cluttered tables
(``datasets.cards_synth`` scenes) this is the commoner error (``docs/choices/layout.md``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vision.melds import connected_groups

ASPECT = 2.0  # domino length / width (real sets: about 1.9 to 2.1)
MAX_GAP = 0.3  # of the smaller domino width
MAX_OVERLAP = 0.35  # of the smaller domino width: estimated rectangles may overlap this much
MIN_ACROSS = 0.6  # overlap across the gap, of the smaller extent across it
OVERLAP_COST = 3.0  # settling angles: rectangles lying on each other cost this many contacts
ANGLE_TOLERANCE = 20.0  # degrees off parallel or perpendicular
SINGLE_ANGLE = 2.0  # within this of 0 or 90 degrees a domino's angle has no sign to guess
CARD_LINK = 4.5  # of the larger index box's long side, centre to centre

Box = Sequence[float]


def _check_box(box: Box) -> tuple[float, float, float, float]:
    if len(box) != 4:
        raise ValueError(f"a box is [x1, y1, x2, y2], not {list(box)!r}")
    x1, y1, x2, y2 = (float(v) for v in box)
    if not (x2 >= x1 and y2 >= y1) or not all(map(math.isfinite, (x1, y1, x2, y2))):
        raise ValueError(f"a box is [x1, y1, x2, y2] with x1 <= x2 and y1 <= y2, not {list(box)}")
    return x1, y1, x2, y2


# ------------------------------------------------------------------------------- dominoes


@dataclass(frozen=True)
class _Pose:
    """One reading of a box: the domino's long axis (radians from the x axis) and its size."""

    angle: float
    width: float
    length: float


@dataclass(frozen=True)
class _Domino:
    centre: tuple[float, float]
    poses: tuple[_Pose, ...]  # two for a diagonal domino: down or up to the right

    @property
    def width(self) -> float:
        return self.poses[0].width


def _domino_in_box(box: Box) -> _Domino:
    """The rectangles of aspect ``ASPECT`` whose axis-aligned box is ``box``.

    With c = |cos a|, s = |sin a| of the long axis: box width = W (A c + s), box height =
    W (A s + c), so W (c + s) and W (c - s) follow from their sum and difference.
    """
    x1, y1, x2, y2 = _check_box(box)
    bw, bh = max(x2 - x1, 1e-6), max(y2 - y1, 1e-6)
    plus = (bw + bh) / (ASPECT + 1)  # W (c + s)
    minus = (bw - bh) / (ASPECT - 1)  # W (c - s)
    minus = max(-plus, min(plus, minus))  # a box more elongated than a domino: lying flat
    width = math.sqrt((plus * plus + minus * minus) / 2)
    angle = math.atan2(plus - minus, plus + minus)  # in [0, pi/2]
    degrees = math.degrees(angle)
    signs = (1,) if degrees < SINGLE_ANGLE or degrees > 90 - SINGLE_ANGLE else (1, -1)
    poses = tuple(_Pose(sign * angle, width, ASPECT * width) for sign in signs)
    return _Domino(((x1 + x2) / 2, (y1 + y2) / 2), poses)


@dataclass(frozen=True)
class _Contact:
    kind: str  # "end" (end to end), "side" (side by side), "corner" (perpendicular), "overlap"
    gap: float  # in widths of the smaller domino; negative: the rectangles overlap


def _axes(angle: float) -> tuple[np.ndarray, np.ndarray]:
    u = np.array([math.cos(angle), math.sin(angle)])
    return u, np.array([-u[1], u[0]])


def _contact(
    centre_a: tuple[float, float], a: _Pose, centre_b: tuple[float, float], b: _Pose
) -> _Contact | None:
    """How two domino rectangles touch, None when they do not (see the module docstring).

    "overlap": they would lie on each other by more than ``MAX_OVERLAP``, which real dominoes
    do not: evidence against these poses.
    """
    ua, va = _axes(a.angle)
    ub, vb = _axes(b.angle)
    d = np.subtract(centre_b, centre_a)

    def half_extent(pose: _Pose, u: np.ndarray, v: np.ndarray, axis: np.ndarray) -> float:
        return pose.length / 2 * abs(u @ axis) + pose.width / 2 * abs(v @ axis)

    # Separating axes: the largest separation along the rectangles' own axes is their gap
    # (negative: how deep they overlap).
    best: tuple[float, np.ndarray] | None = None
    for axis in (ua, va, ub, vb):
        separation = abs(d @ axis) - half_extent(a, ua, va, axis) - half_extent(b, ub, vb, axis)
        if best is None or separation > best[0]:
            best = (separation, axis)
    assert best is not None
    separation, axis = best
    unit = min(a.width, b.width)
    if separation < -MAX_OVERLAP * unit:
        return _Contact("overlap", separation / unit)
    if separation > MAX_GAP * unit:
        return None
    turn = math.degrees(abs(a.angle - b.angle)) % 180
    off_parallel = min(turn, 180 - turn)
    parallel = off_parallel <= ANGLE_TOLERANCE
    if not parallel and abs(off_parallel - 90) > ANGLE_TOLERANCE:
        return None
    across = np.array([-axis[1], axis[0]])
    ha, hb = half_extent(a, ua, va, across), half_extent(b, ub, vb, across)
    offset = float(d @ across)
    overlap = min(ha, offset + hb) - max(-ha, offset - hb)
    if overlap < MIN_ACROSS * 2 * min(ha, hb):
        return None
    if not parallel:
        return _Contact("corner", separation / unit)
    return _Contact("end" if abs(axis @ ua) > abs(axis @ va) else "side", separation / unit)


def _near(a: _Domino, b: _Domino) -> bool:
    reach = (a.poses[0].length + b.poses[0].length) / 2 + MAX_GAP * min(a.width, b.width)
    return math.dist(a.centre, b.centre) <= reach * 1.05


def _value(contact: _Contact | None) -> float:
    """What a contact is worth when settling poses: a closer fit a little more, overlap costs."""
    if contact is None:
        return 0.0
    if contact.kind == "overlap":
        return -OVERLAP_COST
    return 1.0 + 1.0 / (1.0 + abs(contact.gap))


def _settle(
    dominoes: Sequence[_Domino], table: dict[tuple[int, int], list[list[_Contact | None]]]
) -> list[int]:
    """One pose per domino, so that as many contacts as possible hold at once.

    Start from each domino's best pose against any of its neighbours' poses, then repeat until
    nothing gains: switch single dominoes, and switch whole groups at once, every member to its
    other sign (a side-by-side row of steep dominoes also fits the wrong sign, every second tile
    end to end, and no single tile can leave that state without losing contacts).
    """
    n = len(dominoes)
    near: list[list[int]] = [[] for _ in range(n)]
    for i, j in table:
        near[i].append(j)
        near[j].append(i)

    def value(i: int, a: int, j: int, b: int) -> float:
        return _value(table[(i, j)][a][b] if i < j else table[(j, i)][b][a])

    def votes(i: int) -> list[float]:
        return [
            sum(max(value(i, a, j, b) for b in range(len(dominoes[j].poses))) for j in near[i])
            for a in range(len(dominoes[i].poses))
        ]

    chosen = [int(np.argmax(votes(i))) for i in range(n)]

    def gain(change: dict[int, int]) -> float:
        total = 0.0
        for i, a in change.items():
            for j in near[i]:
                if j in change:
                    if j > i:  # each pair inside once
                        total += value(i, a, j, change[j]) - value(i, chosen[i], j, chosen[j])
                else:
                    total += value(i, a, j, chosen[j]) - value(i, chosen[i], j, chosen[j])
        return total

    def flipped(members: Sequence[int]) -> dict[int, int]:
        return {i: (1 - chosen[i] if len(dominoes[i].poses) == 2 else chosen[i]) for i in members}

    for _ in range(10):
        changed = False
        for i in range(n):
            if len(dominoes[i].poses) == 2 and gain(flipped([i])) > 1e-9:
                chosen[i] = 1 - chosen[i]
                changed = True
        links = [(i, j) for i, j in table if value(i, chosen[i], j, chosen[j]) > 0]
        for members in connected_groups(n, links):
            change = flipped(members)
            if len(members) > 1 and gain(change) > 1e-9:
                for i, a in change.items():
                    chosen[i] = a
                changed = True
        if not changed:
            break
    return chosen


def _contacts(dominoes: Sequence[_Domino]) -> dict[tuple[int, int], _Contact]:
    """Touching pairs (i < j), after each domino settled on one pose."""
    n = len(dominoes)
    table = {
        (i, j): [
            [_contact(dominoes[i].centre, a, dominoes[j].centre, b) for b in dominoes[j].poses]
            for a in dominoes[i].poses
        ]
        for i in range(n)
        for j in range(i + 1, n)
        if _near(dominoes[i], dominoes[j])
    }
    chosen = _settle(dominoes, table)
    out: dict[tuple[int, int], _Contact] = {}
    for (i, j), options in table.items():
        contact = options[chosen[i]][chosen[j]]
        if contact is not None and contact.kind != "overlap":
            out[(i, j)] = contact
    # Two rows of a rack touch end to end: an end-to-end contact between two dominoes that both
    # lie side by side with others does not join their rows.
    in_row = [False] * n
    for (i, j), contact in out.items():
        if contact.kind == "side":
            in_row[i] = in_row[j] = True
    return {
        (i, j): c for (i, j), c in out.items() if not (c.kind == "end" and in_row[i] and in_row[j])
    }


def _first_along(points: Sequence[tuple[float, float]], candidates: Sequence[int]) -> int:
    """Of ``candidates``, the left one along a line that runs across, the top one otherwise."""
    xs = [points[i][0] for i in candidates]
    ys = [points[i][1] for i in candidates]
    across = (max(xs) - min(xs)) >= (max(ys) - min(ys))
    return min(
        candidates, key=lambda i: (points[i][0], points[i][1]) if across else points[i][::-1]
    )


def _walk(
    members: list[int], neighbours: dict[int, list[int]], points: Sequence[tuple[float, float]]
) -> list[int]:
    """Depth-first walk from an end, nearer neighbours first (a path: end to end)."""
    if len(members) == 1:
        return members
    ends = [i for i in members if len(neighbours[i]) == 1]
    start = _first_along(points, ends if ends else members)
    order: list[int] = []
    seen: set[int] = set()
    stack = [start]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        order.append(i)
        nxt = sorted(
            (j for j in neighbours[i] if j not in seen),
            key=lambda j: math.dist(points[i], points[j]),
        )
        stack.extend(reversed(nxt))
    return order


def _reading_order(
    groups: list[list[int]], points: Sequence[tuple[float, float]], band: float
) -> list[list[int]]:
    band = max(band, 1e-6)
    return sorted(groups, key=lambda g: (round(points[g[0]][1] / band), points[g[0]][0]))


def group_chains(boxes: Sequence[Box]) -> list[list[int]]:
    """Indices of domino ``boxes`` ([x1, y1, x2, y2]) grouped into chains and rows, in order."""
    dominoes = [_domino_in_box(b) for b in boxes]
    if not dominoes:
        return []
    contacts = _contacts(dominoes)
    neighbours: dict[int, list[int]] = {i: [] for i in range(len(dominoes))}
    for i, j in contacts:
        neighbours[i].append(j)
        neighbours[j].append(i)
    points = [d.centre for d in dominoes]
    groups = [_walk(g, neighbours, points) for g in connected_groups(len(dominoes), list(contacts))]
    band = float(np.median([d.width for d in dominoes]))
    return _reading_order(groups, points, band)


# ---------------------------------------------------------------------------------- cards


def group_cards(cards: Sequence[Sequence[Box]]) -> list[list[int]]:
    """Indices of ``cards`` (each: the boxes of its visible corner indices) grouped, in order."""
    boxes: list[list[tuple[float, float, float, float]]] = []
    for i, card in enumerate(cards):
        if len(card) == 0:
            raise ValueError(f"card {i} has no corner index box: a card is known by its indices")
        boxes.append([_check_box(b) for b in card])
    if not boxes:
        return []
    centres = [[((b[0] + b[2]) / 2, (b[1] + b[3]) / 2) for b in card] for card in boxes]
    long_sides = [[max(b[2] - b[0], b[3] - b[1]) for b in card] for card in boxes]
    links = []
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            if any(
                math.dist(ci, cj) <= CARD_LINK * max(li, lj)
                for ci, li in zip(centres[i], long_sides[i], strict=True)
                for cj, lj in zip(centres[j], long_sides[j], strict=True)
            ):
                links.append((i, j))
    groups = [_order_cards(g, centres) for g in connected_groups(len(boxes), links)]
    firsts = [min(c, key=lambda p: (p[1], p[0])) for c in centres]  # a card's top index
    band = 3 * float(np.median([s for card in long_sides for s in card]))  # about a card width
    return _reading_order(groups, firsts, band)


def _order_cards(members: list[int], centres: Sequence[Sequence[tuple[float, float]]]) -> list[int]:
    """Along the principal axis of the cards' places, right (or down) first.

    A card's place is its index when it shows one (the usual in a hand). A card showing several
    is placed by its index nearest to a one-index card's (the top card of a fan or an overlapped
    row also shows its far corner, which lies out of line), or, when every card shows several
    (a meld laid apart), by the middle of its indices (the card's centre when they are two).
    """
    if len(members) == 1:
        return members
    single = [centres[i][0] for i in members if len(centres[i]) == 1]

    def place(i: int) -> tuple[float, float]:
        if len(centres[i]) == 1:
            return centres[i][0]
        if single:
            return min(centres[i], key=lambda p: min(math.dist(p, q) for q in single))
        return (
            float(np.mean([p[0] for p in centres[i]])),
            float(np.mean([p[1] for p in centres[i]])),
        )

    places = {i: place(i) for i in members}
    points = np.array(list(places.values()))
    _, _, vt = np.linalg.svd(points - points.mean(axis=0), full_matrices=False)
    axis = vt[0]
    if abs(axis[0]) >= abs(axis[1]):
        axis = axis if axis[0] > 0 else -axis
    else:
        axis = axis if axis[1] > 0 else -axis
    return sorted(members, key=lambda i: float(np.dot(places[i], axis)))
