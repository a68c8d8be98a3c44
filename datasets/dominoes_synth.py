"""Synthetic photos of dominoes on tables, with exact labels.

Each scene: a table surface and the photo effects of the tile generator (``tiles_synth``:
``background``, ``photo_effects``, ``paste_piece`` with its shadow and tile thickness), dominoes of
one set (``double-six``, ``double-nine``, ``double-twelve``, ``2x-double-six``; no tile more often
than the set holds it) in end-to-end chains with L-turns and crosswise doubles, side-by-side rows
(a Remino meld), loose tiles at any rotation, face-down tiles (a boneyard pile, a hand laid flat),
tiles leaving the photo, then a camera tilt.

Printings (``DominoStyle``, one or two per scene): ivory tiles with black pips; colour-coded pips
(each number its own colour); black tiles with white (now and then coloured) pips; pink, yellow,
red, blue or green bodies. Divider line of several lengths and weights, optional brass spinner in
its middle, drilled pips with a dark ring and a highlight, rounded corners and a bevel.

Pip layouts (``pip_layout``), in a half seen with its outer end up: 0-9 on a 3x3 grid (6 is two
columns of three, 7 adds the centre, 8 is the grid without its centre), 10-12 on three columns of
four as on double-twelve sets: 10 = 4 + 2 (top and bottom of the middle column) + 4, 11 adds the
middle pip, 12 is the full grid. A printing may mirror the diagonals of 2 and 3 and turn the
layouts up to 9 by a quarter (6 as two rows of three).

Output: ``render_scene(seed)`` gives the same shape as the tile generator, a BGR photo and
``[(label, [x1, y1, x2, y2]), ...]`` with labels ``a-b``, ``a <= b``. ``render_scene_detailed``
gives a ``DominoScene`` with, per domino, both halves (pip count and quad) in the tile's own
order, and the chain or row it lies in with its position there.

Choices:

- A domino is labelled when at least ``MIN_HALF_VISIBLE`` of each half is visible AND every pip
  of both halves is visible (centre and four points at 0.8 of its radius, not under another tile
  and inside the photo): a player can then count it. Its box is the axis-aligned box of its face
  corners, clipped to the photo (as for tiles).
- Face-down dominoes are never labelled; ``DominoScene.face_down`` lists the boxes of those at
  least half visible, for tests and negative examples. Backs are plain, with a ring or a frame,
  never with a divider (a back must not look like 0-0).
- Half quads: 4 corners in photo pixels, outer end first (outer-left, outer-right, divider-right,
  divider-left as seen with that half up), so warping a quad onto a square shows the half upright
  with the divider at the bottom. They are not clipped to the photo.
- Chain order: halves run (near, far) along a chain, so ``3-8`` then ``8-5`` reads in order;
  half of the chains match end to end like a line of play (doubles crosswise now and then), the
  others are random tiles of the set. A chain stops at the first tile that would lie on another.
- Colour-coded printings assign colours to numbers at random per printing (real sets disagree),
  so a reader cannot learn a number from its colour; every pip colour keeps a clear contrast
  with the body.

Everything is driven by one integer seed, as for tiles.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np
from PIL import Image, ImageDraw

from datasets.scene import (
    background,
    camera,
    paste_piece,
    photo_effects,
    photo_size,
    piece_corners,
    piece_matrix,
    smooth_noise,
    visible_share,
)
from meldcam.vocabulary import DOMINO_SETS, MAX_PIP, domino_name

MIN_HALF_VISIBLE = 0.85
SUPERSAMPLE = 3  # faces are drawn this much larger, then shrunk: smooth pips
STYLE_KINDS: tuple[str, ...] = ("ivory", "coded", "black", "coloured")
STYLE_SHARES = (0.35, 0.3, 0.15, 0.2)  # how often a scene's set is of each kind
SET_NAMES: tuple[str, ...] = tuple(DOMINO_SETS)
# Pip radius (fraction of the width) of large-pip double-nine and double-twelve sets, whose
# twelve pips nearly touch (a real colour-pip double-twelve: about 0.1; look 5).
BIG_PIPS = (0.08, 0.1)
BIG_PIPS_SHARE = 0.5  # of look 5's double-nine and double-twelve printings
# Graded pips (look 6): real colour-pip double-twelves print the halves laid out in three rows
# (0-9) with larger pips than the four-row halves (10-12), e.g. a 9's pips 0.11 of the width
# across beside a 10's 0.085, whose four rows are pressed into half the half's length
# (``dm3_pt_detect_stack4``, whose 10 was taken for a ring of 8: read 8-10 for 9-10).
GRADED_PIPS = ((0.095, 0.12), (0.07, 0.095))  # radius of 0-9's pips, of 10-12's
GRADED_SPREAD = ((1.0, 1.15), (0.82, 0.95))  # 10-12's spread across and along the domino
GRADED_GAP = 0.035  # of the width: the least gap between two of 10-12's rows (countable)
GRADED_PIPS_SHARE = 0.5  # of look 6's double-nine and double-twelve printings


def four_row_fit(along: float) -> float:
    """The largest radius of 10-12's pips (a fraction of the width) whose rows, pressed to
    ``along`` of the usual spread, keep ``GRADED_GAP`` apart: the rows lie 0.23 of the half
    apart in the layout, and a half is at least 0.95 of the width long."""
    return min(GRADED_PIPS[1][1], (0.23 * along * 0.95 - GRADED_GAP) / 2)


RGB = tuple[int, int, int]
Quad = tuple[tuple[float, float], ...]
Box = tuple[float, float, float, float]

# ------------------------------------------------------------------------------ pip layouts

_COL = (0.22, 0.5, 0.78)
_ROW3 = (0.22, 0.5, 0.78)
_ROW4 = (0.16, 0.39, 0.61, 0.84)


def _layouts() -> tuple[tuple[tuple[float, float], ...], ...]:
    left, mid, right = _COL
    top, centre, bottom = _ROW3
    corners = [(left, top), (right, top), (left, bottom), (right, bottom)]
    six = [(x, y) for x in (left, right) for y in _ROW3]
    grid9 = [(x, y) for x in _COL for y in _ROW3]
    ten = [(x, y) for x in (left, right) for y in _ROW4] + [(mid, _ROW4[0]), (mid, _ROW4[3])]
    return tuple(
        tuple(points)
        for points in (
            [],
            [(mid, centre)],
            [(left, top), (right, bottom)],
            [(left, top), (mid, centre), (right, bottom)],
            corners,
            [*corners, (mid, centre)],
            six,
            [*six, (mid, centre)],
            [p for p in grid9 if p != (mid, centre)],
            grid9,
            ten,
            [*ten, (mid, 0.5)],
            [(x, y) for x in _COL for y in _ROW4],
        )
    )


PIP_LAYOUTS = _layouts()


def pip_layout(count: int) -> tuple[tuple[float, float], ...]:
    """Pip centres of one half, (x across the tile, y from the outer end to the divider), 0..1."""
    if not 0 <= count <= MAX_PIP:
        raise ValueError(f"a domino half has 0 to {MAX_PIP} pips, not {count}")
    return PIP_LAYOUTS[count]


# ---------------------------------------------------------------------------------- styles

IVORY_BODIES: tuple[RGB, ...] = (
    (240, 234, 214),
    (246, 243, 233),
    (236, 226, 200),
    (250, 250, 247),
    (232, 224, 205),
    (244, 238, 222),
)
# Colour-coded pips: real double-nine / double-twelve sets use about this many distinct inks.
PIP_PALETTE: tuple[RGB, ...] = (
    (205, 30, 40),  # red
    (240, 120, 30),  # orange
    (230, 185, 20),  # yellow
    (40, 150, 60),  # green
    (20, 100, 55),  # dark green
    (20, 160, 150),  # teal
    (60, 150, 225),  # light blue
    (25, 70, 175),  # blue
    (25, 30, 95),  # navy
    (115, 45, 155),  # purple
    (205, 40, 145),  # magenta
    (120, 60, 30),  # brown
    (140, 140, 140),  # grey
    (25, 25, 25),  # black
)
# Other body colours with the pip colours such sets come with.
COLOURED_BODIES: tuple[tuple[RGB, tuple[RGB, ...]], ...] = (
    ((240, 110, 170), ((250, 220, 60), (250, 250, 250))),  # pink
    ((245, 205, 50), ((25, 25, 25), (200, 30, 40))),  # yellow
    ((200, 35, 40), ((250, 250, 250), (25, 25, 25))),  # red
    ((40, 80, 180), ((250, 250, 250), (250, 220, 60))),  # blue
    ((30, 130, 70), ((250, 250, 250),)),  # green
)
BRASS: RGB = (190, 150, 65)


@dataclass(frozen=True)
class DominoStyle:
    """One printing of a domino set: everything about a face that is not its numbers."""

    kind: str  # one of STYLE_KINDS
    body: RGB
    rim: RGB
    pip_colours: tuple[RGB, ...]  # index = pip count (index 0 unused)
    divider: RGB
    divider_length: float  # fraction of the tile width
    divider_weight: float  # fraction of the tile width
    spinner: float  # radius as a fraction of the width; 0 = no spinner
    pip_radius: float  # fraction of the width
    spread: float  # pip distance from the half's centre, relative to the standard layout
    mirror: bool  # the diagonals of 2 and 3 run the other way
    turn: bool  # layouts up to 9 turned by a quarter
    drilled: bool  # pips with a darker ring
    highlight: bool  # pips with a light spot
    aspect: float  # length / width
    corner: float  # corner radius, fraction of the width
    rim_width: float  # bevel, fraction of the width
    back: str  # "plain", "ring" or "frame"
    # The pips of the halves laid out in four rows (10-12), when they differ from
    # ``pip_radius`` and ``spread`` (graded pips: rows pressed together, columns apart, as
    # real colour-pip sets print them); 0: the same.
    four_row_radius: float = 0.0
    four_row_spread: tuple[float, float] = (0.0, 0.0)  # across, along

    def radius(self, count: int) -> float:
        """Pip radius of a half of ``count`` pips, a fraction of the width."""
        return self.four_row_radius if count >= 10 and self.four_row_radius else self.pip_radius

    def spreads(self, count: int) -> tuple[float, float]:
        """The layout's spread across and along a half of ``count`` pips."""
        if count >= 10 and self.four_row_spread[0]:
            return self.four_row_spread
        return self.spread, self.spread


