"""Synthetic photos of number tiles standing in racks, and tables of one printing (``look=2``).

Photographing the racks at the end of a hand is one of meldcam's three uses, and a player's set
is rarely the one a reader was trained on. A look-2 scene draws all its tiles from one physical
set (``datasets.tile_printings``: a named printing, one font, one ink shade per colour) and is
either a rack scene or a table scene of ``tiles_synth.layout``.

A rack scene: one or two racks of one to three tiers (wood, black plastic or coloured plastic),
seen from the front at table height, at a slant or from above. Tiles stand upright in rows,
touching or with small gaps, some leaning; each tier's lip hides the foot of its own tiles and
the tier in front hides the foot of the tier behind it; from above the tiles' faces are
foreshortened and their top edges show. Racks may be cut off by the photo's edge, and loose
tiles may lie on the table in front.

A tile is labelled when at least ``MIN_VISIBLE`` of its face shows, and its box and corners are
those of the part that shows (the smallest rotated rectangle around its visible pixels): a
person boxes a rack tile down to the lip that hides its foot.

Named printings and rack styles can be held out: ``render_training_scene`` never draws
``HELD_OUT_PRINTING`` or ``HELD_OUT_RACK``; ``render_held_out_printing_scene`` and
``render_held_out_rack_scene`` draw only them, to measure sets the reader has never seen.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from datasets.scene import (
    background,
    camera,
    face_angle,
    paste_piece,
    photo_effects,
    photo_size,
    piece_corners,
    piece_matrix,
)
from datasets.tile_printings import HELD_OUT_PRINTING, PRINTING_NAMES, choose_set, render_set_tile
from datasets.tiles_synth import (
    Labels,
    Quads,
    labelled,
    lay_tiles,
    layout,
    pixel_box,
    random_label,
    visible_pixels,
)

RACK_STYLES = ("wood", "black", "coloured")
HELD_OUT_RACK = "coloured"
RACK_SHARE = 0.6  # share of look-2 scenes that show racks
TRAINING_PRINTINGS = tuple(p for p in PRINTING_NAMES if p != HELD_OUT_PRINTING)
TRAINING_RACKS = tuple(r for r in RACK_STYLES if r != HELD_OUT_RACK)
# The sets of scenes, by name: (printings, rack styles, share of rack scenes).
LOOK2_SETS: dict[str, tuple[tuple[str, ...], tuple[str, ...], float]] = {
    "training": (TRAINING_PRINTINGS, TRAINING_RACKS, RACK_SHARE),
    "held_out_printing": ((HELD_OUT_PRINTING,), TRAINING_RACKS, RACK_SHARE),
    "held_out_rack": (TRAINING_PRINTINGS, (HELD_OUT_RACK,), 1.0),
}


def leave_out_sets(printing: str) -> dict[str, tuple[tuple[str, ...], tuple[str, ...], float]]:
    """``LOOK2_SETS`` with ``printing`` left out of training instead of ``HELD_OUT_PRINTING``
    (to measure each printing left out in turn)."""
    others = tuple(p for p in PRINTING_NAMES if p != printing)
    return LOOK2_SETS | {
        "training": (others, TRAINING_RACKS, RACK_SHARE),
        "held_out_printing": ((printing,), TRAINING_RACKS, RACK_SHARE),
    }


def render_training_scene(
    seed: int, left_out: str = HELD_OUT_PRINTING
) -> tuple[np.ndarray, Labels, Quads]:
    """A look-2 scene of the printings and rack styles that training may see (every printing
    but ``left_out``)."""
    return render_look2_scene(seed, *leave_out_sets(left_out)["training"])


def render_training_scene_every_tile(seed: int) -> tuple[np.ndarray, Labels]:
    """``render_training_scene``'s photo and every tile it shows: the labelled ones, then the
    partly shown ones (for calibration, which judges every reading against the tile under it)."""
    scene = render_look2_detailed(seed, *LOOK2_SETS["training"])
    return scene.image, scene.labels + scene.partial


def render_held_out_printing_scene(
    seed: int, left_out: str = HELD_OUT_PRINTING
) -> tuple[np.ndarray, Labels, Quads]:
    """A look-2 scene of the printing ``left_out`` of training only (rack styles that training
    sees)."""
    return render_look2_scene(seed, *leave_out_sets(left_out)["held_out_printing"])


def render_held_out_rack_scene(seed: int) -> tuple[np.ndarray, Labels, Quads]:
    """A rack scene of the held-out rack style only (printings that training sees)."""
    return render_look2_scene(seed, *LOOK2_SETS["held_out_rack"])


@dataclass(frozen=True)
class Look2Scene:
    image: np.ndarray  # BGR
    labels: Labels
    quads: Quads  # each label's visible corners
    printing: str
    rack_style: str | None  # None: a table scene
    view: str | None
    partial: Labels  # the tiles shown too little to be labelled, boxes of what shows
    # each label's angle in degrees: its face's top edge against the photo's x axis (y down),
    # so that a crop cut at this angle shows the tile upright (readers learn which way is up)
    angles: list[float] = field(default_factory=list)


def render_look2_scene(
    seed: int,
    printings: tuple[str, ...] = PRINTING_NAMES,
    rack_styles: tuple[str, ...] = RACK_STYLES,
    rack_share: float = RACK_SHARE,
    size: tuple[int, int] | None = None,
) -> tuple[np.ndarray, Labels, Quads]:
    """A BGR photo of one set's tiles in racks or on a table, its labels and visible quads."""
    scene = render_look2_detailed(seed, printings, rack_styles, rack_share, size)
    return scene.image, scene.labels, scene.quads


