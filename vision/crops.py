"""Crops cut from the full-resolution photo around a detected box (shared by training and use).

Tiles lie at any angle, and a box is axis-aligned. Before cutting, the tile's angle modulo a
quarter turn is estimated from the dominant edge direction around the box (gradient orientation
histogram, folded four times: a tile's sides, its neighbours' sides and the face circle's frame
all agree), and the crop is cut square to the tile. What is left for the classifier is a tile at
one of four quarter turns, which it learned from quarter-turned training crops: far easier
than any angle.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

CROP_SIZE = 64  # classifier input, square
CROP_MARGIN = 0.06  # share of the tile's size added on each side
STORE_SIZE = 80  # training stores crops larger (margin STORE_MARGIN) to augment by re-cropping
STORE_MARGIN = 0.16
_ANGLE_PATCH = 96


def tile_angle(image: np.ndarray, bbox) -> float:
    """The tile's angle in degrees, in (-45, 45], from edge directions around the box."""
    x1, y1, x2, y2 = (float(v) for v in bbox)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    side = max(x2 - x1, y2 - y1, 1.0) * 1.1
    n = _ANGLE_PATCH
    s = n / side
    matrix = np.array([[s, 0, n / 2 - cx * s], [0, s, n / 2 - cy * s]], np.float32)
    # Only what the patch samples, grey (the edges' directions need no colour), blurred first
    # when the patch shrinks it, so that the sampling does not alias.
    sigma = 0.5 / s if s < 1 else 0.0
    region = _region(image, cx, cy, side / 2 + math.ceil(3 * sigma) + 2)
    if region is None:
        return 0.0
    patch_src, ox, oy = region
    patch_src = cv2.cvtColor(patch_src, cv2.COLOR_BGR2GRAY)
    if sigma:
        patch_src = cv2.GaussianBlur(patch_src, (0, 0), sigma)
    matrix[0, 2] -= ox * s
    matrix[1, 2] -= oy * s
    patch = cv2.warpAffine(patch_src, matrix, (n, n), borderMode=cv2.BORDER_REPLICATE)
    gray = cv2.GaussianBlur(patch.astype(np.float32), (0, 0), 1.2)
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    weight = (gx * gx + gy * gy) * _window(n)
    phi = np.arctan2(gy, gx)
    z = complex((weight * np.cos(4 * phi)).sum(), (weight * np.sin(4 * phi)).sum())
    if abs(z) < 1e-6:
        return 0.0
    return math.degrees(math.atan2(z.imag, z.real) / 4)


def _region(image: np.ndarray, cx: float, cy: float, half: float):
    """The image part within ``half`` of (cx, cy), and its offset (for cheap blurring)."""
    ix1, iy1 = max(0, int(cx - half)), max(0, int(cy - half))
    ix2, iy2 = min(image.shape[1], int(cx + half) + 1), min(image.shape[0], int(cy + half) + 1)
    if ix2 <= ix1 or iy2 <= iy1:
        return None
    return image[iy1:iy2, ix1:ix2], -ix1, -iy1


_windows: dict[int, np.ndarray] = {}


def _window(n: int) -> np.ndarray:
    if n not in _windows:
        yy, xx = np.mgrid[0:n, 0:n].astype(np.float32)
        sigma = n * 0.35
        _windows[n] = np.exp(-((xx - n / 2) ** 2 + (yy - n / 2) ** 2) / (2 * sigma * sigma))
    return _windows[n]


def face_size(
    box_w: float, box_h: float, theta: float, sides: tuple[float, float] | None = None
) -> tuple[float, float]:
    """The sides (along the tile's own axes) of a rectangle turned ``theta`` degrees whose
    axis-aligned box is ``box_w`` x ``box_h`` (``sides``: where known, a rotated box's; kept
    within the same bounds)."""
    c, s = abs(math.cos(math.radians(theta))), abs(math.sin(math.radians(theta)))
    det = c * c - s * s
    if sides is not None:
        w, h = sides
    elif det > 0.35:  # the box's sides give the tile's sides
        w, h = (c * box_w - s * box_h) / det, (c * box_h - s * box_w) / det
    else:  # near 45 degrees the sides are ill-defined: a square
        w = h = max(box_w, box_h) / (c + s)
    big = max(box_w, box_h)
    return min(max(w, 0.35 * big), 1.2 * big), min(max(h, 0.35 * big), 1.2 * big)


def cut_geometry(bbox, theta: float, sides=None) -> tuple[float, float, float]:
    """The angle ``cut_crop`` cuts the tile in ``bbox`` at, given its angle ``theta``, and the
    tile's sides (``sides``, along ``theta``'s axes, where known: a rotated box's; otherwise
    ``face_size``'s): a tile lying sideways is turned a quarter more, so its long side is
    vertical."""
    x1, y1, x2, y2 = (float(v) for v in bbox)
    w, h = face_size(max(1.0, x2 - x1), max(1.0, y2 - y1), theta, sides)
    if w > h * 1.05:
        return theta + 90.0, h, w
    return theta, w, h


