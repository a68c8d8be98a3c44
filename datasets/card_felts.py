"""Printed casino felts: a card table's covering with its layout printed on it.

Blackjack and poker felts print rules along arcs ("BLACKJACK PAYS 3 TO 2"), seat numbers in
betting circles and, on many, pictures of cards (a fanned ace and jack, the four aces). A reader
that learned only plain tables reads those letters and pictures as cards ("four aces" on a
blackjack felt with no card dealt). ``printed_felt`` draws such a felt and returns, beside it,
a box round every printed glyph an index could be taken for (a rank's letters and digits, with
a suit where one is printed under it): the reader's hard negatives, as ``CardScene.decoys``.

Printed card pictures are drawn as prints on cloth are: in the felt's inks, or a face whose
white is the felt's colour showing through (ink laid on fibres), with no shadow, edge or gloss:
what tells a printed card from a card lying on the felt in a photo.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from datasets.scene import smooth_noise

# Felt colours (BGR) and the inks printed on them.
FELT_COLOURS = (
    (40, 105, 25),  # casino green
    (55, 120, 35),
    (110, 60, 20),  # blue
    (35, 35, 140),  # red
    (40, 25, 95),  # burgundy
    (40, 40, 40),  # black
    (120, 100, 30),  # teal
)
INKS = ((70, 185, 225), (90, 215, 240), (235, 235, 235), (200, 200, 200), (40, 160, 210))
TEXTS = (
    "BLACKJACK PAYS 3 TO 2",
    "DEALER MUST DRAW TO 16 AND STAND ON ALL 17s",
    "INSURANCE PAYS 2 TO 1",
    "DEALER MUST STAND ON SOFT 17",
    "TEXAS HOLD'EM",
    "POKER",
    "ROYAL CASINO",
    "BLACKJACK",
    "ACE KING QUEEN JACK",
    "PAYS 2 TO 1",
)
# What an index could be taken for: the ranks' letters in every index-letter set, the digits.
INDEX_LIKE = set("AKQJWDBVR0123456789")
SUIT_MARKS = "\u2660\u2663\u2665\u2666"
EMBLEM_RANKS = ("A", "A", "A", "K", "Q", "J", "10", "7")


def _felt(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    base: np.ndarray = np.array(FELT_COLOURS[int(rng.integers(0, len(FELT_COLOURS)))], np.float32)
    base = base * rng.uniform(0.8, 1.25) + rng.normal(0, 6, 3)
    tex = base[None, None, :] * (0.88 + 0.12 * smooth_noise(rng, h, w, 50)[..., None])
    tex = tex + rng.normal(0, rng.uniform(3, 9), (h, w, 1))  # the nap's fibres
    return np.clip(tex, 0, 255).astype(np.float32)


def _glyph(text: str, font, ink_alpha: float) -> np.ndarray:
    """A glyph (or a short string) as an alpha mask, tight."""
    left, top, right, bottom = font.getbbox(text)
    mask = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(mask).text((2 - left, 2 - top), text, fill=int(255 * ink_alpha), font=font)
    return np.asarray(mask, np.float32) / 255.0


def _paste(
    canvas: np.ndarray, mask: np.ndarray, colour, cx: float, cy: float, angle: float
) -> np.ndarray:
    """Ink ``mask`` centred at (cx, cy) turned ``angle`` degrees; the mask's corners on the
    canvas (4x2, clockwise from its top-left)."""
    mh, mw = mask.shape
    matrix = cv2.getRotationMatrix2D((mw / 2, mh / 2), angle, 1.0)
    matrix[:, 2] += (cx - mw / 2, cy - mh / 2)
    corners = np.array([[0, 0], [mw, 0], [mw, mh], [0, mh]], np.float32)
    on_canvas = cv2.transform(corners[None], matrix)[0]
    # Warped only into the turned mask's bounding box (a pixel's margin for the interpolation),
    # not the whole canvas: a felt's dozens of glyphs render 3x faster (rounding moves a few
    # pixels in 10,000 by a few levels).
    h, w = canvas.shape[:2]
    x0, y0 = (max(0, int(np.floor(v)) - 1) for v in on_canvas.min(axis=0))
    x1, y1 = (int(np.ceil(v)) + 2 for v in on_canvas.max(axis=0))
    x1, y1 = min(w, x1), min(h, y1)
    if x1 > x0 and y1 > y0:
        shifted = matrix.copy()
        shifted[:, 2] -= (x0, y0)
        warped = cv2.warpAffine(
            mask, shifted, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderValue=0
        )
        a = warped[:, :, None]
        region = canvas[y0:y1, x0:x1]
        canvas[y0:y1, x0:x1] = region * (1 - a) + np.float32(colour) * a
    return on_canvas


def _index_box(corners: np.ndarray, aspect: float = 0.62) -> np.ndarray:
    """The box an index detector would draw round a glyph: its quad widened or heightened to
    an index's proportions (width / height ``aspect``), same centre and turn."""
    centre = corners.mean(axis=0)
    u = (corners[1] - corners[0]) / 2  # half the glyph's width, along its baseline
    v = (corners[3] - corners[0]) / 2  # half its height
    width, height = np.linalg.norm(u) * 2, np.linalg.norm(v) * 2
    if width < aspect * height:
        u = u * (aspect * height / np.maximum(width, 1e-6))
    else:
        v = v * (width / aspect / np.maximum(height, 1e-6))
    return np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v], np.float32)