def render_look2_detailed(
    seed: int,
    printings: tuple[str, ...] = PRINTING_NAMES,
    rack_styles: tuple[str, ...] = RACK_STYLES,
    rack_share: float = RACK_SHARE,
    size: tuple[int, int] | None = None,
    pictogram_jokers: float = 0.0,
) -> Look2Scene:
    """``render_look2_scene``'s photo, labels and quads, with the set and rack it shows (its
    jokers a random pictogram with probability ``pictogram_jokers``: ``choose_set``)."""
    rng = np.random.default_rng(seed)
    if size is None:
        size = photo_size(rng)
    w, h = size
    chosen = printings[int(rng.integers(0, len(printings)))]
    look = choose_set(rng, chosen, pictogram_jokers)
    pad = int(0.15 * max(w, h))
    big_w, big_h = w + 2 * pad, h + 2 * pad
    scene = background(rng, big_h, big_w)
    ids = np.full((big_h, big_w), -1, np.int32)
    tiles: list[tuple[str, np.ndarray]] = []  # label, face quad in canvas pixels

    def face(rng: np.random.Generator, label: str, width: int) -> np.ndarray:
        return render_set_tile(rng, look, label, width)

    style = view = None
    if rng.random() < rack_share:
        style = rack_styles[int(rng.integers(0, len(rack_styles)))]
        view = ("front", "oblique", "above")[int(rng.choice(3, p=[0.45, 0.3, 0.25]))]
        _rack_scene(rng, scene, ids, tiles, face, style, view, w, h, pad)
        tilt = 0.2 if view == "oblique" else 0.08
    else:  # a table: tiles_synth's melds, piles and loose tiles, of this one set
        laid = lay_tiles(rng, scene, ids, layout(rng, h, w), pad, face)
        tiles += [(t.label, t.quad) for t in laid]
        tilt = 0.12
    homography = camera(rng, big_w, big_h, w, h, tilt=tilt)
    scene = cv2.warpPerspective(scene, homography, (w, h), borderMode=cv2.BORDER_REPLICATE)
    ids_photo = cv2.warpPerspective(
        ids.astype(np.float32), homography, (w, h), flags=cv2.INTER_NEAREST, borderValue=-1
    ).astype(np.int32)
    labels, quads, partial, angles = _visible_labels(tiles, ids_photo, homography)
    image = photo_effects(rng, scene)
    return Look2Scene(image, labels, quads, look.printing.name, style, view, partial, angles)