def _jitter(
    rng: np.random.Generator, colour: Sequence[float] | np.ndarray, spread: float = 6.0
) -> RGB:
    out = np.clip(np.asarray(colour, float) + rng.normal(0, spread, 3), 0, 255)
    r, g, b = (int(v) for v in out)
    return r, g, b


def _contrasting(colour: RGB, body: RGB, min_distance: float = 110.0) -> RGB:
    """``colour``, or black / white (the farther) when it is too close to the body."""
    if np.linalg.norm(np.subtract(colour, body)) >= min_distance:
        return colour
    return (25, 25, 25) if sum(body) > 3 * 128 else (245, 245, 245)


def random_style(
    rng: np.random.Generator,
    top: int = MAX_PIP,
    kind: str | None = None,
    kinds: tuple[str, ...] | None = None,
    big_pips: float = 0.0,
    graded_pips: float = 0.0,
) -> DominoStyle:
    """A random printing for a set whose highest half is ``top`` (smaller pips for bigger sets):
    of ``kind``, or of a kind drawn from ``kinds`` (default: all, at ``STYLE_SHARES``).
    ``big_pips``: the share of double-nine and double-twelve printings whose pips are as large
    as a double-six's (``BIG_PIPS``); ``graded_pips``: the share of them whose halves of up to
    nine pips print larger pips than those of 10-12 (``GRADED_PIPS``)."""
    if kind is None and kinds is None:
        kind = STYLE_KINDS[int(rng.choice(4, p=STYLE_SHARES))]
    elif kind is None and kinds is not None:
        shares = np.array([STYLE_SHARES[STYLE_KINDS.index(k)] for k in kinds])
        kind = kinds[int(rng.choice(len(kinds), p=shares / shares.sum()))]
    if kind not in STYLE_KINDS:
        raise ValueError(f"unknown domino printing {kind!r}: use one of {', '.join(STYLE_KINDS)}")
    dark = _jitter(rng, (28, 26, 24), 4)
    if kind in ("ivory", "coded"):
        body = _jitter(rng, IVORY_BODIES[int(rng.integers(0, len(IVORY_BODIES)))], 3)
        if kind == "ivory":
            pips = [_jitter(rng, dark, 3)] * (MAX_PIP + 1)
        else:
            order = rng.permutation(len(PIP_PALETTE))[:MAX_PIP]
            pips = [dark] + [_jitter(rng, PIP_PALETTE[i], 6) for i in order]
        divider = dark if rng.random() < 0.8 else _jitter(rng, (90, 90, 90))
        rim = _jitter(rng, np.asarray(body) * rng.uniform(0.86, 0.94), 2)
    elif kind == "black":
        body = _jitter(rng, (30, 30, 32), 6)
        if rng.random() < 0.75:
            pips = [_jitter(rng, (242, 240, 232), 4)] * (MAX_PIP + 1)
        else:
            order = rng.permutation(len(PIP_PALETTE) - 2)[:MAX_PIP]  # no grey or black on black
            pips = [(245, 245, 245)] + [_jitter(rng, PIP_PALETTE[i], 6) for i in order]
        divider = (235, 235, 230) if rng.random() < 0.6 else BRASS
        rim = _jitter(rng, np.asarray(body) + rng.uniform(12, 30), 2)
    else:
        body_rgb, inks = COLOURED_BODIES[int(rng.integers(0, len(COLOURED_BODIES)))]
        body = _jitter(rng, body_rgb, 8)
        pips = [_jitter(rng, inks[int(rng.integers(0, len(inks)))], 5)] * (MAX_PIP + 1)
        divider = pips[1] if rng.random() < 0.7 else _jitter(rng, np.asarray(body) * 0.6, 3)
        rim = _jitter(rng, np.asarray(body) * rng.uniform(0.85, 0.93), 2)
    pips = [_contrasting(p, body) for p in pips]
    if top <= 6:
        pip_radius, spread, spinner_max = rng.uniform(0.085, 0.115), rng.uniform(0.92, 1.06), 0.085
    elif top <= 9:
        pip_radius, spread, spinner_max = rng.uniform(0.07, 0.095), rng.uniform(0.93, 1.05), 0.08
    else:
        pip_radius, spread, spinner_max = rng.uniform(0.06, 0.075), rng.uniform(0.94, 1.03), 0.06
    four_row_radius, four_row_spread = 0.0, (0.0, 0.0)
    if top > 6 and graded_pips and rng.random() < graded_pips:  # drawn only then, as below
        pip_radius, spread = rng.uniform(*GRADED_PIPS[0]), rng.uniform(0.97, 1.04)
        four_row_spread = (rng.uniform(*GRADED_SPREAD[0]), rng.uniform(*GRADED_SPREAD[1]))
        four_row_radius = rng.uniform(GRADED_PIPS[1][0], four_row_fit(four_row_spread[1]))
    elif top > 6 and big_pips and rng.random() < big_pips:  # drawn only then: older looks unchanged
        pip_radius, spread = rng.uniform(*BIG_PIPS), rng.uniform(0.97, 1.04)
    return DominoStyle(
        kind=kind,
        body=body,
        rim=rim,
        pip_colours=tuple(pips),
        divider=divider,
        divider_length=float(rng.uniform(0.5, 0.9)),
        divider_weight=float(rng.uniform(0.025, 0.055)),
        spinner=float(rng.uniform(0.05, spinner_max)) if rng.random() < 0.35 else 0.0,
        pip_radius=float(pip_radius),
        spread=float(spread),
        mirror=bool(rng.random() < 0.5),
        turn=bool(rng.random() < 0.15),
        drilled=bool(rng.random() < 0.6),
        highlight=bool(rng.random() < 0.4),
        aspect=float(rng.uniform(1.9, 2.08)),
        corner=float(rng.uniform(0.06, 0.18)),
        rim_width=float(rng.uniform(0.025, 0.05)),
        back=("plain", "ring", "frame")[int(rng.integers(0, 3))],
        four_row_radius=float(four_row_radius),
        four_row_spread=(float(four_row_spread[0]), float(four_row_spread[1])),
    )