def _arc_text(
    canvas, text: str, font, colour, centre, radius: float, mid: float, boxes: list
) -> None:
    """``text`` along a circle (centre, radius), centred at angle ``mid`` (radians, 0 = down),
    each letter upright to the circle; boxes round its index-like letters."""
    sizes = [
        font.getbbox(ch)[2] - font.getbbox(ch)[0] if ch != " " else font.size * 0.4 for ch in text
    ]
    spacing = font.size * 0.12
    total = sum(sizes) + spacing * (len(text) - 1)
    angle = mid - total / 2 / radius  # left to right, each letter's top toward the centre
    for ch, size in zip(text, sizes, strict=True):
        a = angle + (size / 2) / radius
        angle += (size + spacing) / radius
        if ch == " ":
            continue
        x = centre[0] + radius * math.sin(a)
        y = centre[1] + radius * math.cos(a)
        corners = _paste(canvas, _glyph(ch, font, 1.0), colour, x, y, math.degrees(a))
        if ch in INDEX_LIKE:
            boxes.append(_index_box(corners))


def _emblem(rng, canvas, font_for, colour, cx, cy, card_w, angle, boxes: list) -> None:
    """A printed card: an outline in ink, or a face whose white is the felt showing through,
    its rank and suit printed in two corners (boxed as decoys)."""
    card_h = card_w * 1.4
    face = rng.random() < 0.5
    rank = EMBLEM_RANKS[int(rng.integers(0, len(EMBLEM_RANKS)))]
    suit = SUIT_MARKS[int(rng.integers(0, 4))]
    red = suit in "\u2665\u2666"
    outline = np.zeros((int(card_h) + 4, int(card_w) + 4), np.float32)
    cv2.rectangle(
        outline, (2, 2), (int(card_w) + 1, int(card_h) + 1), 1.0, max(1, int(card_w / 40))
    )
    if face:  # a print in pale ink: the felt's colour and nap show through, no edge, no shadow
        fill = np.zeros_like(outline)
        cv2.rectangle(fill, (2, 2), (int(card_w) + 1, int(card_h) + 1), rng.uniform(0.3, 0.6), -1)
        _paste(canvas, fill, (225, 230, 230) if rng.random() < 0.6 else colour, cx, cy, angle)
    _paste(canvas, outline, colour, cx, cy, angle)
    ink = ((40, 40, 190) if red else (30, 30, 30)) if face and rng.random() < 0.4 else colour
    font = font_for(int(card_w * rng.uniform(0.14, 0.2)))
    rank_mask = _glyph(rank, font, 1.0)
    suit_mask = _glyph(suit, font, 1.0)
    gap = font.size * 0.15
    stack_w = max(rank_mask.shape[1], suit_mask.shape[1])
    stack = np.zeros((rank_mask.shape[0] + suit_mask.shape[0] + int(gap), stack_w), np.float32)
    stack[: rank_mask.shape[0], (stack_w - rank_mask.shape[1]) // 2 :][:, : rank_mask.shape[1]] = (
        rank_mask
    )
    top = rank_mask.shape[0] + int(gap)
    left = (stack_w - suit_mask.shape[1]) // 2
    stack[top : top + suit_mask.shape[0], left : left + suit_mask.shape[1]] = suit_mask
    t = math.radians(angle)
    ux, uy = math.cos(t), -math.sin(t)  # the card's x axis on the canvas (cv2 turns clockwise)
    vx, vy = math.sin(t), math.cos(t)
    for sx, sy, turn in ((-1, -1, 0), (1, 1, 180)):
        dx = sx * (card_w / 2 - stack_w / 2 - card_w * 0.05)
        dy = sy * (card_h / 2 - stack.shape[0] / 2 - card_w * 0.05)
        corners = _paste(
            canvas, stack, ink, cx + dx * ux + dy * vx, cy + dx * uy + dy * vy, angle + turn
        )
        boxes.append(corners.astype(np.float32))


