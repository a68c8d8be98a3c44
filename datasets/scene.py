"""Scene helpers shared by the tile, domino and card generators: table surfaces, pasting a
piece with its shadow, piece geometry, how much of a piece shows, the photo's size, the camera's
tilt and a phone photo's light, blur, noise and JPEG.

Each takes its randomness from the caller's ``np.random.Generator``, in a fixed order: the
scenes a seed gives depend on it.
"""

from __future__ import annotations

import math

import cv2
import numpy as np


def smooth_noise(rng, h: int, w: int, cells: int) -> np.ndarray:
    small = rng.random((max(2, h // cells), max(2, w // cells))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def background(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A table surface, BGR uint8."""
    kind = ["wood", "cloth", "marble", "plain", "paper", "wood"][int(rng.integers(0, 6))]
    base = rng.uniform(30, 230, 3)
    if kind == "wood":
        base = np.array([rng.uniform(20, 90), rng.uniform(45, 120), rng.uniform(70, 190)])
        y = np.arange(h, dtype=np.float32)[:, None]
        warp = smooth_noise(rng, h, w, 60) * rng.uniform(10, 40)
        freq = rng.uniform(0.05, 0.25)
        grain = np.sin((y + warp) * freq + smooth_noise(rng, h, w, 8) * 3) * 0.5 + 0.5
        grain = np.broadcast_to(grain, (h, w))
        tex: np.ndarray = (grain * rng.uniform(0.15, 0.4) + 0.8)[..., None] * base[None, None, :]
        if rng.random() < 0.5:
            tex = np.rot90(tex).copy()
            tex = cv2.resize(tex, (w, h))
    elif kind == "cloth":
        tex = base[None, None, :] * (0.85 + 0.15 * smooth_noise(rng, h, w, 40)[..., None])
        tex = tex + rng.normal(0, 6, (h, w, 1))
    elif kind == "marble":
        base = np.array([rng.uniform(170, 240)] * 3) + rng.normal(0, 8, 3)
        n = smooth_noise(rng, h, w, 30) * 6 + smooth_noise(rng, h, w, 5)
        veins = np.abs(np.sin(n * 3.0)) ** 0.3
        tex = base[None, None, :] * (0.75 + 0.25 * veins[..., None])
    elif kind == "paper":
        base = np.array([rng.uniform(200, 250)] * 3) + rng.normal(0, 6, 3)
        tex = base[None, None, :] + rng.normal(0, 4, (h, w, 1))
    else:
        tex = base[None, None, :] * (0.9 + 0.1 * smooth_noise(rng, h, w, 80)[..., None])
    return np.clip(tex, 0, 255).astype(np.uint8)


def paste_piece(
    scene: np.ndarray,
    ids: np.ndarray,
    tile: np.ndarray,
    matrix: np.ndarray,
    idx: int,
    side: tuple[float, float, np.ndarray] | None = None,
):
    """Warp an RGBA tile into the BGR scene with a drop shadow; mark its pixels in ``ids``.

    ``side``: (depth as a share of the tile's width, direction in degrees, BGR colour) of the
    body's side seen at a slant; by default a thin grey edge below the face.
    Works on the tile's region of interest only (a full-canvas warp per tile is slow).
    """
    h, w = scene.shape[:2]
    quad = piece_corners(matrix, tile.shape[1], tile.shape[0])
    margin = int(tile.shape[1] * (0.15 if side is None else 0.15 + side[0])) + 2
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - margin, 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + margin, [w, h])
    if x1 <= x0 or y1 <= y0:
        return
    local = matrix.copy()
    local[:, 2] -= [x0, y0]
    roi = scene[y0:y1, x0:x1]
    rgba = cv2.warpAffine(
        tile, local, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0)
    )
    alpha = rgba[..., 3:4].astype(np.float32) / 255.0
    # Tile body thickness and shadow: a darkened copy shifted down-right.
    shift = max(1, int(tile.shape[1] * 0.05))
    shadow = np.roll(np.roll(alpha, shift, axis=0), shift // 2, axis=1)
    shadow = cv2.GaussianBlur(shadow, (0, 0), shift * 0.8 + 0.5)
    if shadow.ndim == 2:
        shadow = shadow[..., None]
    out = roi.astype(np.float32) * (1 - 0.45 * shadow)
    if side is None:
        body = np.roll(alpha, max(1, shift // 2), axis=0)
        side_col = np.array([150, 160, 170], np.float32)
        out = out * (1 - body) + side_col * body
    else:  # an extruded body: the face swept along the view direction, shaded darker
        depth, direction, side_col = side
        dx = math.cos(math.radians(direction)) * depth * tile.shape[1]
        dy = math.sin(math.radians(direction)) * depth * tile.shape[1]
        body = np.zeros_like(alpha[..., 0])
        steps = max(1, int(math.hypot(dx, dy)))
        for k in range(1, steps + 1):
            m = np.array([[1, 0, dx * k / steps], [0, 1, dy * k / steps]], np.float32)
            body = np.maximum(body, cv2.warpAffine(alpha[..., 0], m, body.shape[::-1]))
        body = body[..., None]
        out = out * (1 - body) + np.asarray(side_col, np.float32) * body
    bgr = rgba[..., 2::-1].astype(np.float32)
    out = out * (1 - alpha) + bgr * alpha
    roi[:] = np.clip(out, 0, 255).astype(np.uint8)
    ids[y0:y1, x0:x1][alpha[..., 0] > 0.5] = idx


def visible_share(ids: np.ndarray, quad: np.ndarray, index: int) -> float:
    """Share of a quad's pixels (counted as if the photo were unbounded) that show piece
    ``index`` in ``ids``: covered or off-photo pixels count as hidden. Shared by the domino and
    card generators."""
    h, w = ids.shape
    fx0, fy0 = np.floor(quad.min(axis=0)).astype(int)
    fx1, fy1 = np.ceil(quad.max(axis=0)).astype(int) + 1
    mask = np.zeros((fy1 - fy0, fx1 - fx0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(quad - [fx0, fy0]).astype(np.int32), 1)
    total = int(mask.sum())
    x0, y0, x1, y1 = max(fx0, 0), max(fy0, 0), min(fx1, w), min(fy1, h)
    if total == 0 or x1 <= x0 or y1 <= y0:
        return 0.0
    inside = mask[y0 - fy0 : y1 - fy0, x0 - fx0 : x1 - fx0]
    return np.count_nonzero(inside & (ids[y0:y1, x0:x1] == index)) / total


def piece_matrix(tile_w: int, tile_h: int, cx: float, cy: float, angle: float) -> np.ndarray:
    matrix = cv2.getRotationMatrix2D((tile_w / 2, tile_h / 2), angle, 1.0)
    matrix[0, 2] += cx - tile_w / 2
    matrix[1, 2] += cy - tile_h / 2
    return matrix


def face_angle(quad) -> float:
    """A face's angle in degrees (-180, 180] from its corners (clockwise from the top left): its
    top and bottom edges' direction against the photo's x axis, y down. A crop cut at this
    angle (``vision.crops.cut_crop``'s ``theta``) shows the tile upright."""
    q = np.asarray(quad, np.float64)
    dx, dy = (q[1] - q[0]) + (q[2] - q[3])
    return math.degrees(math.atan2(dy, dx))


def piece_corners(matrix: np.ndarray, tile_w: int, tile_h: int) -> np.ndarray:
    pts = np.array([[0, 0], [tile_w, 0], [tile_w, tile_h], [0, tile_h]], np.float32)
    return pts @ matrix[:, :2].T + matrix[:, 2]


def photo_size(rng: np.random.Generator) -> tuple[int, int]:
    """A random photo size (w, h): long side 800-1100 px, 4:3, landscape or portrait."""
    long_side = int(rng.choice([800, 960, 1000, 1100]))
    short = int(long_side * 0.75)
    return (long_side, short) if rng.random() < 0.5 else (short, long_side)


def camera(
    rng: np.random.Generator, big_w: int, big_h: int, w: int, h: int, tilt: float = 0.12
) -> np.ndarray:
    """Homography from the padded canvas to the photo: a random tilt (each corner moved up to
    ``tilt`` of the canvas), then a crop to w x h.

    The crop lies inside the tilted canvas (no mirrored border showing unlabelled pieces), and
    when the tilted canvas is smaller than the photo the enlargement is part of the homography,
    so the boxes follow it. Shared by the tile, domino and card scene generators.
    """
    src = np.array([[0, 0], [big_w, 0], [big_w, big_h], [0, big_h]], np.float32)
    dst = (src + rng.uniform(-tilt, tilt, (4, 2)) * [big_w, big_h]).astype(np.float32)
    dst -= dst.min(axis=0)
    tilted = cv2.getPerspectiveTransform(src, dst)
    left, right = max(dst[0, 0], dst[3, 0]) + 1, min(dst[1, 0], dst[2, 0]) - 1
    top, bottom = max(dst[0, 1], dst[1, 1]) + 1, min(dst[2, 1], dst[3, 1]) - 1
    scale = max(w / (right - left), h / (bottom - top), 1.0)
    x0 = rng.uniform(left * scale, max(left * scale, right * scale - w))
    y0 = rng.uniform(top * scale, max(top * scale, bottom * scale - h))
    crop = np.array([[scale, 0, -x0], [0, scale, -y0], [0, 0, 1]])
    return crop @ tilted


def photo_effects(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Light, colour cast, glare, blur, noise and JPEG of a phone photo."""
    h, w = img.shape[:2]
    out = img.astype(np.float32) / 255.0
    # Uneven light: a smooth gradient plus a soft blob.
    gx = np.linspace(rng.uniform(0.6, 1.1), rng.uniform(0.8, 1.2), w, dtype=np.float32)
    gy = np.linspace(rng.uniform(0.6, 1.1), rng.uniform(0.8, 1.2), h, dtype=np.float32)
    light = gy[:, None] * gx[None, :]
    out *= light[..., None]
    if rng.random() < 0.3:  # glare
        cx, cy, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.05, 0.3) * max(w, h)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        glare = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * r * r)) * rng.uniform(0.2, 0.6)
        out += glare[..., None]
    if rng.random() < 0.3:  # a broad soft shadow (hand, phone)
        mask: np.ndarray = np.zeros((h, w), np.float32)
        cv2.circle(
            mask, (int(rng.uniform(0, w)), int(rng.uniform(0, h))), int(0.3 * max(w, h)), 1, -1
        )
        mask = cv2.GaussianBlur(mask, (0, 0), 0.08 * max(w, h))
        out *= (1 - rng.uniform(0.2, 0.5) * mask)[..., None]
    out *= np.array([rng.uniform(0.85, 1.1), rng.uniform(0.92, 1.05), rng.uniform(0.85, 1.15)])
    out = np.clip(out, 0, 1) ** rng.uniform(0.7, 1.4)
    if rng.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.3, 1.6))
    elif rng.random() < 0.2:
        k = int(rng.integers(3, 8))
        kernel: np.ndarray = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        out = cv2.filter2D(out, -1, kernel / max(kernel.sum(), 1e-6))
    out = out + rng.normal(0, rng.uniform(0.0, 0.03), out.shape).astype(np.float32)
    img = (np.clip(out, 0, 1) * 255).astype(np.uint8)
    quality = int(rng.integers(40, 96))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, quality])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return img if decoded is None else decoded