def cut_quadrant(bbox, theta: float, sides=None) -> int:
    """Which quarter of a turn (counter-clockwise from upright, 0-3) the crop ``cut_crop`` cuts
    at ``theta`` is turned: a tile shown turned t quarters in it lies (quadrant - t) quarters
    from upright in the photo."""
    return round(cut_geometry(bbox, theta, sides)[0] / 90.0) % 4


def cut_mapping(bbox, angle: float, sides: tuple[float, float], out: tuple[int, int]):
    """The affine map (2 x 3, for ``cv2.WARP_INVERSE_MAP``) from an output pixel to the photo
    point it shows, for a cut of the rectangle ``sides`` (w, h) turned by ``angle`` degrees
    round ``bbox``'s centre onto ``out`` (width, height) pixels: output pixel (u, v) ->
    centre + R(angle) @ ((u - width/2) w/width, (v - height/2) h/height)."""
    x1, y1, x2, y2 = (float(v) for v in bbox)
    (w, h), (out_w, out_h) = sides, out
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    linear = np.array([[ca * w / out_w, -sa * h / out_h], [sa * w / out_w, ca * h / out_h]])
    shift = np.array([(x1 + x2) / 2, (y1 + y2) / 2]) - linear @ np.array([out_w / 2, out_h / 2])
    return np.hstack([linear, shift[:, None]])


def cut_crop(
    image: np.ndarray,
    bbox,
    size: int = CROP_SIZE,
    margin: float = CROP_MARGIN,
    theta: float | None = None,
    sides: tuple[float, float] | None = None,
):
    """The tile in ``bbox`` cut square to its own sides, portrait when the sides tell, squashed
    to ``size`` x ``size``; pixels outside the photo are grey (114). ``theta``: the tile's
    angle when known (default: ``tile_angle``'s estimate); ``sides``: its sides along
    ``theta``'s axes when known (``cut_geometry``)."""
    if theta is None:
        theta = tile_angle(image, bbox)
    angle, w, h = cut_geometry(bbox, theta, sides)
    w *= 1 + 2 * margin
    h *= 1 + 2 * margin
    mapping = cut_mapping(bbox, angle, (w, h), (size, size))
    linear, shift = mapping[:, :2], mapping[:, 2]
    matrix = mapping.astype(np.float32)
    src = image
    step = max(w, h) / size
    if step > 1.5:  # shrinking a lot: blur first so that the sampling does not alias
        sigma = 0.45 * step
        # Only the part the crop samples is blurred: its corners' extent, widened by the
        # blur's reach (OpenCV's kernel for 8-bit images: 3 sigma each side) and a pixel for
        # the bilinear sampling; the sampled values are those of the whole photo blurred.
        corners = linear @ np.array([[0, size, 0, size], [0, 0, size, size]]) + shift[:, None]
        reach = math.ceil(3 * sigma) + 2
        left, top = (max(0, math.floor(v) - reach) for v in corners.min(1))
        right = min(image.shape[1], math.ceil(corners[0].max()) + reach + 1)
        bottom = min(image.shape[0], math.ceil(corners[1].max()) + reach + 1)
        if right > left and bottom > top:
            src = cv2.GaussianBlur(image[top:bottom, left:right], (0, 0), sigma)
            matrix[0, 2] -= left
            matrix[1, 2] -= top
    return cv2.warpAffine(
        src,
        matrix,
        (size, size),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(114, 114, 114),
    )


def to_tensor(crops: list[np.ndarray], half_turns: bool = False) -> np.ndarray:
    """BGR uint8 crops -> float32 NCHW RGB in 0..1 (the readers' input); with ``half_turns``,
    followed by each crop turned half a turn (the readers read both and average them)."""
    batch = cv2.dnn.blobFromImages(crops, 1 / 255.0, swapRB=True)
    if half_turns:
        batch = np.concatenate([batch, batch[:, :, ::-1, ::-1]])
    return batch


def read_views(session, crops: list[np.ndarray]) -> tuple[np.ndarray, ...]:
    """A reader's outputs for ``crops`` (an onnxruntime session with input "crops"), each head's
    as 2 x N x classes: the crops as they are, then turned half a turn. Two heads, or three
    with a ``value_turn`` head (value x the four quarter turns the piece shows in its crop)."""
    outputs = session.run(None, {"crops": to_tensor(crops, half_turns=True)})
    n = len(crops)
    return tuple(np.stack([out[:n], out[n:]]) for out in outputs)
