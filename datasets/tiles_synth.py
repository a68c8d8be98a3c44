"""Synthetic photos of number tiles (Rummikub / Remik) on tables, with exact labels.

Each scene: a procedural table surface (wood, cloth, marble, plastic, paper), tiles in touching
rows (melds), on a rack, or scattered at any rotation, then camera tilt (perspective), uneven
light, shadows, glare, blur, noise and JPEG. Several tile printings (ivory / white / cream
bodies, with or without the face circle, several bold fonts, two joker faces).

A tile is labelled when at least ``MIN_VISIBLE`` of its face is visible (not hidden by another
tile or cut off by the photo's edge); its box is the axis-aligned box of its visible face corners.
A tile that shows less is "partly shown": not labelled, yet its true label is
known, so a reading of it can be judged (calibration) or left unscored (evaluation) rather than
counted as a tile found where there is none.

Everything is driven by one integer seed: scene ``i`` of a run uses ``seed * 1_000_003 + i``,
so any scene can be rebuilt alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from datasets.scene import (
    background,
    camera,
    paste_piece,
    photo_effects,
    photo_size,
    piece_corners,
    piece_matrix,
)
from meldcam.vocabulary import MAX_TILE_NUMBER, TILE_COLOURS, TILE_JOKER, tile_name

MIN_VISIBLE = 0.6
FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts"))
FONT_NAMES = (
    "DejaVuSans-Bold.ttf",
    "DejaVuSansCondensed-Bold.ttf",
    "LiberationSans-Bold.ttf",
    "LiberationSansNarrow-Bold.ttf",
    "DejaVuSerif-Bold.ttf",
)
# FreeSans is left out: the shipped models' scenes were rendered on machines without it, and
# since scripts/setup.sh installs it for the look-2 printings (datasets/tile_printings.py) it
# would change which font each look-1 tile gets.
# Ink colours in RGB, several printings per colour (orange includes the yellow printings).
INKS: dict[str, tuple[tuple[int, int, int], ...]] = {
    "red": ((200, 30, 45), (215, 45, 60), (180, 20, 35), (225, 60, 80)),
    "orange": ((240, 130, 40), (235, 150, 30), (245, 170, 40), (230, 110, 30), (225, 175, 20)),
    "blue": ((25, 90, 190), (20, 110, 200), (30, 70, 160), (20, 130, 170)),
    "black": ((30, 30, 35), (45, 45, 50), (20, 25, 30)),
}


@dataclass(frozen=True)
class PlacedTile:
    label: str
    quad: np.ndarray  # 4x2 face corners in scene pixels (clockwise from top-left of the face)


@lru_cache(maxsize=1)
def font_paths() -> tuple[str, ...]:
    found: list[str] = []
    for name in FONT_NAMES:
        for root in FONT_DIRS:
            hits = sorted(root.rglob(name)) if root.is_dir() else []
            if hits:
                found.append(str(hits[0]))
                break
    if not found:
        raise RuntimeError("no TrueType font found: install fonts-dejavu-core")
    return tuple(found)


@lru_cache(maxsize=64)
def load_font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, size)


def random_label(
    rng: np.random.Generator, max_number: int = MAX_TILE_NUMBER, joker_p: float = 0.05
) -> str:
    """A random tile label; numbers above 13 (long Remik sets) are rare, as in play."""
    if rng.random() < joker_p:
        return TILE_JOKER
    if max_number > 13 and rng.random() < 0.08:
        number = int(rng.integers(14, max_number + 1))
    else:
        number = int(rng.integers(1, min(13, max_number) + 1))
    return f"{TILE_COLOURS[int(rng.integers(0, 4))]}-{number}"


# ----------------------------------------------------------------------------------- tiles


def render_tile(rng: np.random.Generator, label: str, width: int = 120) -> np.ndarray:
    """One tile face seen from above, RGBA, ``width`` x ``width * ~1.35``; face fills it."""
    height = int(width * rng.uniform(1.28, 1.42))
    body = np.array(
        [
            (238, 232, 214),
            (245, 242, 232),
            (232, 222, 196),
            (240, 238, 236),
            (228, 226, 218),
        ][int(rng.integers(0, 5))],
        dtype=float,
    ) + rng.normal(0, 5, 3)
    body = np.clip(body, 150, 255)
    scale = 4  # draw large, then shrink: smooth edges
    big_w, big_h = width * scale, height * scale
    img = Image.new("RGBA", (big_w, big_h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    radius = int(big_w * rng.uniform(0.06, 0.14))
    draw.rounded_rectangle(
        (0, 0, big_w - 1, big_h - 1), radius=radius, fill=(*body.astype(int).tolist(), 255)
    )
    # Bevel: a darker rim inside the edge.
    rim = int(big_w * rng.uniform(0.03, 0.07))
    rim_col = np.clip(body - rng.uniform(8, 25), 0, 255).astype(int).tolist()
    draw.rounded_rectangle(
        (0, 0, big_w - 1, big_h - 1), radius=radius, outline=(*rim_col, 255), width=rim
    )
    cx, cy = big_w / 2, big_h * rng.uniform(0.38, 0.45)
    if rng.random() < 0.75:  # the face circle of many printings
        r = big_w * rng.uniform(0.33, 0.42)
        circ = np.clip(body - rng.uniform(3, 14), 0, 255).astype(int).tolist()
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(*circ, 255))
    if rng.random() < 0.8:  # a small brand line under the number
        brand_col = np.clip(body - rng.uniform(15, 45), 0, 255).astype(int).tolist()
        font = load_font(font_paths()[int(rng.integers(0, len(font_paths())))], max(8, big_w // 8))
        draw.text((cx, big_h * 0.86), "Rummikub", fill=(*brand_col, 255), font=font, anchor="mm")
    if label == "joker":
        _draw_joker(draw, rng, cx, cy, big_w)
    else:
        colour, _, number = label.partition("-")
        ink = np.array(INKS[colour][int(rng.integers(0, len(INKS[colour])))], float)
        ink = np.clip(ink + rng.normal(0, 8, 3), 0, 255).astype(int).tolist()
        text = number
        size = int(big_w * (rng.uniform(0.5, 0.62) if len(text) == 1 else rng.uniform(0.42, 0.52)))
        font = load_font(font_paths()[int(rng.integers(0, len(font_paths())))], size)
        bbox = draw.textbbox((0, 0), text, font=font)
        text_w = bbox[2] - bbox[0]
        if text_w > big_w * 0.8:
            size = int(size * big_w * 0.8 / text_w)
            font = load_font(font_paths()[0], size)
        draw.text((cx, cy), text, fill=(*ink, 255), font=font, anchor="mm")
        if number in ("6", "9") and rng.random() < 0.5:  # some printings underline 6 and 9
            w2 = size * 0.3
            y = cy + size * 0.45
            draw.line((cx - w2, y, cx + w2, y), fill=(*ink, 255), width=max(2, size // 14))
    return np.asarray(img.resize((width, height), Image.Resampling.LANCZOS))


def _draw_joker(draw: ImageDraw.ImageDraw, rng, cx: float, cy: float, w: int) -> None:
    """A smiling face in a ring: the usual joker print (red, black, or multi-coloured)."""
    palette = [INKS["red"][0], INKS["black"][0], INKS["blue"][0], INKS["orange"][0]]
    main = palette[int(rng.integers(0, 2))]
    r = w * rng.uniform(0.26, 0.33)
    lw = max(3, int(w * 0.035))
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=main, width=lw)
    if rng.random() < 0.5:
        r2 = r * 0.82
        draw.ellipse((cx - r2, cy - r2, cx + r2, cy + r2), outline=palette[2], width=lw // 2 + 1)
    eye = r * 0.12
    for dx in (-0.35, 0.35):
        ex, ey = cx + dx * r, cy - 0.25 * r
        draw.ellipse(
            (ex - eye, ey - eye, ex + eye, ey + eye), fill=palette[int(rng.integers(0, 4))]
        )
    draw.arc(
        (cx - r * 0.5, cy - r * 0.3, cx + r * 0.5, cy + r * 0.55), 20, 160, fill=main, width=lw
    )
    draw.ellipse((cx - eye * 0.8, cy - eye * 0.4, cx + eye * 0.8, cy + eye * 1.2), fill=palette[3])


# --------------------------------------------------------------------------------- scenes


def layout(rng: np.random.Generator, h: int, w: int) -> list[tuple[float, float, float, int]]:
    """Tile centres, angles and widths: (cx, cy, angle_deg, tile_w) in scene pixels.

    Groups of touching rows (melds, racks) at a scene-wide or own angle, rows laid diagonally
    (30-60 degrees off the photo's axes, so that their axis-aligned boxes overlap by half),
    crowded piles of tiles at many angles, plus loose tiles.
    """
    long_side = max(h, w)
    tile_w = int(rng.uniform(0.035, 0.14) * long_side)
    tile_h = tile_w * 1.35
    scene_angle = rng.uniform(-15, 15) if rng.random() < 0.6 else rng.uniform(-180, 180)
    if rng.random() < 0.3:  # the whole table photographed diagonally
        scene_angle = float(rng.choice([-1, 1])) * rng.uniform(30, 60) + 90 * rng.integers(0, 4)
    placed: list[tuple[float, float, float, int]] = []
    for _ in range(int(rng.integers(0, 7))):
        rack = rng.random() < 0.2
        angle = scene_angle + (rng.normal(0, 4) if rng.random() < 0.7 else rng.uniform(-90, 90))
        if not rack and rng.random() < 0.25:  # a diagonal row
            angle = float(rng.choice([-1, 1])) * rng.uniform(30, 60) + 90 * rng.integers(0, 4)
        gap = 0.0 if rack else tile_w * max(0.0, rng.normal(0.02, 0.04))
        row_step = tile_h * (1.04 if rack else rng.uniform(1.15, 2.0))
        rad = math.radians(-angle)
        ux, uy = math.cos(rad), math.sin(rad)  # along the row
        vx, vy = -uy, ux  # across rows
        ox, oy = rng.uniform(-0.1, 0.9) * w, rng.uniform(-0.1, 0.9) * h
        for r in range(int(rng.integers(1, 3))):
            col = rng.uniform(0, 2) * tile_w
            for _ in range(int(rng.integers(3, 14 if rack else 9))):
                cx = ox + ux * col + vx * r * row_step + rng.normal(0, tile_w * 0.02)
                cy = oy + uy * col + vy * r * row_step + rng.normal(0, tile_w * 0.02)
                placed.append((cx, cy, angle + rng.normal(0, 1.5), tile_w))
                col += tile_w + gap + abs(rng.normal(0, tile_w * 0.02))
    for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.4 else 0):
        placed += heap_layout(rng, h, w, tile_w)
    n_loose = int(rng.integers(0, 25)) if placed else int(rng.integers(1, 30))
    for _ in range(n_loose):
        size = tile_w if rng.random() < 0.7 else int(tile_w * rng.uniform(1.0, 2.0))
        angle = rng.uniform(-180, 180) if rng.random() < 0.6 else scene_angle + rng.normal(0, 8)
        placed.append((rng.uniform(0, w), rng.uniform(0, h), angle, size))
    return placed


def heap_layout(
    rng: np.random.Generator, h: int, w: int, tile_w: int
) -> list[tuple[float, float, float, int]]:
    """A crowded heap of tiles at many angles, touching and slightly overlapping (the pool
    pushed together); ``render_scene`` skips a tile mostly covering another one."""
    count = int(rng.integers(8, 30))
    radius = tile_w * math.sqrt(count) * rng.uniform(0.55, 0.85)
    cx, cy = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
    tiles = []
    for _ in range(count):
        r = radius * math.sqrt(rng.random())
        t = rng.uniform(0, 2 * math.pi)
        tiles.append((cx + r * math.cos(t), cy + r * math.sin(t), rng.uniform(-180, 180), tile_w))
    return tiles


def lay_tiles(
    rng: np.random.Generator,
    scene: np.ndarray,
    ids: np.ndarray,
    placements: list[tuple[float, float, float, int]],
    pad: int,
    draw_face=render_tile,
    max_number: int = MAX_TILE_NUMBER,
) -> list[PlacedTile]:
    """Paste a random tile at each of ``placements`` (``layout``'s, offset by ``pad``), skipping
    one that would lie mostly on top of another; ``draw_face(rng, label, width)`` draws a face.
    Returns the tiles laid, their indices in ``ids`` being their positions in the list."""
    tiles: list[PlacedTile] = []
    taken = np.zeros(ids.shape, np.uint8)
    for cx, cy, angle, tile_w in placements:
        label = random_label(rng, max_number=max_number)
        face = draw_face(rng, label, tile_w)
        th, tw = face.shape[:2]
        matrix = piece_matrix(tw, th, cx + pad, cy + pad, angle)
        quad = piece_corners(matrix, tw, th)
        poly = np.zeros_like(taken)
        cv2.fillConvexPoly(poly, quad.astype(np.int32), 1)
        area = max(1, int(poly.sum()))
        if (poly & taken).sum() > 0.25 * area:  # mostly on top of another tile: skip it
            continue
        taken |= poly
        paste_piece(scene, ids, face, matrix, len(tiles))
        tiles.append(PlacedTile(label, quad))
    return tiles


Labels = list[tuple[str, list[float]]]
Quads = list[list[list[float]]]


def labelled(visible: int, face_area: float) -> bool:
    """Whether a tile with ``visible`` pixels of a face ``face_area`` pixels large in the photo
    is labelled."""
    return face_area >= 60 and visible >= MIN_VISIBLE * face_area


def visible_pixels(ids_photo: np.ndarray, count: int) -> list[np.ndarray]:
    """Each of ``count`` tiles' visible pixels in the photo (N x 2 float32 x, y), from the
    photo's piece-index image."""
    ys, xs = np.nonzero(ids_photo >= 0)
    owners = ids_photo[ys, xs]
    order = np.argsort(owners, kind="stable")
    owners, ys, xs = owners[order], ys[order], xs[order]
    starts = np.searchsorted(owners, np.arange(count + 1))
    points = np.stack([xs, ys], 1).astype(np.float32)
    return [points[starts[i] : starts[i + 1]] for i in range(count)]


def pixel_box(points: np.ndarray) -> list[float]:
    """The box [x1, y1, x2, y2] around pixels (N x 2 x, y)."""
    x1, y1 = points.min(0)
    x2, y2 = points.max(0) + 1
    return [float(x1), float(y1), float(x2), float(y2)]


def render_scene(
    seed: int, size: tuple[int, int] | None = None, max_number: int = MAX_TILE_NUMBER
) -> tuple[np.ndarray, Labels]:
    """A BGR photo and its labelled tiles [(label, [x1, y1, x2, y2]), ...] from one seed."""
    img, labels, _quads, _partial = render_scene_detailed(seed, size, max_number)
    return img, labels


def render_scene_with_quads(
    seed: int, size: tuple[int, int] | None = None, max_number: int = MAX_TILE_NUMBER
) -> tuple[np.ndarray, Labels, Quads]:
    """``render_scene``'s photo and labels, and each labelled tile's face corners in the photo
    (4 x [x, y], unclipped: a tile may leave the photo), for rotated-box training."""
    img, labels, quads, _partial = render_scene_detailed(seed, size, max_number)
    return img, labels, quads


def render_scene_every_tile(seed: int) -> tuple[np.ndarray, Labels]:
    """``render_scene``'s photo and every tile it shows: the labelled ones, then the partly
    shown ones (for calibration, which judges every reading against the tile under it)."""
    img, labels, _quads, partial = render_scene_detailed(seed)
    return img, labels + partial


def render_scene_detailed(
    seed: int, size: tuple[int, int] | None = None, max_number: int = MAX_TILE_NUMBER
) -> tuple[np.ndarray, Labels, Quads, Labels]:
    """``render_scene_with_quads``'s photo, labels and quads, and the partly shown tiles with
    the boxes of their visible pixels."""
    rng = np.random.default_rng(seed)
    if size is None:
        size = photo_size(rng)
    w, h = size
    pad = int(0.15 * max(w, h))  # render larger, then crop: tiles may leave the photo
    big_w, big_h = w + 2 * pad, h + 2 * pad
    scene = background(rng, big_h, big_w)
    ids = np.full((big_h, big_w), -1, np.int32)
    tiles = lay_tiles(rng, scene, ids, layout(rng, h, w), pad, render_tile, max_number)
    # Camera: perspective from a random tilt, cropped to the photo inside the tilted canvas.
    homography = camera(rng, big_w, big_h, w, h)
    scene = cv2.warpPerspective(scene, homography, (w, h), borderMode=cv2.BORDER_REPLICATE)
    ids_crop = cv2.warpPerspective(
        ids.astype(np.float32), homography, (w, h), flags=cv2.INTER_NEAREST, borderValue=-1
    ).astype(np.int32)
    pixels = visible_pixels(ids_crop, len(tiles))
    labels: Labels = []
    quads: Quads = []
    partial: Labels = []
    for tile, points in zip(tiles, pixels, strict=True):
        quad = cv2.perspectiveTransform(tile.quad[None].astype(np.float64), homography)[0]
        quad = quad.astype(np.float32)
        if not labelled(len(points), cv2.contourArea(quad)):
            if len(points):
                partial.append((tile.label, pixel_box(points)))
            continue
        x1, y1 = np.clip(quad.min(axis=0), 0, [w, h])
        x2, y2 = np.clip(quad.max(axis=0), 0, [w, h])
        labels.append((tile.label, [float(x1), float(y1), float(x2), float(y2)]))
        quads.append(quad.astype(float).tolist())
    return photo_effects(rng, scene), labels, quads, partial


def render_test_layout(
    rows: list[list[str]], tile_w: int = 110, gap: int = 4, margin: int = 60, seed: int = 7
) -> tuple[np.ndarray, list[tuple[str, list[float]]]]:
    """A clean, fully specified photo: given rows of labels as touching melds on a table.

    Used by tests and the benchmark: the expected labels and melds are known exactly.
    """
    rng = np.random.default_rng(seed)
    tile_h = int(tile_w * 1.35)
    width = margin * 2 + max(len(r) for r in rows) * (tile_w + gap)
    height = margin * 2 + len(rows) * int(tile_h * 1.5)
    scene = background(np.random.default_rng(seed + 1), height, width)
    scene = cv2.GaussianBlur(scene, (0, 0), 1.0)
    ids = np.full(scene.shape[:2], -1, np.int32)
    labels: list[tuple[str, list[float]]] = []
    for r, row in enumerate(rows):
        for c, label in enumerate(row):
            face = render_tile(rng, label, tile_w)
            th, tw = face.shape[:2]
            cx = margin + c * (tile_w + gap) + tw / 2
            cy = margin + r * int(tile_h * 1.5) + th / 2
            matrix = piece_matrix(tw, th, cx, cy, 0.0)
            paste_piece(scene, ids, face, matrix, len(labels))
            quad = piece_corners(matrix, tw, th)
            labels.append((label, [*map(float, quad.min(axis=0)), *map(float, quad.max(axis=0))]))
    return scene, labels


def all_labels(max_number: int = MAX_TILE_NUMBER) -> list[str]:
    return [tile_name(c, n) for c in TILE_COLOURS for n in range(1, max_number + 1)] + [TILE_JOKER]