# ---------------------------------------------------------------------------------- faces


def face_size(style: DominoStyle, width: int) -> tuple[int, int]:
    """(width, length) in pixels of a face drawn ``width`` wide."""
    return width, round(width * style.aspect)


def pip_centres(
    style: DominoStyle, count: int, width: int, length: int, second: bool
) -> list[tuple[float, float]]:
    """Pip centres of one half in face pixels (face upright: first half on top)."""
    half = length / 2
    across, along = style.spreads(count)
    out = []
    for x, y in pip_layout(count):
        x, y = 0.5 + (x - 0.5) * across, 0.5 + (y - 0.5) * along
        if style.mirror:
            x = 1 - x
        if style.turn and count <= 9:
            x, y = y, x
        px, py = x * width, y * half
        out.append((width - px, length - py) if second else (px, py))
    return out


def render_domino(style: DominoStyle, halves: tuple[int, int] | None, width: int) -> np.ndarray:
    """One domino seen from above, upright (first half on top), RGBA; ``None`` = face down."""
    width, length = face_size(style, width)
    s = SUPERSAMPLE
    big_w, big_l = width * s, length * s
    img = Image.new("RGBA", (big_w, big_l), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    box = (0, 0, big_w - 1, big_l - 1)
    radius = int(big_w * style.corner)
    draw.rounded_rectangle(box, radius=radius, fill=(*style.body, 255))
    rim = max(1, int(big_w * style.rim_width))
    draw.rounded_rectangle(box, radius=radius, outline=(*style.rim, 255), width=rim)
    if halves is None:
        _draw_back(draw, style, big_w, big_l)
    else:
        _draw_face(draw, style, halves, width, length)
    return np.asarray(img.resize((width, length), Image.Resampling.LANCZOS))


def _draw_face(
    draw: ImageDraw.ImageDraw, style: DominoStyle, halves: tuple[int, int], width: int, length: int
) -> None:
    s = SUPERSAMPLE
    cx, cy = width * s / 2, length * s / 2
    half_len = style.divider_length * width * s / 2
    weight = max(2, int(style.divider_weight * width * s))
    draw.rectangle(
        (cx - half_len, cy - weight / 2, cx + half_len, cy + weight / 2), fill=(*style.divider, 255)
    )
    if style.spinner:
        r = style.spinner * width * s
        rim = tuple(int(c * 0.7) for c in BRASS)
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(*BRASS, 255), outline=(*rim, 255))
        hr = r * 0.35
        draw.ellipse(
            (cx - r * 0.45 - hr, cy - r * 0.45 - hr, cx - r * 0.45 + hr, cy - r * 0.45 + hr),
            fill=(235, 215, 150, 255),
        )
    for second, count in enumerate(halves):
        r = style.radius(count) * width * s
        colour = style.pip_colours[count]
        ring = tuple(int(c * 0.6) for c in colour)
        light = tuple(int(c * 0.5 + 127) for c in colour)
        for px, py in pip_centres(style, count, width, length, bool(second)):
            x, y = px * s, py * s
            draw.ellipse(
                (x - r, y - r, x + r, y + r),
                fill=(*colour, 255),
                outline=(*ring, 255) if style.drilled else None,
                width=max(1, int(r * 0.18)),
            )
            if style.highlight:
                hr = r * 0.3
                hx, hy = x - r * 0.3, y - r * 0.3
                draw.ellipse((hx - hr, hy - hr, hx + hr, hy + hr), fill=(*light, 255))


def _draw_back(draw: ImageDraw.ImageDraw, style: DominoStyle, big_w: int, big_l: int) -> None:
    """A back: plain, a ring or a frame a shade off the body; never a divider."""
    shade = tuple(
        int(np.clip(c * 0.93 + (14 if sum(style.body) < 200 else 0), 0, 255)) for c in style.body
    )
    width = max(2, big_w // 30)
    if style.back == "ring":
        r = big_w * 0.28
        cx, cy = big_w / 2, big_l / 2
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=(*shade, 255), width=width)
    elif style.back == "frame":
        inset = big_w * 0.16
        draw.rounded_rectangle(
            (inset, inset, big_w - inset, big_l - inset),
            radius=int(big_w * 0.1),
            outline=(*shade, 255),
            width=width,
        )


# --------------------------------------------------------------------------------- scenes


@dataclass(frozen=True)
class Half:
    pips: int
    quad: Quad  # 4 corners in photo pixels: outer-left, outer-right, divider-right, divider-left