def _visible_labels(
    tiles, ids_photo: np.ndarray, homography: np.ndarray
) -> tuple[Labels, Quads, Labels, list[float]]:
    """Each tile showing at least ``MIN_VISIBLE`` of its face: the box and the smallest rotated
    rectangle of its visible pixels, and its face's angle; and the partly shown tiles with the
    boxes of theirs."""
    labels: Labels = []
    quads: Quads = []
    partial: Labels = []
    angles: list[float] = []
    for (label, quad), points in zip(tiles, visible_pixels(ids_photo, len(tiles)), strict=True):
        full = cv2.perspectiveTransform(quad[None].astype(np.float64), homography)[0]
        if not labelled(len(points), cv2.contourArea(full.astype(np.float32))):
            if len(points):
                partial.append((label, pixel_box(points)))
            continue
        (cx, cy), (rw, rh), angle = cv2.minAreaRect(points)
        corners = cv2.boxPoints(((cx, cy), (rw + 1, rh + 1), angle))
        labels.append((label, pixel_box(points)))
        quads.append(corners.astype(float).tolist())
        angles.append(face_angle(full))
    return labels, quads, partial, angles


# ------------------------------------------------------------------------------- racks


def rack_colour(rng: np.random.Generator, style: str) -> np.ndarray:
    """The rack's base colour, BGR."""
    if style == "wood":
        return np.array([rng.uniform(30, 110), rng.uniform(70, 150), rng.uniform(120, 210)])
    if style == "black":
        return np.full(3, rng.uniform(15, 50)) + rng.normal(0, 3, 3)
    colours = (
        (170, 90, 30),
        (40, 40, 170),
        (60, 140, 50),
        (150, 190, 215),
        (130, 130, 130),
        (40, 150, 220),
        (160, 60, 120),
    )  # blue, red, green, beige, grey, orange, purple
    return np.array(colours[int(rng.integers(0, len(colours)))], float) + rng.normal(0, 8, 3)


def _rack_texture(rng: np.random.Generator, style: str, h: int, w: int) -> np.ndarray:
    """A rack part h x w, BGR float: wood grain along its length, or moulded plastic with a
    sheen band."""
    base = rack_colour(rng, style)
    x = np.arange(w, dtype=np.float32)[None, :]
    y = np.arange(h, dtype=np.float32)[:, None]
    if style == "wood":
        warp = np.sin(x * rng.uniform(0.005, 0.02) + rng.uniform(0, 6)) * rng.uniform(2, 10)
        grain = 0.5 + 0.5 * np.sin((y + warp) * rng.uniform(0.2, 0.8))
        shade = 0.8 + 0.25 * grain + rng.normal(0, 0.03, (h, w)).astype(np.float32)
    else:
        band = np.exp(-(((y / max(h, 1)) - rng.uniform(0.1, 0.5)) ** 2) / 0.02)
        shade = 0.85 + rng.uniform(0.1, 0.5) * band + np.zeros((h, w), np.float32)
    return np.clip(base[None, None, :] * shade[..., None], 0, 255)