def printed_felt(
    rng: np.random.Generator, h: int, w: int, font_for: Callable[[int], ImageFont.FreeTypeFont]
) -> tuple[np.ndarray, list[np.ndarray]]:
    """A printed casino felt (BGR uint8) and the quads (4x2, canvas pixels) round its
    index-like glyphs. ``font_for(size)``: the felt's typeface at a size in pixels."""
    canvas = _felt(rng, h, w)
    side = max(h, w)
    fonts = [font_for(int(size)) for size in rng.uniform(0.018, 0.04, 3) * side]
    colour = INKS[int(rng.integers(0, len(INKS)))]
    boxes: list[np.ndarray] = []
    centre = (w * rng.uniform(0.35, 0.65), -h * rng.uniform(0.1, 0.5))  # the dealer's side
    radius = side * rng.uniform(0.55, 0.9)
    band = np.zeros((h, w), np.float32)
    for r in (radius * 0.72, radius * 0.8):  # the insurance band's two arcs
        cv2.circle(band, (int(centre[0]), int(centre[1])), int(r), 1.0, max(2, side // 300))
    canvas = canvas * (1 - band[..., None]) + np.array(colour, np.float32) * band[..., None]
    texts = [TEXTS[i] for i in rng.permutation(len(TEXTS))[: int(rng.integers(2, 5))]]
    for k, text in enumerate(texts):
        font = fonts[int(rng.integers(0, len(fonts)))]
        r = radius * (0.5 + 0.14 * k + rng.uniform(-0.03, 0.03))
        _arc_text(canvas, text, font, colour, centre, r, rng.uniform(-0.15, 0.15), boxes)
    seats = int(rng.integers(5, 8))
    numbered = rng.random() < 0.6
    for s in range(seats):  # betting circles (or boxes), numbered on some felts
        a = (s - (seats - 1) / 2) * rng.uniform(0.16, 0.22)
        x = centre[0] + radius * 1.12 * math.sin(a)
        y = centre[1] + radius * 1.12 * math.cos(a)
        r = side * rng.uniform(0.025, 0.045)
        ring = np.zeros((h, w), np.float32)
        cv2.circle(ring, (int(x), int(y)), int(r), 1.0, max(2, side // 400))
        canvas = canvas * (1 - ring[..., None]) + np.array(colour, np.float32) * ring[..., None]
        if numbered:
            font = fonts[int(rng.integers(0, len(fonts)))]
            corners = _paste(canvas, _glyph(str(s + 1), font, 1.0), colour, x, y, math.degrees(a))
            boxes.append(_index_box(corners))
    for _ in range(int(rng.integers(0, 5))):  # printed card pictures
        card_w = side * rng.uniform(0.05, 0.12)
        _emblem(
            rng,
            canvas,
            font_for,
            colour,
            rng.uniform(0.1, 0.9) * w,
            rng.uniform(0.1, 0.9) * h,
            card_w,
            rng.uniform(-40, 40),
            boxes,
        )
    return np.clip(canvas, 0, 255).astype(np.uint8), boxes