@dataclass(frozen=True)
class SceneDomino:
    label: str  # "a-b", a <= b
    box: Box  # x1, y1, x2, y2 in photo pixels
    halves: tuple[Half, Half]  # in the tile's own order (near, far along a chain)
    chain: int  # the chain or row it lies in, -1 for a loose tile
    position: int  # its place along that chain or row


@dataclass(frozen=True, eq=False)
class DominoScene:
    image: np.ndarray  # BGR uint8
    dominoes: tuple[SceneDomino, ...]
    face_down: tuple[Box, ...]  # boxes of face-down tiles at least half visible
    set_name: str
    # Face-up dominoes shown too little to be labelled (a half or a pip hidden, cut off by the
    # frame), with their true labels and the boxes of what shows: calibration judges a reading
    # of one by its label instead of counting it as a domino found where there is none.
    partial: tuple[tuple[str, Box], ...] = ()

    def labels(self) -> list[tuple[str, list[float]]]:
        """The tile generator's label shape: [(label, [x1, y1, x2, y2]), ...]."""
        return [(d.label, list(d.box)) for d in self.dominoes]


def all_labels(set_name: str = "double-twelve") -> list[str]:
    """Every label of a set, each once."""
    top = _set_top(set_name)
    return [domino_name(a, b) for a in range(top + 1) for b in range(a, top + 1)]


def _set_top(set_name: str) -> int:
    if set_name not in DOMINO_SETS:
        raise ValueError(f"unknown domino set {set_name!r}: use one of {', '.join(SET_NAMES)}")
    return DOMINO_SETS[set_name][0]


@dataclass(frozen=True)
class _Placement:
    """A domino to lay: centre and angle (``tiles_synth.piece_matrix`` degrees) in photo pixels."""

    cx: float
    cy: float
    angle: float
    width: int
    style: int
    halves: tuple[int, int] | None  # (first, second) = (top, bottom) of the upright face
    chain: int = -1
    position: int = -1
    max_overlap: float = 0.08  # share of its face that may lie on tiles already laid


@dataclass(frozen=True, eq=False)
class _Laid:
    index: int  # its value in the ids map
    matrix: np.ndarray  # face pixels -> canvas pixels (2x3)
    width: int
    length: int
    style: DominoStyle
    halves: tuple[int, int] | None
    chain: int
    position: int


class _Bag:
    """The set's tiles, drawn without replacement (``2x-double-six`` holds each twice)."""

    def __init__(self, rng: np.random.Generator, top: int, copies: int):
        tiles = [(a, b) for a in range(top + 1) for b in range(a, top + 1)] * copies
        self.rng = rng
        self.tiles = [tiles[i] for i in rng.permutation(len(tiles))]

    def take(self) -> tuple[int, int] | None:
        if not self.tiles:
            return None
        a, b = self.tiles.pop()
        return (a, b) if self.rng.random() < 0.5 else (b, a)

    def take_matching(self, end: int) -> tuple[int, int] | None:
        """A tile with ``end`` on one half, turned so that half comes first."""
        for i in range(len(self.tiles) - 1, -1, -1):
            a, b = self.tiles[i]
            if end in (a, b):
                del self.tiles[i]
                return (end, b if a == end else a)
        return None


def _axis_angle(ax: float, ay: float) -> float:
    """The ``piece_matrix`` angle that turns an upright face's top-to-bottom axis to (ax, ay)."""
    return math.degrees(math.atan2(ax, ay))


def _plan_line(
    rng: np.random.Generator,
    bag: _Bag,
    start,
    direction: float,
    n: int,
    width: int,
    length: float,
    style: int,
    chain: int,
    matching: bool,
) -> list[_Placement]:
    """Dominoes end to end, first half towards the start; maybe one L-turn, crosswise doubles."""
    u = np.array([math.cos(math.radians(direction)), math.sin(math.radians(direction))])
    end = np.asarray(start, float)  # where the next tile's near edge goes
    gap = width * max(0.0, rng.normal(0.01, 0.015))
    turn_at = int(rng.integers(2, max(3, n))) if rng.random() < 0.35 else -1
    last_centre = None  # centre of the last lengthwise tile (an L turns there)
    open_end: int | None = None
    out: list[_Placement] = []
    for k in range(n):
        if k == turn_at and last_centre is not None:
            v = np.array([-u[1], u[0]]) * (1 if rng.random() < 0.5 else -1)
            end = last_centre + u * (length / 2 - width / 2) + v * (width / 2 + gap)
            u = v
        tile = bag.take_matching(open_end) if matching and open_end is not None else bag.take()
        if tile is None:
            break
        across = matching and k > 0 and tile[0] == tile[1] and rng.random() < 0.6
        if across:
            centre, axis = end + u * width / 2, np.array([-u[1], u[0]])
            end = end + u * (width + gap)
            last_centre = None
        else:
            centre, axis = end + u * length / 2, u
            end = end + u * (length + gap)
            last_centre = centre
        cx, cy = centre + rng.normal(0, width * 0.01, 2)
        angle = _axis_angle(*axis) + rng.normal(0, 1.0)
        out.append(_Placement(cx, cy, angle, width, style, tile, chain, k))
        open_end = tile[1]
    return out


def _plan_row(
    rng: np.random.Generator,
    bag: _Bag | None,
    start,
    direction: float,
    n: int,
    width: int,
    style: int,
    chain: int,
) -> list[_Placement]:
    """Dominoes side by side (long sides touching), as a rummy meld; ``bag=None``: face down."""
    u = np.array([math.cos(math.radians(direction)), math.sin(math.radians(direction))])
    v = np.array([-u[1], u[0]]) * (1 if rng.random() < 0.5 else -1)
    gap = width * max(0.0, rng.normal(0.02, 0.03))
    out: list[_Placement] = []
    for k in range(n):
        tile = bag.take() if bag is not None else None
        if bag is not None and tile is None:
            break
        centre = np.asarray(start, float) + u * (width / 2 + k * (width + gap))
        cx, cy = centre + rng.normal(0, width * 0.01, 2)
        axis = -v if rng.random() < 0.15 else v
        angle = _axis_angle(*axis) + rng.normal(0, 1.5)
        out.append(_Placement(cx, cy, angle, width, style, tile, chain, k))
    return out