def _rack_scene(rng, scene, ids, tiles, face, style: str, view: str, w, h, pad) -> None:
    """One or two racks (the second, further away, smaller) and loose tiles in front."""
    n_racks = 1 if rng.random() < 0.8 else 2
    tile_w = int(max(w, h) * rng.uniform(0.05, 0.11))
    for k in range(n_racks):
        scale = 1.0 if k == 0 else rng.uniform(0.6, 0.85)
        tw = max(14, int(tile_w * scale))
        rack, rack_ids, rack_tiles = _render_rack(rng, face, style, view, tw, len(tiles))
        rh, rw = rack.shape[:2]
        angle = rng.normal(0, 3) if view != "above" or rng.random() < 0.6 else rng.uniform(-40, 40)
        if view == "above" and rng.random() < 0.2:
            angle += 180  # photographed from the other side of the table
        # Centre: anywhere the rack shows at least in part (racks cut off by the frame).
        cx = pad + w * rng.uniform(0.3, 0.7)
        cy = pad + h * (rng.uniform(0.25, 0.65) if k == 0 else rng.uniform(0.1, 0.3))
        matrix = cv2.getRotationMatrix2D((rw / 2, rh / 2), angle, 1.0)
        matrix[:, 2] += [cx - rw / 2, cy - rh / 2]
        _place(scene, ids, rack, rack_ids, matrix)
        for label, quad in rack_tiles:
            tiles.append((label, quad @ matrix[:, :2].T + matrix[:, 2]))
    if rng.random() < 0.4:  # a row of loose tiles on the table in front
        taken = np.zeros(ids.shape, np.uint8)
        taken[ids != -1] = 1
        y = pad + h * rng.uniform(0.75, 0.95)
        x = pad + w * rng.uniform(0.0, 0.4)
        squash = rng.uniform(0.55, 0.9)
        for _ in range(int(rng.integers(2, 9))):
            label = random_label(rng)
            img = face(rng, label, tile_w)
            img = cv2.resize(img, (img.shape[1], max(4, int(img.shape[0] * squash))))
            th, tw = img.shape[:2]
            matrix = piece_matrix(tw, th, x, y, rng.normal(0, 4))
            quad = piece_corners(matrix, tw, th)
            poly = np.zeros_like(taken)
            cv2.fillConvexPoly(poly, quad.astype(np.int32), 1)
            if (poly & taken).sum() == 0:
                paste_piece(scene, ids, img, matrix, len(tiles))
                tiles.append((label, quad))
                taken |= poly
            x += tw * rng.uniform(1.0, 1.5)


def _place(scene, ids, rack: np.ndarray, rack_ids: np.ndarray, matrix: np.ndarray) -> None:
    """Warp an RGBA rack (tiles already in it) into the scene with a soft shadow; its pixels
    take their tile index from ``rack_ids`` (-2: the rack's own body, hiding what lies below)."""
    h, w = scene.shape[:2]
    quad = piece_corners(matrix, rack.shape[1], rack.shape[0])
    x0, y0 = np.maximum(np.floor(quad.min(0)).astype(int) - 4, 0)
    x1, y1 = np.minimum(np.ceil(quad.max(0)).astype(int) + 4, [w, h])
    if x1 <= x0 or y1 <= y0:
        return
    local = matrix.copy()
    local[:, 2] -= [x0, y0]
    size = (x1 - x0, y1 - y0)
    rgba = cv2.warpAffine(rack, local, size, flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
    warped_ids = cv2.warpAffine(
        rack_ids.astype(np.float32), local, size, flags=cv2.INTER_NEAREST, borderValue=-1
    ).astype(np.int32)
    alpha = rgba[..., 3:4].astype(np.float32) / 255.0
    shadow = cv2.GaussianBlur(alpha, (0, 0), max(2.0, rack.shape[1] * 0.01))
    shadow = np.roll(shadow, max(2, rack.shape[0] // 30), axis=0)[..., None]
    roi = scene[y0:y1, x0:x1].astype(np.float32) * (1 - 0.5 * shadow)
    roi = roi * (1 - alpha) + rgba[..., :3].astype(np.float32) * alpha
    scene[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
    mask = alpha[..., 0] > 0.5
    region = ids[y0:y1, x0:x1]
    region[mask] = np.where(warped_ids[mask] >= 0, warped_ids[mask], -2)


def _render_rack(rng, face, style: str, view: str, tile_w: int, first_index: int):
    """An upright rack with its tiles, BGRA, its ids (tile index, -2 rack body, -1 empty) and
    its tiles' face quads in rack pixels."""
    tiers = int(rng.choice([1, 2, 3], p=[0.35, 0.4, 0.25]))
    slots = int(rng.integers(8, 17))
    squash = {"front": (0.85, 1.0), "oblique": (0.75, 1.0), "above": (0.45, 0.8)}[view]
    fy = rng.uniform(*squash)
    tile_h = tile_w * 1.35
    face_h = tile_h * fy
    gap = tile_w * rng.uniform(0.0, 0.06)
    margin = tile_w * rng.uniform(0.2, 0.8)
    width = int(2 * margin + slots * (tile_w + gap))
    foot_hide = rng.uniform(0.06, 0.22)  # the tier in front (or the lip) hides this share
    lip_h = face_h * rng.uniform(0.15, 0.35)
    tier_step = face_h * (1 - foot_hide)
    top_pad = face_h * 0.15
    height = int(top_pad + tier_step * (tiers - 1) + face_h + lip_h)
    canvas = np.zeros((height, width, 3), np.uint8)
    rack_ids = np.full((height, width), -1, np.int32)
    alpha = np.zeros((height, width), np.uint8)
    # The rack's back board: from under the top tier's numerals to the bottom.
    board_top = int(top_pad + face_h * rng.uniform(0.45, 0.75))
    canvas[board_top:] = _rack_texture(rng, style, height - board_top, width).astype(np.uint8)
    alpha[board_top:] = 255
    rack_ids[board_top:] = -2
    side = None
    if view == "above":  # the tiles' top edges show, lighter than the board
        side = (float(rng.uniform(0.08, 0.2)), -90.0 + rng.normal(0, 5), np.array([180.0] * 3))
    quads: list[tuple[str, np.ndarray]] = []  # (label, 4x2 face corners)
    for tier in range(tiers):
        top = top_pad + tier * tier_step
        x = margin
        for _ in range(slots):
            if rng.random() < 0.15:  # an empty slot
                x += tile_w + gap
                continue
            label = random_label(rng)
            img = face(rng, label, tile_w)
            img = cv2.resize(img, (tile_w, max(4, int(img.shape[0] * fy))))
            th, tw = img.shape[:2]
            lean = rng.normal(0, 1.5) if rng.random() < 0.85 else rng.uniform(-8, 8)
            cx, cy = x + tw / 2, top + th / 2
            matrix = piece_matrix(tw, th, cx, cy, lean)
            index = first_index + len(quads)
            paste_piece(canvas, rack_ids, img, matrix, index, side)
            corners = piece_corners(matrix, tw, th)
            cv2.fillConvexPoly(alpha, corners.astype(np.int32), 255)
            quads.append((label, corners))
            x += tw + gap + abs(rng.normal(0, tile_w * 0.01))
        # This tier's lip, over its tiles' feet (the next tier's tiles then hide it).
        lip_top = int(top + face_h * (1 - foot_hide))
        lip_bottom = int(min(height, lip_top + (lip_h if tier == tiers - 1 else face_h * 0.3)))
        if lip_bottom > lip_top:
            lip = _rack_texture(rng, style, lip_bottom - lip_top, width) * rng.uniform(0.8, 1.15)
            canvas[lip_top:lip_bottom] = np.clip(lip, 0, 255).astype(np.uint8)
            canvas[lip_top : lip_top + 2] = np.clip(lip[:2] * 1.3, 0, 255).astype(np.uint8)
            alpha[lip_top:lip_bottom] = 255
            rack_ids[lip_top:lip_bottom] = -2
    rack_ids[(alpha == 0)] = -1
    bgra = np.dstack([canvas, alpha])
    return bgra, rack_ids, quads