def _plan(
    rng: np.random.Generator,
    w: int,
    h: int,
    bag: _Bag,
    styles: list[DominoStyle],
    look: int = 1,
) -> list[_Placement]:
    """Chains and rows first (they are laid first and stay whole), then loose and face-down.

    Now and then a close-up: one to three big dominoes, as in a photo of a few tiles or a crop.
    Look 2 takes close-ups 3 times as often and larger dominoes on whole tables: real photos of
    dominoes are mostly taken close, and a detector that never sees a domino longer than a fifth
    of the photo misses most of them.
    """
    if look >= 4 and rng.random() < 0.3:
        return _plan_side_by_side(rng, w, h, bag, styles)
    long_side = max(w, h)
    if look >= 2:
        closeup = rng.random() < 0.25
        base = rng.uniform(0.12, 0.3) if closeup else float(np.exp(rng.uniform(-3.5, -1.9)))
    else:
        closeup = rng.random() < 0.08
        base = rng.uniform(0.12, 0.3) if closeup else rng.uniform(0.028, 0.1)
    widths = [int(base * long_side)] + [
        int(base * long_side * rng.uniform(0.85, 1.15)) for _ in styles[1:]
    ]
    scene_angle = rng.normal(0, 8) if rng.random() < 0.5 else rng.uniform(-180, 180)
    inner = (0.3, 0.7) if closeup else (0.05, 0.95)  # where chains have their middle

    def spot(lo: float, hi: float) -> np.ndarray:
        return np.array([rng.uniform(lo, hi) * w, rng.uniform(lo, hi) * h])

    placed: list[_Placement] = []
    chain = 0
    n_chains = int(rng.integers(0, 2)) if closeup else int(rng.integers(0, 6))
    for _ in range(n_chains):
        style = int(rng.integers(0, len(styles)))
        width, length = face_size(styles[style], widths[style])
        if rng.random() < 0.75:
            direction = scene_angle + 90 * int(rng.integers(0, 4)) + rng.normal(0, 3)
        else:
            direction = rng.uniform(-180, 180)
        u = np.array([math.cos(math.radians(direction)), math.sin(math.radians(direction))])
        if rng.random() < 0.55:
            n = int(rng.integers(1, 4) if closeup else rng.integers(2, 10))
            start = spot(*inner) - u * n * length / 2
            matching = bool(rng.random() < 0.5)
            placed += _plan_line(
                rng, bag, start, direction, n, width, length, style, chain, matching
            )
            chain += 1
        else:
            n = int(rng.integers(1, 4) if closeup else rng.integers(3, 9))
            start = spot(*inner) - u * n * width / 2
            across = np.array([-u[1], u[0]]) * (length + width * rng.uniform(0, 0.3))
            for r in range(2 if rng.random() < 0.25 else 1):
                row_start = start + across * r
                placed += _plan_row(rng, bag, row_start, direction, n, width, style, chain)
                chain += 1
    n_loose = int(rng.integers(0, 3 if closeup else 10))
    if not placed:
        n_loose = max(n_loose, int(rng.integers(1, 4 if closeup else 12)))
    for _ in range(n_loose):
        tile = bag.take()
        if tile is None:
            break
        style = int(rng.integers(0, len(styles)))
        x, y = spot(*inner) if closeup else spot(-0.05, 1.05)
        angle = rng.uniform(-180, 180) if rng.random() < 0.6 else scene_angle + rng.normal(0, 10)
        placed.append(_Placement(x, y, angle, widths[style], style, tile, max_overlap=0.1))
    if not closeup and rng.random() < 0.45:  # the boneyard: a loose pile of face-down tiles
        style = int(rng.integers(0, len(styles)))
        length = face_size(styles[style], widths[style])[1]
        centre = spot(0, 1)
        for _ in range(int(rng.integers(3, 16))):
            if bag.take() is None:
                break
            x, y = centre + rng.normal(0, 1.3 * length, 2)
            angle = rng.uniform(-180, 180)
            placed.append(_Placement(x, y, angle, widths[style], style, None, max_overlap=0.3))
    if not closeup and rng.random() < 0.15:  # a hand laid face down in a row
        style = int(rng.integers(0, len(styles)))
        direction = scene_angle + 90 * int(rng.integers(0, 4))
        n = min(int(rng.integers(4, 10)), len(bag.tiles))
        for _ in range(n):
            bag.take()
        placed += _plan_row(rng, None, spot(0, 0.8), direction, n, widths[style], style, -1)
    return placed


def _claim(taken: np.ndarray, quad: np.ndarray, max_overlap: float) -> bool:
    """Mark the face in ``taken`` unless more than ``max_overlap`` of it is already taken."""
    h, w = taken.shape
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 1, [w, h])
    if x1 <= x0 or y1 <= y0:
        return False
    poly = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(poly, np.round(quad - [x0, y0]).astype(np.int32), 1)
    area = int(poly.sum())
    roi = taken[y0:y1, x0:x1]
    if area == 0 or np.count_nonzero(roi & poly) > max_overlap * area:
        return False
    roi |= poly
    return True


def _lay(
    canvas: np.ndarray,
    ids: np.ndarray,
    taken: np.ndarray | None,
    placements: list[_Placement],
    styles: Sequence[DominoStyle],
    offset: float = 0.0,
    side: tuple[float, float] | None = None,
) -> list[_Laid]:
    """Paste the placements in order; a chain stops at its first tile that would lie on another.

    ``side``: (depth as a share of a domino's width, direction in degrees) of the dominoes'
    bodies seen at a slant, the same for the whole photo (one camera)."""
    laid: list[_Laid] = []
    broken: set[int] = set()
    for p in placements:
        if p.chain in broken:
            continue
        style = styles[p.style]
        face = render_domino(style, p.halves, p.width)
        length, width = face.shape[:2]
        matrix = piece_matrix(width, length, p.cx + offset, p.cy + offset, p.angle)
        if taken is not None and not _claim(
            taken, piece_corners(matrix, width, length), p.max_overlap
        ):
            if p.chain >= 0:
                broken.add(p.chain)
            continue
        body = None
        if side is not None:
            shade = np.array(style.body[::-1], np.float32) * 0.72
            body = (side[0], side[1], shade)
        paste_piece(canvas, ids, face, matrix, len(laid), body)
        laid.append(_Laid(len(laid), matrix, width, length, style, p.halves, p.chain, p.position))
    return laid


def _to_photo(points, matrix: np.ndarray, homography: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, np.float64).reshape(-1, 2) @ matrix[:, :2].T + matrix[:, 2]
    return cv2.perspectiveTransform(pts[None], homography)[0]


def _pips_visible(tile: _Laid, ids: np.ndarray, homography: np.ndarray) -> bool:
    h, w = ids.shape
    probes = []
    for second, count in enumerate(tile.halves or ()):
        r = tile.style.radius(count) * tile.width * 0.8
        for x, y in pip_centres(tile.style, count, tile.width, tile.length, bool(second)):
            probes += [(x, y), (x - r, y), (x + r, y), (x, y - r), (x, y + r)]
    if not probes:
        return True
    pts = _to_photo(probes, tile.matrix, homography)
    xs, ys = np.floor(pts[:, 0]).astype(int), np.floor(pts[:, 1]).astype(int)
    if xs.min() < 0 or ys.min() < 0 or xs.max() >= w or ys.max() >= h:
        return False
    return bool(np.all(ids[ys, xs] == tile.index))


def _label(
    laid: list[_Laid], ids: np.ndarray, homography: np.ndarray
) -> tuple[tuple[SceneDomino, ...], tuple[Box, ...], tuple[tuple[str, Box], ...]]:
    """The readable face-up dominoes, the boxes of the face-down ones, and the partly shown
    face-up ones (label, box of what shows), in photo pixels."""
    h, w = ids.shape
    dominoes: list[SceneDomino] = []
    face_down: list[Box] = []
    partial: list[tuple[str, Box]] = []

    def shown_partly(tile: _Laid) -> None:
        ys, xs = np.nonzero(ids == tile.index)
        if len(xs):
            box = (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))
            assert tile.halves is not None  # only a face-up tile is shown partly
            partial.append((domino_name(*tile.halves), box))

    for tile in laid:
        tw, tl = tile.width, tile.length
        face = _to_photo([(0, 0), (tw, 0), (tw, tl), (0, tl)], tile.matrix, homography)
        x1, y1 = np.clip(face.min(axis=0), 0, [w, h])
        x2, y2 = np.clip(face.max(axis=0), 0, [w, h])
        box = (float(x1), float(y1), float(x2), float(y2))
        if x2 - x1 < 2 or y2 - y1 < 2 or cv2.contourArea(face.astype(np.float32)) < 100:
            continue
        if tile.halves is None:
            if visible_share(ids, face, tile.index) >= 0.5:
                face_down.append(box)
            continue
        first = _to_photo([(0, 0), (tw, 0), (tw, tl / 2), (0, tl / 2)], tile.matrix, homography)
        second = _to_photo([(tw, tl), (0, tl), (0, tl / 2), (tw, tl / 2)], tile.matrix, homography)
        if min(visible_share(ids, q, tile.index) for q in (first, second)) < MIN_HALF_VISIBLE:
            shown_partly(tile)
            continue
        if not _pips_visible(tile, ids, homography):
            shown_partly(tile)
            continue
        near, far = (
            Half(count, tuple((float(x), float(y)) for x, y in quad))
            for count, quad in zip(tile.halves, (first, second), strict=True)
        )
        label = domino_name(*tile.halves)
        dominoes.append(SceneDomino(label, box, (near, far), tile.chain, tile.position))
    return tuple(dominoes), tuple(face_down), tuple(partial)


def low_camera(rng: np.random.Generator, big_w: int, big_h: int, w: int, h: int) -> np.ndarray:
    """Homography from the canvas to a photo taken from low down: the table squashed to 35-75 %
    of its depth, its far edge 10-40 % narrower, then a crop to w x h inside it (as ``camera``)."""
    squash, narrow = rng.uniform(0.35, 0.75), rng.uniform(0.1, 0.4)
    src = np.array([[0, 0], [big_w, 0], [big_w, big_h], [0, big_h]], np.float32)
    inset = narrow * big_w / 2
    dst = np.array(
        [[inset, 0], [big_w - inset, 0], [big_w, squash * big_h], [0, squash * big_h]], np.float32
    )
    view = cv2.getPerspectiveTransform(src, dst)
    # The crop: inside the far edge's width and the squashed depth, enlarged when too small.
    left, right, depth = inset + big_w * 0.04, big_w - inset - big_w * 0.04, squash * big_h * 0.96
    scale = max(w / (right - left), h / depth, 1.0)
    x0 = rng.uniform(left * scale, max(left * scale, right * scale - w))
    top = squash * big_h * 0.02 * scale
    y0 = rng.uniform(top, max(top, depth * scale - h))
    crop = np.array([[scale, 0, -x0], [0, scale, -y0], [0, 0, 1]])
    return crop @ view


def dark_surface(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A dark textured surface, BGR uint8: pebbled leather with soft folds and a sheen."""
    base = np.array([rng.uniform(8, 45), rng.uniform(8, 40), rng.uniform(8, 50)])
    fine = cv2.resize(
        rng.random((max(2, h // 3), max(2, w // 3))).astype(np.float32), (w, h)
    )  # leather pebbles, a few pixels each
    folds = smooth_noise(rng, h, w, int(rng.integers(60, 200)))
    sheen = np.clip((folds - rng.uniform(0.55, 0.8)) * 4, 0, 1) * rng.uniform(40, 120)
    light = base[None, None, :] * (0.7 + 0.6 * folds[..., None]) * (0.85 + 0.3 * fine[..., None])
    tex = light + sheen[..., None] * (0.6 + 0.4 * fine[..., None])
    return np.clip(tex, 0, 255).astype(np.uint8)


def patterned_surface(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A busy table covering, BGR uint8 (look 4): woven cloth (plain, check or plaid), a terry
    towel, grass, veined marble, dark planks, a saturated felt, or pebbled leather. Real photos'
    false dominoes came from such textures (a woven cloth's edge read as "11-12")."""
    kind = ("woven", "woven", "towel", "grass", "marble", "planks", "felt", "leather")[
        int(rng.integers(0, 8))
    ]
    if kind == "leather":
        return dark_surface(rng, h, w)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if kind == "woven":
        period = rng.uniform(3.0, 12.0)
        turn = math.radians(rng.normal(0, 6))
        u = xx * math.cos(turn) + yy * math.sin(turn)
        v = -xx * math.sin(turn) + yy * math.cos(turn)
        warp_threads = 0.5 + 0.5 * np.sin(u * 2 * math.pi / period)
        weft_threads = 0.5 + 0.5 * np.sin(v * 2 * math.pi / period)
        over = (np.floor(u / period) + np.floor(v / period)) % 2  # which thread lies on top
        weave = np.where(over > 0, warp_threads, weft_threads)
        colours = rng.uniform(30, 235, (2, 3))
        if rng.random() < 0.5:  # a check or plaid: bands of a second colour
            band = rng.uniform(6, 20) * period
            stripes = ((np.floor(u / band) % 2) + (np.floor(v / band) % 2)) / 2
        else:
            stripes = np.zeros_like(u)
        base = colours[0] * (1 - stripes[..., None]) + colours[1] * stripes[..., None]
        tex = base * (0.7 + 0.3 * weave[..., None])
        tex = tex * (0.9 + 0.2 * smooth_noise(rng, h, w, 50)[..., None])  # folds
    elif kind == "towel":
        base = rng.uniform(60, 240, 3)
        loops = cv2.GaussianBlur(rng.random((h, w)).astype(np.float32), (0, 0), 1.2)
        loops = (loops - loops.mean()) / (loops.std() + 1e-6)
        tex = base * (0.85 + 0.12 * loops[..., None])
        if rng.random() < 0.5:  # a woven band across the towel
            y0, band = rng.uniform(0, h), rng.uniform(0.05, 0.15) * h
            inside = (np.abs(yy - y0) < band)[..., None]
            tex = np.where(inside, rng.uniform(40, 230, 3) * (0.9 + 0.1 * loops[..., None]), tex)
        tex = tex * (0.85 + 0.25 * smooth_noise(rng, h, w, 70)[..., None])
    elif kind == "grass":
        tex = np.full((h, w, 3), (30, 90, 50), np.float32)
        for _ in range(int(h * w / 60)):
            x, y = rng.uniform(0, w), rng.uniform(0, h)
            a, length = rng.normal(-90, 25), rng.uniform(6, 25)
            end = (x + length * math.cos(math.radians(a)), y + length * math.sin(math.radians(a)))
            shade = [rng.uniform(10, 70), rng.uniform(70, 190), rng.uniform(30, 120)]
            cv2.line(tex, (int(x), int(y)), (int(end[0]), int(end[1])), shade, 1, cv2.LINE_AA)
    elif kind == "marble":
        base = np.array([rng.uniform(170, 245)] * 3) + rng.normal(0, 10, 3)
        n = smooth_noise(rng, h, w, 40) * 8 + smooth_noise(rng, h, w, 6) * 1.5
        veins = np.exp(-np.abs(np.sin(n * 2.0)) * rng.uniform(8, 25))
        vein = rng.uniform(60, 160, 3)
        tex = base * (1 - veins[..., None]) + vein * veins[..., None]
        tex = tex + rng.normal(0, 5, (h, w, 1))
    elif kind == "planks":
        base = np.sort([rng.uniform(15, 60), rng.uniform(25, 80), rng.uniform(40, 120)])  # brown
        plank = rng.uniform(0.15, 0.35) * min(h, w)
        warp = smooth_noise(rng, h, w, 60) * rng.uniform(10, 40)
        grain = np.sin((yy + warp) * rng.uniform(0.1, 0.4) + smooth_noise(rng, h, w, 8) * 4)
        tex = base * (0.8 + 0.2 * (0.5 + 0.5 * grain)[..., None])
        seams = (np.abs(((yy + warp * 0.1) % plank) - plank / 2) > plank / 2 - 1.5)[..., None]
        tex = np.where(seams, tex * 0.4, tex)
        sheen = np.clip(smooth_noise(rng, h, w, 150) - 0.6, 0, 1) * rng.uniform(100, 250)
        tex = tex + sheen[..., None]
    else:  # felt: one saturated colour, fine fibres
        hue = rng.uniform(0, 180)
        colour = cv2.cvtColor(
            np.array([[[hue, rng.uniform(120, 255), rng.uniform(60, 200)]]], np.uint8),
            cv2.COLOR_HSV2BGR,
        )[0, 0].astype(np.float32)
        tex = colour * (0.9 + 0.1 * smooth_noise(rng, h, w, 40)[..., None])
        tex = tex + rng.normal(0, 7, (h, w, 1))
    if rng.random() < 0.5:
        tex = np.rot90(tex).copy()
        tex = cv2.resize(tex, (w, h))
    return np.clip(tex, 0, 255).astype(np.uint8)


def film_sheen(rng: np.random.Generator, photo: np.ndarray) -> np.ndarray:
    """Streaks of light over the photo, as on shrink-wrap or a glossy glaze (look 4)."""
    h, w = photo.shape[:2]
    streaks: np.ndarray = np.zeros((h, w), np.float32)
    for _ in range(int(rng.integers(2, 7))):
        x0, y0 = rng.uniform(0, w), rng.uniform(0, h)
        a = rng.uniform(0, math.pi)
        length = rng.uniform(0.1, 0.6) * max(w, h)
        bend = rng.normal(0, 0.1 * length, 2)
        pts = [
            (
                x0 + t * length * math.cos(a) + bend[0] * math.sin(t * math.pi),
                y0 + t * length * math.sin(a) + bend[1] * math.sin(t * math.pi),
            )
            for t in np.linspace(0, 1, 12)
        ]
        thickness = int(rng.integers(1, max(2, int(0.012 * max(w, h)))))
        line = np.array(pts, np.int32)
        cv2.polylines(streaks, [line], False, float(rng.uniform(0.4, 1.0)), thickness, cv2.LINE_AA)
    streaks = cv2.GaussianBlur(streaks, (0, 0), rng.uniform(1.0, 4.0))
    out = photo.astype(np.float32) + streaks[..., None] * rng.uniform(120, 230)
    return np.clip(out, 0, 255).astype(np.uint8)


def _plan_side_by_side(
    rng: np.random.Generator, w: int, h: int, bag: _Bag, styles: list[DominoStyle]
) -> list[_Placement]:
    """A close-up of 2-6 dominoes side by side, long sides touching, filling much of the photo
    (a hand laid out for a photo, a disputed meld): look 4."""
    n = int(rng.integers(2, 7))
    across = rng.random() < 0.7  # the row runs along the photo's width
    direction = (0.0 if across else 90.0) + rng.normal(0, 6) + 180 * int(rng.integers(0, 2))
    along, other = (w, h) if across else (h, w)
    gap = max(0.0, rng.normal(0.02, 0.03))
    width = along * rng.uniform(0.45, 0.95) / (n * (1 + gap))
    length = face_size(styles[0], int(width))[1]
    if length > 0.85 * other:
        width *= 0.85 * other / length
    u = np.array([math.cos(math.radians(direction)), math.sin(math.radians(direction))])
    centre = np.array([w, h]) * (0.5 + rng.normal(0, 0.06, 2))
    start = centre - u * n * width * (1 + gap) / 2
    return _plan_row(rng, bag, start, direction, n, int(width), 0, 0)


def render_scene_detailed(
    seed: int,
    size: tuple[int, int] | None = None,
    set_name: str | None = None,
    look: int = 1,
    style_kinds: tuple[str, ...] | None = None,
) -> DominoScene:
    """A photo of dominoes from one seed, with halves, chains and face-down boxes.

    ``look=2``: larger dominoes and more close-ups, and thick bodies whose side shows (a photo
    taken at a slant). ``look=3``: look 2, and more than half of the photos taken from low down
    (``low_camera``: the table foreshortened, the near side of each domino thick), two in five
    on a dark textured surface (``dark_surface``: leather, a dark table). ``look=4``: look 3,
    and 70 % of the photos on a busy covering (``patterned_surface``: woven cloth, towels,
    grass, veined marble, planks, felt, leather), 30 % a close-up of dominoes side by side
    (``_plan_side_by_side``), streaks of light as on shrink-wrap (15 %, ``film_sheen``) and
    greyscale photos (10 %). ``look=5``: look 4, half of the double-nine and double-twelve
    printings with pips as large as a double-six's (``BIG_PIPS``). ``look=6``: look 5, half of
    the double-nine and double-twelve printings with graded pips (``GRADED_PIPS``; a quarter
    large, a quarter as before). Each look renders the scenes it always did from its seeds (a
    later look changes none before it), so the training sets can be re-rendered.
    ``style_kinds``: printings of these kinds only (``STYLE_KINDS``; the leave-one-out sets)."""
    rng = np.random.default_rng(seed)
    if set_name is None:
        set_name = SET_NAMES[int(rng.choice(len(SET_NAMES), p=[0.3, 0.35, 0.25, 0.1]))]
    top = _set_top(set_name)
    copies = DOMINO_SETS[set_name][1]
    if size is None:
        size = photo_size(rng)
    w, h = size
    pad = int(0.15 * max(w, h))  # laid larger, then cropped: dominoes may leave the photo
    big_w, big_h = w + 2 * pad, h + 2 * pad
    canvas = background(rng, big_h, big_w)
    if look >= 3 and rng.random() < 0.4:
        canvas = dark_surface(rng, big_h, big_w)
    if look >= 4 and rng.random() < 0.7:
        canvas = patterned_surface(rng, big_h, big_w)
    ids = np.full((big_h, big_w), -1, np.int32)
    big_pips = BIG_PIPS_SHARE if look >= 5 else 0.0
    graded_pips = GRADED_PIPS_SHARE if look >= 6 else 0.0
    styles = [random_style(rng, top, kinds=style_kinds, big_pips=big_pips, graded_pips=graded_pips)]
    if rng.random() < 0.15:  # a second set's printing on the same table
        styles.append(
            random_style(rng, top, kinds=style_kinds, big_pips=big_pips, graded_pips=graded_pips)
        )
    placements = _plan(rng, w, h, _Bag(rng, top, copies), styles, look)
    side = None
    low = look >= 3 and rng.random() < 0.6
    if low:  # a low camera sees the near side of every domino, thick
        side = (float(rng.uniform(0.12, 0.45)), float(90 + rng.normal(0, 15)))
    elif look >= 2 and rng.random() < 0.7:
        side = (float(rng.uniform(0.04, 0.3)), float(90 + rng.normal(0, 35)))
    laid = _lay(canvas, ids, np.zeros((big_h, big_w), np.uint8), placements, styles, pad, side)
    homography = low_camera(rng, big_w, big_h, w, h) if low else camera(rng, big_w, big_h, w, h)
    photo = cv2.warpPerspective(canvas, homography, (w, h), borderMode=cv2.BORDER_REFLECT)
    ids_photo = cv2.warpPerspective(
        ids.astype(np.float32), homography, (w, h), flags=cv2.INTER_NEAREST, borderValue=-1
    ).astype(np.int32)
    dominoes, face_down, partial = _label(laid, ids_photo, homography)
    if look >= 4 and rng.random() < 0.15:
        photo = film_sheen(rng, photo)
    photo = photo_effects(rng, photo)
    if look >= 4 and rng.random() < 0.1:  # a greyscale photo
        photo = cv2.cvtColor(cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return DominoScene(photo, dominoes, face_down, set_name, partial)


def render_scene(
    seed: int,
    size: tuple[int, int] | None = None,
    set_name: str | None = None,
    look: int = 1,
    style_kinds: tuple[str, ...] | None = None,
) -> tuple[np.ndarray, list[tuple[str, list[float]]]]:
    """A BGR photo and its labelled dominoes [(label, [x1, y1, x2, y2]), ...] from one seed."""
    scene = render_scene_detailed(seed, size, set_name, look, style_kinds)
    return scene.image, scene.labels()


def render_scene_every_domino(seed: int, look: int = 1) -> tuple[np.ndarray, list]:
    """``render_scene``'s photo and every face-up domino it shows: the labelled ones, then the
    partly shown ones (for calibration, which judges every reading against the domino under
    it)."""
    scene = render_scene_detailed(seed, look=look)
    return scene.image, scene.labels() + [(label, list(box)) for label, box in scene.partial]


# ----------------------------------------------------------------------------- test scenes


def _parse_cell(cell: str) -> tuple[int, int] | None:
    if cell == "back":
        return None
    a, sep, b = cell.partition("-")
    if not (sep and a.isdigit() and b.isdigit() and int(a) <= MAX_PIP and int(b) <= MAX_PIP):
        raise ValueError(
            f"test layouts take dominoes like 3-8 (halves 0-{MAX_PIP}) or 'back', not {cell!r}"
        )
    return int(a), int(b)


def render_test_scene(
    rows: list[list[str]],
    tile_width: int = 90,
    arrangement: str = "chain",
    style: DominoStyle | str = "ivory",
    angle: float = 0.0,
    gap: int = 2,
    margin: int = 50,
    seed: int = 7,
    frame: tuple[int, int] | None = None,
) -> DominoScene:
    """A clean, fully specified photo: rows of dominoes on a table, no tilt, no photo effects.

    ``arrangement="chain"``: each row lies end to end left to right, ``"3-8"`` with 3 on the left;
    ``"side"``: side by side, upright, 3 on top. ``"back"`` lays a domino face down. The whole
    layout is turned by ``angle`` degrees (counter-clockwise). Row r is chain r, in order.
    ``frame``: the photo's (width, height), the layout in its middle (default: the layout's
    size and ``margin``); ValueError where the layout does not fit in it.
    """
    if arrangement not in ("chain", "side"):
        raise ValueError(f"arrangement is 'chain' or 'side', not {arrangement!r}")
    rng = np.random.default_rng(seed)
    if isinstance(style, str):
        style = random_style(rng, MAX_PIP, kind=style)
    width, length = face_size(style, tile_width)
    turn = np.array(cv2.getRotationMatrix2D((0, 0), angle, 1.0))[:, :2]
    placements: list[_Placement] = []
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            if arrangement == "chain":
                centre = (c * (length + gap) + length / 2, r * width * 2.2 + width / 2)
                axis = (1.0, 0.0)
            else:
                centre = (c * (width + gap) + width / 2, r * length * 1.3 + length / 2)
                axis = (0.0, 1.0)
            cx, cy = turn @ centre
            tile_angle = _axis_angle(*(turn @ axis))
            placements.append(_Placement(cx, cy, tile_angle, width, 0, _parse_cell(cell), r, c))
    corners = np.concatenate(
        [
            piece_corners(piece_matrix(width, length, p.cx, p.cy, p.angle), width, length)
            for p in placements
        ]
    )
    low = corners.min(axis=0) - margin
    canvas_w, canvas_h = np.ceil(corners.max(axis=0) - low + margin).astype(int)
    if frame is not None:
        extent = corners.max(axis=0) - corners.min(axis=0)
        if extent[0] > frame[0] or extent[1] > frame[1]:
            raise ValueError(f"the layout does not fit in a {frame[0]}x{frame[1]} frame")
        low = corners.min(axis=0) - (np.array(frame) - extent) / 2
        canvas_w, canvas_h = frame
    shifted = [
        _Placement(p.cx - low[0], p.cy - low[1], p.angle, p.width, 0, p.halves, p.chain, p.position)
        for p in placements
    ]
    canvas = background(np.random.default_rng(seed + 1), canvas_h, canvas_w)
    canvas = cv2.GaussianBlur(canvas, (0, 0), 1.0)
    ids = np.full(canvas.shape[:2], -1, np.int32)
    laid = _lay(canvas, ids, None, shifted, [style])
    dominoes, face_down, partial = _label(laid, ids, np.eye(3))
    return DominoScene(canvas, dominoes, face_down, "double-twelve", partial)


def render_test_layout(
    rows: list[list[str]], **kwargs
) -> tuple[np.ndarray, list[tuple[str, list[float]]]]:
    """``render_test_scene`` in the tile generator's shape: (photo, [(label, box), ...])."""
    scene = render_test_scene(rows, **kwargs)
    return scene.image, scene.labels()
