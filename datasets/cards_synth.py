"""Synthetic photos of playing cards on tables, with exact labels down to each corner index.

A card detector that survives fans and overlaps learns the **corner index** (rank over suit
symbol), the one thing all deck designs share, so every face-up card comes with its quad and
the boxes of its *visible* corner indices.

Each scene: a procedural table (``tiles_synth.background``), then any mix of

- fanned hands (later cards on top, turning clockwise, so each card's top-left index shows),
- laid-down melds: rows of cards overlapping sideways or cascading downwards, or apart,
- loose cards at any angle, a face-down stock pile and a face-up discard pile,
- face-down cards (drawn and occluding, never labelled), chips, coins, pencils, score pads,

then per-card glossy glare, camera tilt (perspective) and ``tiles_synth.photo_effects``.
Card faces are procedural: white / cream stock, rounded corners, an optional frame line, rank
text in one of several DejaVu / Liberation fonts, suit symbols drawn as shapes or as font
glyphs, pip layouts for A-10, placeholder court art, a joker; red / black or four-colour
(diamonds blue or orange, clubs green); two or four corner indices; poker or bridge shape.
One deck style per scene (a second deck, now and then); cards are dealt from one or two
shuffled decks with jokers, so a scene never holds more copies of a card than its decks.

Labels (choices, also in docs/choices/cards-synth.md):

- card labels ``AH``..``KS``, ``10D``, ``JK`` (the names of ``scorer.pieces.parse_card``);
- a corner index is labelled when at least ``CORNER_MIN_VISIBLE`` (90 %) of its box is
  visible (not hidden by a card, chip or clutter, not cut by the photo's edge), or at least
  ``READABLE_HALF_VISIBLE`` (60 %) of each half, rank and suit (an index covered from the side,
  as in a tight fan, whose rank and suit both still show), and its box is at least
  ``MIN_CORNER_PX`` pixels on its short side;
- a face-up card is reported when it has a labelled corner or at least ``CARD_MIN_VISIBLE``
  (50 %) of its face is visible; face-down cards are never reported (``face_down`` keeps
  their quads for tests).

Everything is driven by one integer seed: scene ``i`` of a run uses ``seed * 1_000_003 + i``,
as for tiles, so any scene can be rebuilt alone.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from datasets.scene import (
    background,
    camera,
    paste_piece,
    photo_effects,
    photo_size,
    piece_corners,
    piece_matrix,
    visible_share,
)
from meldcam.vocabulary import CARD_JOKER as JOKER
from meldcam.vocabulary import CARD_RANKS as RANKS
from meldcam.vocabulary import CARD_SUITS as SUITS
from meldcam.vocabulary import INDEX_LETTERS, card_name

CORNER_MIN_VISIBLE = 0.9
# Or labelled when at least this share of each half of its box (the rank's, the suit's) shows:
# a tight fan covers the side of each index, and a player still reads its rank and suit.
READABLE_HALF_VISIBLE = 0.6
# An index at least this visible, but not labelled, is partly shown: never a training label,
# but calibration judges a reading of it by its card's label.
CORNER_PARTLY_SHOWN = 0.2
CARD_MIN_VISIBLE = 0.5
MIN_CORNER_PX = 5

FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts"))
RANK_FONT_NAMES = (
    "DejaVuSans-Bold.ttf",
    "DejaVuSansCondensed-Bold.ttf",
    "DejaVuSerif-Bold.ttf",
    "DejaVuSerifCondensed-Bold.ttf",
    "DejaVuSans.ttf",
    "LiberationSans-Bold.ttf",
    "LiberationSansNarrow-Bold.ttf",
    "LiberationSerif-Bold.ttf",
    "LiberationSerif-Regular.ttf",
    "LiberationMono-Bold.ttf",
)
GLYPH_FONT_NAMES = ("DejaVuSans.ttf", "DejaVuSerif-Bold.ttf", "LiberationSans-Bold.ttf")
# Look 2 (more index fonts for the reader): the other system faces, and where matplotlib is
# installed (the training extra brings it) its STIX (Times-like, thin serif) and Computer Modern
# faces. Real decks print their own index lettering; more shapes of each rank, plus the shape
# jitter of ``DeckStyle.rank_stretch`` / ``rank_shear`` / ``rank_stroke``, teach the reader
# what a 3 or a Q has in common across designs rather than one font's outline.
EXTRA_RANK_FONT_NAMES = (
    "DejaVuSerif.ttf",
    "DejaVuSerifCondensed.ttf",
    "DejaVuSansCondensed.ttf",
    "DejaVuSansMono-Bold.ttf",
    "DejaVuSans-BoldOblique.ttf",
    "LiberationSans-Regular.ttf",
    "LiberationSansNarrow-Regular.ttf",
    "LiberationSerif-BoldItalic.ttf",
    "LiberationMono-Regular.ttf",
    "STIXGeneral.ttf",
    "STIXGeneralBol.ttf",
    "STIXGeneralItalic.ttf",
    "cmr10.ttf",
    "cmb10.ttf",
    "cmss10.ttf",
    "cmtt10.ttf",
)
SUIT_GLYPHS = {"S": "\u2660", "C": "\u2663", "H": "\u2665", "D": "\u2666"}


def all_labels() -> list[str]:
    """The 52 card labels and the joker, in deck order."""
    return [card_name(rank, suit) for suit in SUITS for rank in RANKS] + [JOKER]


@dataclass(frozen=True)
class CornerIndex:
    """One visible corner index: which corner of the card, its box and quad in the photo."""

    corner: str  # "tl", "br", "tr" or "bl" as printed on the card (before any rotation)
    box: tuple[float, float, float, float]  # x1, y1, x2, y2, inside the photo
    quad: tuple[tuple[float, float], ...]  # 4 points, clockwise from the index's top-left
    visible: float  # fraction of the index box that is visible


@dataclass(frozen=True)
class CardLabel:
    label: str
    quad: tuple[tuple[float, float], ...]  # card corners, clockwise from the face's top-left
    box: tuple[float, float, float, float]  # the quad's box, clipped to the photo
    visible: float  # fraction of the face that is visible
    corners: tuple[CornerIndex, ...]  # only the labelled (>= 90 % visible) indices
    partial: tuple[CornerIndex, ...] = ()  # the partly shown indices (20-90 % visible)


@dataclass(frozen=True)
class CardScene:
    image: np.ndarray  # BGR uint8
    cards: tuple[CardLabel, ...]  # face-up cards, in drawing order
    face_down: tuple[tuple[tuple[float, float], ...], ...]  # quads of face-down cards
    # Face-up cards not in ``cards`` (no labelled index, under half the face shown) with a
    # partly shown index: what a reading of that index is judged against (calibration).
    partly_shown: tuple[CardLabel, ...] = ()
    # Boxes round two stacked pips of a face-up card, at least 90 % visible, and round a lone
    # pip by another card's edge (``pip_decoys``): the reader's hard negatives.
    decoys: tuple[tuple[float, float, float, float], ...] = ()

    def corner_labels(self) -> list[tuple[str, list[float]]]:
        """Training rows for a corner detector: (card label, [x1, y1, x2, y2]) per index."""
        return [(c.label, list(k.box)) for c in self.cards for k in c.corners]


@dataclass(frozen=True)
class DeckStyle:
    """How one deck is printed; frozen so that a style is a plain value."""

    stock: tuple[int, int, int]
    aspect: float  # height / width: 1.40 poker, 1.56 bridge
    radius: float  # corner radius / width
    frame: bool  # a thin line around the face
    rank_font: str
    suit_glyph_font: str | None  # None: suit symbols drawn as shapes
    index_size: float  # rank text height / width
    index_margin: float  # distance of the index from the edge / width
    four_index: bool
    inks: tuple[tuple[int, int, int], ...]  # C, D, H, S
    joker_ink: tuple[int, int, int]
    back: tuple[int, int, int]
    back_pattern: str
    # Look 2's lettering jitter (look 1: none): rank width x, slant, strokes thinned (< 0) or
    # thickened (> 0) on each side by this share of the rank's height.
    rank_stretch: float = 1.0
    rank_shear: float = 0.0
    rank_stroke: float = 0.0
    # Look 3: the 3 printed flat-topped (the capital ezh's shape, as on many European decks).
    flat_three: bool = False
    # Look 4 (hard negatives for the reader): pips larger and nearer the index columns (a pair
    # of stacked pips beside the index looks like rank over suit), court art busy with small
    # shapes, backs printed in a fine pattern (as most real decks).
    pip_scale: float = 1.0
    pip_inset: float = 0.0  # the pip area reaches this share of the width towards the indices
    busy_court: bool = False
    # Look 5: the back most real decks print, coloured diamonds between white lines; the lines'
    # width as a share of the pattern's step, and how many steps span the card (0: not this back).
    back_line: float = 0.0
    back_cells: float = 0.0
    # Look 6: the courts' and the ace's index letters in the deck's language (INDEX_LETTERS).
    index_letters: str = "en"
    # The Q printed as most English-pattern decks print it: a narrow O crossed near its foot by
    # a bar reaching out on both sides (the font's own Q otherwise).
    crossed_q: bool = False
    # The 10 printed as many real decks print it: a plain I and a tall narrow O ("IO", as the
    # real `cd3_` deck's), the O this share of the font's O wide (0: the font's own 10); the
    # first glyph reader took such a real 10 for a D (docs/experiments/cards.md, "Telling the
    # letters").
    narrow_ten: float = 0.0


FLAT_THREE = "\u01b7"  # capital ezh: a 3 with a flat top bar


def _matplotlib_font_dir() -> Path | None:
    """matplotlib's bundled fonts, found without importing it (it is a training extra)."""
    import importlib.util

    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(spec.submodule_search_locations[0]) / "mpl-data" / "fonts" / "ttf"
    return folder if folder.is_dir() else None


@lru_cache(maxsize=1)
def _font_files() -> dict[str, str]:
    found: dict[str, str] = {}
    roots = (*FONT_DIRS, *filter(None, [_matplotlib_font_dir()]))
    for name in (*RANK_FONT_NAMES, *GLYPH_FONT_NAMES, *EXTRA_RANK_FONT_NAMES):
        for root in roots:
            hits = sorted(root.rglob(name)) if root.is_dir() else []
            if hits:
                found[name] = str(hits[0])
                break
    if not found:
        raise RuntimeError("no TrueType font found: install fonts-dejavu-core")
    return found


def rank_fonts() -> tuple[str, ...]:
    files = _font_files()
    return tuple(files[n] for n in RANK_FONT_NAMES if n in files)


def look2_rank_fonts() -> tuple[str, ...]:
    """Look 2's rank fonts: look 1's and the extra faces found on this machine."""
    files = _font_files()
    return rank_fonts() + tuple(files[n] for n in EXTRA_RANK_FONT_NAMES if n in files)


def flat_three_fonts() -> tuple[str, ...]:
    """Look 2's rank fonts that have the capital ezh."""
    fonts = []
    for path in look2_rank_fonts():
        font = _font(path, 40)
        # A font without the glyph draws its "missing" box, the same for any missing letter.
        if font.getmask(FLAT_THREE).getbbox() != font.getmask("\uffff").getbbox():
            fonts.append(path)
    return tuple(fonts)


def glyph_fonts() -> tuple[str, ...]:
    files = _font_files()
    return tuple(files[n] for n in GLYPH_FONT_NAMES if n in files)


@lru_cache(maxsize=128)
def _font(path: str, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, max(4, size))


FINE_BACKS = ("fine_lattice", "fine_rings", "fine_checks")


def _rgb(values: np.ndarray) -> tuple[int, int, int]:
    """Three channel values as a colour of ints."""
    r, g, b = (int(v) for v in values)
    return r, g, b


def random_style(
    rng: np.random.Generator,
    look: int = 1,
    letter_sets: tuple[str, ...] = tuple(INDEX_LETTERS),
    dark_faces: bool = False,
    crossed_q: float = 0.0,
) -> DeckStyle:
    """One deck's printing. ``look=2``: more rank fonts and jittered lettering (the draws of
    look 1 are unchanged, so its seeds render as before); ``look=3``: look 2, and half the
    decks print their 3 flat-topped; ``look=4``: look 2 (a quarter of the decks with flat 3s),
    pips larger and nearer the indices, busy court art and finely patterned backs; ``look=5``:
    look 4, and most decks' backs printed as real decks' are (coloured diamonds between white
    lines); ``look=6``: look 5, the index letters of a deck language drawn from ``letter_sets``
    (Polish W D K A, German B D K A, French V D R A, English), and a fifth of the decks with
    dark faces and light inks (every deck with ``dark_faces``: a deck style measured apart).
    ``crossed_q``: this share of the decks print the crossed Q (``DeckStyle.crossed_q``; drawn
    last, so that a style drawn without it is unchanged)."""
    red = (int(rng.uniform(170, 225)), int(rng.uniform(10, 45)), int(rng.uniform(25, 60)))
    black = _rgb(rng.uniform(10, 45, 3))
    if rng.random() < 0.2:  # four-colour deck: clubs green, diamonds blue (or orange)
        green = (int(rng.uniform(10, 40)), int(rng.uniform(110, 150)), int(rng.uniform(40, 80)))
        if rng.random() < 0.75:
            diamonds = (int(rng.uniform(10, 40)), int(rng.uniform(60, 110)), 190)
        else:
            diamonds = (235, int(rng.uniform(120, 160)), 20)
        inks = (green, diamonds, red, black)
    else:
        inks = (black, red, red, black)
    stock = [(250, 250, 248), (245, 242, 232), (252, 248, 236), (240, 240, 242)]
    backs = [(170, 30, 40), (30, 60, 150), (30, 110, 60), (25, 25, 30), (120, 40, 120)]
    glyphs = glyph_fonts()
    # Jumbo indices (poker decks, always two-index) on some decks.
    jumbo = rng.random() < 0.15
    index_size = float(rng.uniform(0.26, 0.32) if jumbo else rng.uniform(0.14, 0.22))
    lettering: dict[str, Any] = {}  # DeckStyle fields
    if look >= 2:
        fonts = look2_rank_fonts()
        lettering = {
            "rank_font": fonts[int(rng.integers(0, len(fonts)))],
            "rank_stretch": float(rng.uniform(0.75, 1.25)),
            "rank_shear": float(rng.uniform(-0.15, 0.15)) if rng.random() < 0.4 else 0.0,
            "rank_stroke": float(rng.uniform(-0.035, 0.035)) if rng.random() < 0.6 else 0.0,
        }
    style = DeckStyle(
        stock=stock[int(rng.integers(0, len(stock)))],
        aspect=1.40 if rng.random() < 0.65 else 1.56,
        radius=float(rng.uniform(0.04, 0.1)),
        frame=bool(rng.random() < 0.3),
        rank_font=rank_fonts()[int(rng.integers(0, len(rank_fonts())))],
        suit_glyph_font=glyphs[int(rng.integers(0, len(glyphs)))] if rng.random() < 0.5 else None,
        index_size=index_size,
        index_margin=float(rng.uniform(0.03, 0.07)),
        four_index=bool(rng.random() < 0.15) and index_size <= 0.22,
        inks=inks,
        joker_ink=red if rng.random() < 0.5 else black,
        back=backs[int(rng.integers(0, len(backs)))],
        back_pattern=("lattice", "dots", "plain", "stripes")[int(rng.integers(0, 4))],
    )
    if look >= 3 and rng.random() < (0.5 if look == 3 else 0.25):
        flat = flat_three_fonts()
        lettering |= {"flat_three": True, "rank_font": flat[int(rng.integers(0, len(flat)))]}
    if look >= 4:
        lettering |= {
            "pip_scale": float(rng.uniform(1.0, 1.35)),
            "pip_inset": float(rng.uniform(0.0, 0.03)),
            "busy_court": bool(rng.random() < 0.7),
        }
        if rng.random() < 0.7:
            lettering["back_pattern"] = FINE_BACKS[int(rng.integers(0, len(FINE_BACKS)))]
    if look >= 5 and rng.random() < 0.75:
        if rng.random() < 0.6:
            back = (int(rng.uniform(180, 235)), int(rng.uniform(20, 60)), int(rng.uniform(40, 110)))
        else:
            back = (int(rng.uniform(20, 50)), int(rng.uniform(50, 90)), int(rng.uniform(140, 200)))
        lettering |= {
            "back": back,
            "back_pattern": "diamonds",
            "back_line": float(rng.uniform(0.25, 0.5)),
            "back_cells": float(rng.uniform(10, 24)),
        }
    if look >= 6:
        # one uniform draw whatever the number of sets: a scene drawn from some sets re-renders
        # from all of them to the same cards (only the letters differ)
        lettering["index_letters"] = letter_sets[int(rng.random() * len(letter_sets))]
        if rng.random() < 0.2 or dark_faces:
            lettering |= _dark_face(rng)
    if crossed_q and rng.random() < crossed_q:
        lettering["crossed_q"] = True
    return replace(style, **lettering) if lettering else style


def _dark_face(rng: np.random.Generator) -> dict[str, Any]:
    """A dark deck's face (black or deep-coloured stock) printed in light inks."""
    stock = tuple(int(v) for v in rng.uniform(10, 45, 3))
    light = tuple(int(v) for v in rng.uniform(215, 250, 3))
    red = (int(rng.uniform(225, 255)), int(rng.uniform(70, 140)), int(rng.uniform(70, 130)))
    gold = (int(rng.uniform(200, 235)), int(rng.uniform(165, 200)), int(rng.uniform(70, 110)))
    warm = red if rng.random() < 0.7 else gold
    return {"stock": stock, "inks": (light, warm, warm, light), "joker_ink": warm}


# ------------------------------------------------------------------------------ card faces


def _suit_stamp(style: DeckStyle, suit: str, size: int) -> Image.Image:
    """One suit symbol, ``size`` px square, RGBA, upright."""
    ink = (*style.inks[SUITS.index(suit)], 255)
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    if style.suit_glyph_font is not None:
        font = _font(style.suit_glyph_font, int(size * 1.15))
        draw.text((size / 2, size / 2), SUIT_GLYPHS[suit], fill=ink, font=font, anchor="mm")
        box = img.getbbox()
        if box is not None:  # fit the glyph's ink to the square
            img = img.crop(box)
            scale = size / max(img.size)
            img = img.resize((max(1, round(img.width * scale)), max(1, round(img.height * scale))))
            out = Image.new("RGBA", (size, size), (0, 0, 0, 0))
            out.paste(img, ((size - img.width) // 2, (size - img.height) // 2))
            return out
        return img
    s = size

    def circle(x: float, y: float, r: float) -> None:
        draw.ellipse(((x - r) * s, (y - r) * s, (x + r) * s, (y + r) * s), fill=ink)

    def poly(points: list[tuple[float, float]]) -> None:
        draw.polygon([(x * s, y * s) for x, y in points], fill=ink)

    if suit == "D":
        poly([(0.5, 0.0), (0.88, 0.5), (0.5, 1.0), (0.12, 0.5)])
    elif suit == "H":
        circle(0.28, 0.3, 0.25)
        circle(0.72, 0.3, 0.25)
        poly([(0.04, 0.38), (0.96, 0.38), (0.5, 0.98)])
    elif suit == "S":
        circle(0.3, 0.56, 0.22)
        circle(0.7, 0.56, 0.22)
        poly([(0.09, 0.5), (0.91, 0.5), (0.5, 0.02)])
        poly([(0.5, 0.55), (0.3, 0.99), (0.7, 0.99)])
    else:
        circle(0.5, 0.26, 0.22)
        circle(0.27, 0.58, 0.22)
        circle(0.73, 0.58, 0.22)
        circle(0.5, 0.5, 0.12)
        poly([(0.5, 0.5), (0.3, 0.99), (0.7, 0.99)])
    return img


def index_stamp(style: DeckStyle, label: str, width: int) -> Image.Image:
    """The corner index (rank over suit, or JOKER spelled downwards), cropped to its ink."""
    text_h = max(6, int(style.index_size * width))
    if label == JOKER:
        ink = (*style.joker_ink, 255)
        text_h = min(text_h, int(0.17 * width))  # JOKER spelled downwards: keep it short
        font = _font(style.rank_font, int(text_h * 0.62))
        img = Image.new("RGBA", (text_h * 2, text_h * 5), (0, 0, 0, 0))
        draw = ImageDraw.Draw(img)
        for i, letter in enumerate("JOKER"):
            draw.text((text_h, i * text_h * 0.62), letter, fill=ink, font=font, anchor="mt")
    else:
        rank, suit = label[:-1], label[-1]
        ink = (*style.inks[SUITS.index(suit)], 255)
        if rank == "3" and style.flat_three:
            rank = FLAT_THREE
        rank = INDEX_LETTERS[style.index_letters].get(rank, rank)
        font = _font(style.rank_font, int(text_h * 1.3))
        img = Image.new("RGBA", (text_h * 3, text_h * 3), (0, 0, 0, 0))
        draw = ImageDraw.Draw(img)
        if rank == "Q" and style.crossed_q:
            img, top = _crossed_q(img, font, ink, text_h * 1.5)
        elif rank == "10" and style.narrow_ten:
            img, top = _narrow_ten(img, font, ink, text_h * 1.5, style.narrow_ten)
        else:
            draw.text((text_h * 1.5, 0), rank, fill=ink, font=font, anchor="mt")
            top = draw.textbbox((text_h * 1.5, 0), rank, font=font, anchor="mt")
        if top[2] - top[0] > text_h * 1.1:  # "10" squeezed by the narrow index column
            squeezed = img.crop((0, 0, img.width, top[3] + 1))
            squeezed = squeezed.resize((int(squeezed.width * 0.75), squeezed.height))
            img = Image.new("RGBA", img.size, (0, 0, 0, 0))
            img.paste(squeezed, (int(img.width * 0.125), 0))
        img = _jitter_lettering(style, img, top[3], text_h)
        pip = _suit_stamp(style, suit, int(text_h * 0.8))
        img.alpha_composite(pip, (int(text_h * 1.5 - pip.width / 2), int(top[3] + text_h * 0.15)))
    box = img.getbbox()
    return img.crop(box) if box is not None else img


def _narrow_ten(
    img: Image.Image,
    font: ImageFont.FreeTypeFont,
    ink: tuple[int, ...],
    centre_x: float,
    narrowed: float,
) -> tuple[Image.Image, tuple[float, float, float, float]]:
    """``img`` with the 10 drawn as an I and the font's O narrowed to ``narrowed`` of its
    width, seven tenths of the I's width apart, centred on ``centre_x`` at the top, and the
    pair's ink box."""
    parts = []
    for letter, scale in (("I", 1.0), ("O", narrowed)):
        layer = Image.new("RGBA", img.size, (0, 0, 0, 0))
        ImageDraw.Draw(layer).text((centre_x, 0), letter, fill=ink, font=font, anchor="mt")
        ink_box = layer.getbbox()
        assert ink_box is not None  # the letter drawn has ink
        left, top, right, bottom = ink_box
        part = layer.crop((left, top, right, bottom))
        parts.append(
            part.resize((max(1, round(part.width * scale)), part.height), Image.Resampling.BICUBIC)
        )
    bar, oval = parts  # ``top``: the O's ink top, drawn last
    gap = max(1, round(bar.width * 0.7))
    width = bar.width + gap + oval.width
    left = round(centre_x - width / 2)
    img.alpha_composite(bar, (left, top + oval.height - bar.height))
    img.alpha_composite(oval, (left + bar.width + gap, top))
    return img, (left, top, left + width, top + oval.height)


def _crossed_q(
    img: Image.Image, font: ImageFont.FreeTypeFont, ink: tuple[int, ...], centre_x: float
) -> tuple[Image.Image, tuple[float, float, float, float]]:
    """``img`` with the crossed Q drawn at the top of its column ``centre_x`` (the font's O
    narrowed to three quarters, a bar across its lower quarter sticking out on both sides)
    and the O's ink box."""
    layer = Image.new("RGBA", img.size, (0, 0, 0, 0))
    ImageDraw.Draw(layer).text((centre_x, 0), "O", fill=ink, font=font, anchor="mt")
    ink_box = layer.getbbox()
    assert ink_box is not None  # the O drawn has ink
    left, top, right, bottom = ink_box
    width, height = right - left, bottom - top
    narrow = max(1, round(width * 0.75))
    letter = layer.crop((left, top, right, bottom)).resize(
        (narrow, height), Image.Resampling.BICUBIC
    )
    left = round(centre_x - narrow / 2)
    img.alpha_composite(letter, (left, top))
    stroke = max(1, round(0.11 * height))
    draw = ImageDraw.Draw(img)
    y = bottom - 0.28 * height
    draw.line(
        [(left - 0.18 * narrow, y - 0.03 * height), (left + 1.2 * narrow, y + 0.08 * height)],
        fill=ink,
        width=stroke,
    )
    return img, (left, top, left + narrow, bottom)


def _jitter_lettering(
    style: DeckStyle, img: Image.Image, baseline: float, text_h: int
) -> Image.Image:
    """The rank drawn in ``img`` stretched about its centre column and slanted about
    ``baseline`` (its bottom edge, where the suit symbol goes), its strokes thinned or thickened
    (look 2)."""
    if style.rank_stretch == 1.0 and style.rank_shear == 0.0 and style.rank_stroke == 0:
        return img
    w, h = img.size
    cx = w / 2
    # PIL's affine maps output to input: x_in = a x + b y + c.
    a, b = 1 / style.rank_stretch, style.rank_shear
    c = cx - a * cx - b * baseline
    img = img.transform(
        (w, h), Image.Transform.AFFINE, (a, b, c, 0, 1, 0), resample=Image.Resampling.BICUBIC
    )
    step = round(abs(style.rank_stroke) * text_h)
    if step:
        grow = ImageFilter.MaxFilter if style.rank_stroke > 0 else ImageFilter.MinFilter
        alpha = img.getchannel("A")
        changed = alpha.filter(grow(2 * step + 1))
        ink = np.asarray(alpha, np.float32).sum()
        # A thin font thinned away (less than half its ink left) keeps its own strokes.
        if np.asarray(changed, np.float32).sum() >= 0.5 * ink:
            img.putalpha(changed)
    return img


# Pip centres as (x, y) fractions of the pip area; y > 0.5 pips are printed upside down.
_L, _C, _R = 0.0, 0.5, 1.0
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((_C, 0.5),),
    2: ((_C, 0.0), (_C, 1.0)),
    3: ((_C, 0.0), (_C, 0.5), (_C, 1.0)),
    4: ((_L, 0.0), (_R, 0.0), (_L, 1.0), (_R, 1.0)),
    5: ((_L, 0.0), (_R, 0.0), (_C, 0.5), (_L, 1.0), (_R, 1.0)),
    6: ((_L, 0.0), (_R, 0.0), (_L, 0.5), (_R, 0.5), (_L, 1.0), (_R, 1.0)),
    7: ((_L, 0.0), (_R, 0.0), (_C, 0.25), (_L, 0.5), (_R, 0.5), (_L, 1.0), (_R, 1.0)),
    8: ((_L, 0.0), (_R, 0.0), (_C, 0.25), (_L, 0.5), (_R, 0.5), (_C, 0.75), (_L, 1.0), (_R, 1.0)),
    9: (
        *((_L, y) for y in (0.0, 1 / 3, 2 / 3, 1.0)),
        *((_R, y) for y in (0.0, 1 / 3, 2 / 3, 1.0)),
        (_C, 0.5),
    ),
    10: (
        *((_L, y) for y in (0.0, 1 / 3, 2 / 3, 1.0)),
        *((_R, y) for y in (0.0, 1 / 3, 2 / 3, 1.0)),
        (_C, 1 / 6),
        (_C, 5 / 6),
    ),
}


def render_card(
    rng: np.random.Generator, style: DeckStyle, label: str, width: int
) -> tuple[np.ndarray, dict[str, tuple[float, float, float, float]]]:
    """A face-up card, RGBA (RGB order), and its index boxes in card pixels by corner name."""
    ss = 2  # draw at twice the size, then shrink: smooth edges
    big_w = width * ss
    big_h = round(width * style.aspect) * ss
    img = Image.new("RGBA", (big_w, big_h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    stock = tuple(int(np.clip(v + rng.normal(0, 3), 0, 255)) for v in style.stock)
    radius = int(style.radius * big_w)
    edge = tuple(max(0, v - 60) for v in stock)
    draw.rounded_rectangle(
        (0, 0, big_w - 1, big_h - 1), radius=radius, fill=(*stock, 255), outline=(*edge, 255)
    )
    if style.frame:
        m = int(big_w * 0.025)
        draw.rounded_rectangle(
            (m, m, big_w - 1 - m, big_h - 1 - m),
            radius=max(1, radius - m),
            outline=(*style.inks[3], 255),
            width=max(1, big_w // 120),
        )
    index = index_stamp(style, label, big_w)
    margin = _index_margin(style, big_w)
    _draw_centre(rng, draw, img, style, label, big_w, big_h, index.width + margin)
    # The indices go on last: court art and pips never cover them.
    x0, y0 = margin, int(margin * 1.2)
    boxes: dict[str, tuple[float, float, float, float]] = {}
    upside_down = index.rotate(180)
    spots = {
        "tl": (x0, y0, index),
        "br": (big_w - x0 - index.width, big_h - y0 - index.height, upside_down),
    }
    if style.four_index:
        spots["tr"] = (big_w - x0 - index.width, y0, index)
        spots["bl"] = (x0, big_h - y0 - index.height, upside_down)
    for name, (x, y, stamp) in spots.items():
        img.alpha_composite(stamp, (x, y))
        pad = 0.5
        boxes[name] = (
            (x - pad) / ss,
            (y - pad) / ss,
            (x + stamp.width + pad) / ss,
            (y + stamp.height + pad) / ss,
        )
    small = img.resize((width, big_h // ss), Image.Resampling.LANCZOS)
    return np.asarray(small), boxes


def _index_margin(style: DeckStyle, width: int) -> int:
    """How far a card ``width`` px wide prints its indices from its edges."""
    margin = int(style.index_margin * width) + (int(width * 0.03) if style.frame else 0)
    return max(margin, int(style.radius * width) // 3)


def _pip_area(style: DeckStyle, w: int, h: int, index_w: int) -> tuple[float, ...]:
    """The box between the index columns that a card's pips or court art fill."""
    inset = style.pip_inset * w
    x0, x1 = index_w + w * 0.04 - inset, w - index_w - w * 0.04 + inset
    y0, y1 = h * 0.1, h * 0.9
    if x1 - x0 < w * 0.36:  # jumbo indices: small art in the middle, as such decks print it
        x0, x1, y0, y1 = w * 0.36, w * 0.64, h * 0.3, h * 0.7
    return x0, y0, x1, y1


def _pips(style: DeckStyle, count: int, area: tuple[float, ...]) -> tuple[int, list]:
    """The pip size and each pip's centre and whether it is printed upside down."""
    x0, y0, x1, y1 = area
    size = int((x1 - x0) * (0.55 if count == 1 else min(0.4, 0.3 * style.pip_scale)))
    centres = [
        (x0 + size / 2 + fx * (x1 - x0 - size), y0 + size / 2 + fy * (y1 - y0 - size), fy > 0.5)
        for fx, fy in PIPS[count]
    ]
    return size, centres


def _pip_centres(
    style: DeckStyle, label: str, width: int
) -> tuple[float, list[tuple[float, float]]]:
    """The pip size and centres, in the pixels of ``render_card(.., style, label, width)``, of a
    number card (2-10); no pips for courts, aces and jokers."""
    rank = label[:-1]
    if label == JOKER or rank not in RANKS or RANKS.index(rank) == 0 or rank in ("J", "Q", "K"):
        return 0.0, []
    ss = 2
    big_w, big_h = width * ss, round(width * style.aspect) * ss
    index_w = index_stamp(style, label, big_w).width + _index_margin(style, big_w)
    area = _pip_area(style, big_w, big_h, index_w)
    size, centres = _pips(style, RANKS.index(rank) + 1, area)
    return size / ss, [(x / ss, y / ss) for x, y, _upside_down in centres]


def stacked_pip_boxes(style: DeckStyle, label: str, width: int) -> list[tuple[float, ...]]:
    """Boxes, in the pixels of ``render_card(.., style, label, width)``, round each two pips
    one above the other in a column: rank over suit to a reader that sees only the box (real
    decks' stacked pips were read as cards). None on courts, aces and jokers."""
    size, centres = _pip_centres(style, label, width)
    columns: dict[int, list[float]] = {}
    for x, y in centres:
        columns.setdefault(round(x), []).append(y)
    half = size / 2
    boxes: list[tuple[float, ...]] = []
    for x, ys in columns.items():
        ys.sort()
        for top, bottom in itertools.pairwise(ys):
            if bottom - top <= 2.5 * size:  # near enough to pass for one index
                boxes.append((x - half, top - half, x + half, bottom + half))
    return boxes


EDGE_PIP_REACH = 0.8  # how far past a lone pip (in pip sizes) its decoy box reaches
EDGE_STRIP_MAX_VISIBLE = 0.5  # a pip is by an edge when other cards hide half the strip past it


def edge_pip_boxes(style: DeckStyle, label: str, width: int) -> list[tuple[tuple[float, ...], ...]]:
    """For each pip of a number card, above and below it: (the box of the pip and the strip
    past it, the pip's box, the strip's box), in the pixels of ``render_card``. Where another
    card covers the strip, the box is a lone pip beside an edge: a suit with its rank cut off
    to a reader that sees only the box (one in a rendered fan was read as a 2S)."""
    size, centres = _pip_centres(style, label, width)
    half, reach = size / 2, EDGE_PIP_REACH * size
    boxes: list[tuple[tuple[float, ...], ...]] = []
    for x, y in centres:
        pip = (x - half, y - half, x + half, y + half)
        above = (x - half, y - half - reach, x + half, y - half)
        below = (x - half, y + half, x + half, y + half + reach)
        boxes.append(((x - half, y - half - reach, x + half, y + half), pip, above))
        boxes.append(((x - half, y - half, x + half, y + half + reach), pip, below))
    return boxes


def _draw_centre(
    rng: np.random.Generator,
    draw: ImageDraw.ImageDraw,
    img: Image.Image,
    style: DeckStyle,
    label: str,
    w: int,
    h: int,
    index_w: int,
) -> None:
    """Pips, court placeholder art or the joker, between the index columns."""
    x0, y0, x1, y1 = _pip_area(style, w, h, index_w)
    if label == JOKER:
        ink = (*style.joker_ink, 255)
        cx, cy, r = w / 2, h / 2, (x1 - x0) * 0.4
        points = []
        for k in range(10):
            rr = r if k % 2 == 0 else r * 0.45
            a = math.pi / 2 + k * math.pi / 5
            points.append((cx + rr * math.cos(a), cy - rr * math.sin(a)))
        draw.polygon(points, fill=ink)
        font = _font(style.rank_font, int((x1 - x0) * 0.22))
        draw.text((cx, y0 + h * 0.05), "JOKER", fill=ink, font=font, anchor="mt")
        return
    rank, suit = label[:-1], label[-1]
    ink = (*style.inks[SUITS.index(suit)], 255)
    if rank in ("J", "Q", "K"):
        # Placeholder court art: a framed, mirrored panel with bands, a letter and a pip.
        fx0, fy0, fx1, fy1 = int(x0), int(y0), int(x1), int(y1)
        draw.rectangle((fx0, fy0, fx1, fy1), outline=ink, width=max(2, w // 80))
        mid = (fy0 + fy1) // 2
        palette = [(200, 40, 40), (40, 60, 170), (230, 190, 40), (30, 30, 30), (240, 240, 240)]
        y = fy0 + 3
        while y < mid:
            band = int(rng.uniform(0.03, 0.09) * h)
            colour = palette[int(rng.integers(0, len(palette)))]
            inset = int(rng.uniform(0.05, 0.3) * (fx1 - fx0))
            draw.rectangle((fx0 + inset, y, fx1 - inset, min(mid, y + band)), fill=(*colour, 255))
            y += band + int(rng.uniform(0.0, 0.03) * h)
        if style.busy_court:
            _busy_art(rng, draw, (fx0, fy0, fx1, mid), [*palette, tuple(style.inks[3])])
        font = _font(style.rank_font, int((fx1 - fx0) * 0.45))
        letter = INDEX_LETTERS[style.index_letters][rank]
        draw.text(
            ((fx0 + fx1) / 2, fy0 + (mid - fy0) * 0.55), letter, fill=ink, font=font, anchor="mm"
        )
        pip = _suit_stamp(style, suit, int((fx1 - fx0) * 0.22))
        img.alpha_composite(pip, (fx0 + 4, mid - pip.height - 2))
        top = img.crop((fx0, fy0, fx1 + 1, mid))
        img.alpha_composite(top.rotate(180), (fx0, fy1 + 1 - top.height))
        return
    size, centres = _pips(style, RANKS.index(rank) + 1, (x0, y0, x1, y1))
    pip = _suit_stamp(style, suit, size)
    flipped = pip.rotate(180)
    for cx, cy, upside_down in centres:
        stamp = flipped if upside_down else pip
        img.alpha_composite(stamp, (int(cx - size / 2), int(cy - size / 2)))


def _busy_art(rng: np.random.Generator, draw: ImageDraw.ImageDraw, area, palette) -> None:
    """Small shapes in many colours over a court panel: real court art is dense detail."""
    x0, y0, x1, y1 = area
    span = max(4, x1 - x0)
    for _ in range(int(rng.integers(25, 70))):
        colour = (*palette[int(rng.integers(0, len(palette)))], 255)
        x, y = rng.uniform(x0, x1), rng.uniform(y0, y1)
        r = rng.uniform(0.02, 0.08) * span
        shape = int(rng.integers(0, 3))
        if shape == 0:
            draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
        elif shape == 1:
            draw.polygon([(x, y - r), (x + r, y), (x, y + r), (x - r, y)], fill=colour)
        else:
            a = rng.uniform(0, math.pi)
            dx, dy = math.cos(a) * r * 2, math.sin(a) * r * 2
            draw.line((x - dx, y - dy, x + dx, y + dy), fill=colour, width=max(1, int(r / 2)))


def render_back(style: DeckStyle, width: int) -> np.ndarray:
    """A face-down card, RGBA (RGB order): a coloured pattern inside a white border."""
    height = round(width * style.aspect)
    img = Image.new("RGBA", (width, height), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    radius = int(style.radius * width)
    draw.rounded_rectangle((0, 0, width - 1, height - 1), radius=radius, fill=(*style.stock, 255))
    m = max(2, int(width * 0.07))
    back = (*style.back, 255)
    light = (*(min(255, v + 70) for v in style.back), 255)
    draw.rectangle((m, m, width - 1 - m, height - 1 - m), fill=back)
    if style.back_pattern == "diamonds":  # look 5: white lines over the colour, no frame
        step = width / style.back_cells
        line = max(1, round(step * style.back_line))
        stock = (*style.stock, 255)
        for k in np.arange(-height, width + height, step):
            draw.line((m + k, m, m + k + height, m + height), fill=stock, width=line)
            draw.line((m + k + height, m, m + k, m + height), fill=stock, width=line)
        draw.rectangle((0, 0, width - 1, m - 1), fill=stock)
        draw.rectangle((0, height - m, width - 1, height - 1), fill=stock)
        draw.rectangle((0, 0, m - 1, height - 1), fill=stock)
        draw.rectangle((width - m, 0, width - 1, height - 1), fill=stock)
        corners = Image.new("L", (width, height), 0)
        ImageDraw.Draw(corners).rounded_rectangle((0, 0, width - 1, height - 1), radius, fill=255)
        img.putalpha(corners)
        return np.asarray(img)
    # Look 4's fine patterns (``FINE_BACKS``) repeat every few pixels, as on most real decks.
    fine = style.back_pattern in FINE_BACKS
    step = max(2, width // 28) if fine else max(3, width // 12)
    pattern = style.back_pattern.removeprefix("fine_")
    if pattern == "lattice":
        for k in range(-height, width, step):
            draw.line((m + k, m, m + k + height, m + height), fill=light, width=1)
            draw.line((m + k + height, m, m + k, m + height), fill=light, width=1)
    elif pattern == "dots":
        for y in range(m + step // 2, height - m, step):
            for x in range(m + step // 2, width - m, step):
                draw.ellipse((x - 1, y - 1, x + 1, y + 1), fill=light)
    elif pattern == "stripes":
        for y in range(m, height - m, step):
            draw.line((m, y, width - 1 - m, y), fill=light, width=max(1, step // 3))
    elif pattern == "rings":
        for y in range(m, height - m, step * 2):
            for x in range(m, width - m, step * 2):
                draw.ellipse((x, y, x + step * 2 - 1, y + step * 2 - 1), outline=light)
    elif pattern == "checks":
        for y in range(m, height - m, step):
            for x in range(m + (y // step % 2) * step, width - m, step * 2):
                draw.rectangle((x, y, x + step - 1, y + step - 1), fill=light)
    if fine:
        draw.rectangle((m, m, width - 1 - m, height - 1 - m), fill=None, outline=back, width=1)
    draw.rectangle((m, m, width - 1 - m, height - 1 - m), outline=light, width=max(1, m // 3))
    return np.asarray(img)


def add_gloss(rng: np.random.Generator, card: np.ndarray) -> np.ndarray:
    """A specular streak across a glossy card (keeps alpha)."""
    h, w = card.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    a = rng.uniform(0, math.pi)
    d = (xx - rng.uniform(0, w)) * math.cos(a) + (yy - rng.uniform(0, h)) * math.sin(a)
    width = rng.uniform(0.05, 0.35) * w
    glare = np.exp(-((d / width) ** 2)) * rng.uniform(0.25, 0.8)
    out = card.astype(np.float32)
    out[..., :3] += (255 - out[..., :3]) * glare[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


# --------------------------------------------------------------------------------- layouts


@dataclass(frozen=True)
class Placement:
    """One card on the table: centre, angle (degrees, counter-clockwise as OpenCV), face."""

    cx: float
    cy: float
    angle: float
    label: str | None  # None: face down


def fan(
    labels: list[str],
    cx: float,
    cy: float,
    step: float,
    radius: float,
    turn: float = 0.0,
) -> list[Placement]:
    """A hand fanned clockwise around a pivot below the cards; later cards on top.

    ``(cx, cy)`` is the pivot, ``step`` degrees between cards, ``radius`` pivot to card centre,
    ``turn`` rotates the whole fan (degrees, counter-clockwise).
    """
    n = len(labels)
    out = []
    for i, label in enumerate(labels):
        clockwise = (i - (n - 1) / 2) * step - turn
        a = math.radians(clockwise)
        out.append(
            Placement(cx + radius * math.sin(a), cy - radius * math.cos(a), -clockwise, label)
        )
    return out


def row(
    labels: list[str | None],
    x: float,
    y: float,
    offset: float,
    angle: float,
    cascade: bool = False,
) -> list[Placement]:
    """Cards in a line, each ``offset`` px further along (sideways, or downwards)."""
    rad = math.radians(angle)
    if cascade:  # along the card's own downward axis
        ux, uy = math.sin(rad), math.cos(rad)
    else:
        ux, uy = math.cos(rad), -math.sin(rad)
    return [
        Placement(x + ux * offset * i, y + uy * offset * i, angle, label)
        for i, label in enumerate(labels)
    ]


def _scene_layout(
    rng: np.random.Generator,
    deck: list[str],
    w: int,
    h: int,
    card_w: int,
    aspect: float,
    face_down_hands: bool = False,
    tight_fans: bool = False,
) -> list[Placement | tuple[str, float, float, float]]:
    """Groups of cards and clutter over a ``w`` x ``h`` table; clutter as (kind, x, y, size).
    ``face_down_hands`` (look 5): also players' hands lying face down, spread in a row;
    ``tight_fans``: one to three hands of 7-13 cards fanned 3.5-9 degrees a card, as players
    hold a Gin or rummy hand (each index shows just its rank and suit)."""
    card_h = card_w * aspect
    scene_turn = rng.uniform(-20, 20) if rng.random() < 0.6 else rng.uniform(-180, 180)
    items: list[Placement | tuple[str, float, float, float]] = []

    def deal(n: int) -> list[str]:
        n = min(n, len(deck))
        hand = deck[:n]
        del deck[:n]
        return hand

    def spot() -> tuple[float, float]:
        return rng.uniform(0.05, 0.95) * w, rng.uniform(0.05, 0.95) * h

    if rng.random() < 0.5:  # the stock: a face-down pile, and the discard pile beside it
        x, y = spot()
        angle = scene_turn + rng.normal(0, 5)
        for _ in range(int(rng.integers(2, 8))):
            items.append(Placement(x + rng.normal(0, 2), y + rng.normal(0, 2), angle, None))
        if rng.random() < 0.7:
            x2 = x + card_w * 1.3 * math.cos(math.radians(angle))
            y2 = y - card_w * 1.3 * math.sin(math.radians(angle))
            for label in deal(int(rng.integers(1, 5))):
                a = angle + rng.normal(0, 12)
                items.append(Placement(x2 + rng.normal(0, 6), y2 + rng.normal(0, 6), a, label))
    hands = int(rng.integers(1, 4)) if tight_fans else int(rng.choice([0, 1, 1, 2]))
    for _ in range(hands):  # fanned hands
        x, y = spot()
        n = int(rng.integers(7, 14)) if tight_fans else int(rng.integers(3, 14))
        step = rng.uniform(3.5, 9) if tight_fans else rng.uniform(5, 16)
        radius = card_h * rng.uniform(0.4, 1.3)
        turn = scene_turn + rng.normal(0, 15) if rng.random() < 0.6 else rng.uniform(-180, 180)
        hand = deal(n)
        if rng.random() < 0.1:  # fanned the other way: indices hidden
            step = -step
        items.extend(fan(hand, x, y + radius, step, radius, turn))
    for _ in range(int(rng.integers(0, 5))):  # melds laid down
        x, y = spot()
        n = int(rng.integers(3, 7))
        cascade = rng.random() < 0.25
        if cascade:
            offset = card_h * rng.uniform(0.2, 0.45)
        elif rng.random() < 0.25:
            offset = card_w * rng.uniform(1.03, 1.2)  # apart: both indices show
        else:
            offset = card_w * rng.uniform(0.22, 0.6)
        angle = scene_turn + rng.normal(0, 4) if rng.random() < 0.7 else rng.uniform(-180, 180)
        items.extend(row(list(deal(n)), x, y, offset, angle, cascade))
    for _ in range(int(rng.integers(0, 7))):  # loose cards
        x, y = spot()
        items.append(Placement(x, y, rng.uniform(-180, 180), next(iter(deal(1)), None)))
    for _ in range(int(rng.integers(0, 4))):  # loose face-down cards
        x, y = spot()
        items.append(Placement(x, y, rng.uniform(-180, 180), None))
    for _ in range(int(rng.integers(1, 5)) if face_down_hands else 0):
        x, y = spot()
        angle = scene_turn + rng.normal(0, 20) if rng.random() < 0.6 else rng.uniform(-180, 180)
        offset = card_w * rng.uniform(0.06, 0.35)
        items.extend(row([None] * int(rng.integers(2, 11)), x, y, offset, angle))
    if not any(isinstance(p, Placement) and p.label for p in items):
        x, y = spot()
        items.extend(row(list(deal(int(rng.integers(2, 6)))), x, y, card_w * 0.4, scene_turn))
    clutter: list[tuple[str, float, float, float]] = []
    for _ in range(int(rng.integers(0, 12))):
        x, y = spot()
        clutter.append(("chip", x, y, card_w * rng.uniform(0.35, 0.5)))
    for _ in range(int(rng.integers(0, 3))):
        x, y = spot()
        kind = ("coin", "pencil", "pad")[int(rng.integers(0, 3))]
        clutter.append((kind, x, y, card_w * rng.uniform(0.3, 1.6)))
    # Clutter lies under, between, or on top of the cards.
    for item in clutter:
        items.insert(int(rng.integers(0, len(items) + 1)), item)
    return items


def _draw_clutter(
    rng: np.random.Generator, scene: np.ndarray, ids: np.ndarray, item: tuple
) -> None:
    """Chips, coins, a pencil or a score pad, drawn straight into the BGR scene."""
    kind, x, y, size = item
    mask = np.zeros(scene.shape[:2], np.uint8)
    centre = (int(x), int(y))
    if kind in ("chip", "coin"):
        r = int(size / 2) if kind == "chip" else int(size / 3)
        if kind == "chip":
            colour = [(40, 40, 200), (200, 80, 30), (40, 140, 40), (30, 30, 30), (230, 230, 230)][
                int(rng.integers(0, 5))
            ]
        else:
            colour = [(60, 150, 200), (170, 170, 175), (50, 110, 170)][int(rng.integers(0, 3))]
        cv2.circle(mask, centre, r, 1, -1)
        shadow = np.roll(mask, max(1, r // 6), axis=0).astype(bool)
        scene[shadow] = (scene[shadow] * 0.6).astype(np.uint8)
        cv2.circle(scene, centre, r, colour, -1, cv2.LINE_AA)
        if kind == "chip":
            for k in range(6):
                a = k * math.pi / 3 + rng.uniform(0, 1)
                p1 = (int(x + r * 0.75 * math.cos(a)), int(y + r * 0.75 * math.sin(a)))
                p2 = (int(x + r * math.cos(a)), int(y + r * math.sin(a)))
                cv2.line(scene, p1, p2, (245, 245, 245), max(2, r // 5))
            cv2.circle(scene, centre, int(r * 0.6), (235, 235, 235), max(1, r // 12))
        else:
            cv2.circle(scene, centre, int(r * 0.8), tuple(v * 0.8 for v in colour), 1)
    else:
        if kind == "pencil":
            rect = ((x, y), (size * 3, max(4.0, size * 0.12)), rng.uniform(0, 180))
            colour = (30, 200, 240)
        else:
            rect = ((x, y), (size * 2.0, size * 2.6), rng.uniform(0, 180))
            colour = (245, 248, 250)
        box = cv2.boxPoints(rect).astype(np.int32)
        cv2.fillConvexPoly(mask, box, 1)
        cv2.fillConvexPoly(scene, box, colour, cv2.LINE_AA)
        if kind == "pad":  # ruled lines and a few scores: a hard negative for the detector
            (w2, h2), a = rect[1], math.radians(rect[2])
            ux, uy, vx, vy = math.cos(a), math.sin(a), -math.sin(a), math.cos(a)
            for k in range(1, 9):
                t = -h2 / 2 + k * h2 / 9
                p1 = (int(x - ux * w2 / 2 + vx * t), int(y - uy * w2 / 2 + vy * t))
                p2 = (int(x + ux * w2 / 2 + vx * t), int(y + uy * w2 / 2 + vy * t))
                cv2.line(scene, p1, p2, (200, 160, 120), 1)
    ids[mask.astype(bool)] = -1


# ---------------------------------------------------------------------------------- scenes


@dataclass(frozen=True)
class _Drawn:
    label: str | None
    quad: np.ndarray  # 4x2 card corners in canvas pixels
    index_quads: dict[str, np.ndarray]  # corner name -> 4x2 in canvas pixels
    decoy_quads: tuple[np.ndarray, ...] = ()  # stacked pips, 4x2 in canvas pixels
    # lone pips beside an edge: (box, pip, strip past the pip) quads (``edge_pip_boxes``)
    edge_pip_quads: tuple[tuple[np.ndarray, ...], ...] = ()


def _compose(
    rng: np.random.Generator,
    canvas: np.ndarray,
    items: list,
    styles: list[DeckStyle],
    card_w: int,
    gloss_p: float,
    pip_decoys: bool = False,
) -> tuple[np.ndarray, list[_Drawn]]:
    """Paste cards and clutter in order; ``ids`` marks which card each pixel shows;
    ``pip_decoys``: with each card's stacked pips and pips by an edge (``stacked_pip_boxes``,
    ``edge_pip_boxes``)."""
    ids = np.full(canvas.shape[:2], -1, np.int32)
    drawn: list[_Drawn] = []
    for item in items:
        if not isinstance(item, Placement):
            _draw_clutter(rng, canvas, ids, item)
            continue
        style = styles[0] if len(styles) == 1 or rng.random() < 0.7 else styles[1]
        boxes: dict[str, tuple[float, float, float, float]]
        if item.label is None:
            face, boxes = render_back(style, card_w), {}
        else:
            face, boxes = render_card(rng, style, item.label, card_w)
            if rng.random() < gloss_p:
                face = add_gloss(rng, face)
        fh, fw = face.shape[:2]
        matrix = piece_matrix(fw, fh, item.cx, item.cy, item.angle)
        paste_piece(canvas, ids, face, matrix, len(drawn))

        index_quads = {name: _box_quad(box, matrix) for name, box in boxes.items()}
        decoys: tuple[np.ndarray, ...] = ()
        edge_pips: tuple[tuple[np.ndarray, ...], ...] = ()
        if pip_decoys and item.label is not None:
            pips = stacked_pip_boxes(style, item.label, card_w)
            decoys = tuple(_box_quad(box, matrix) for box in pips)
            edge_pips = tuple(
                tuple(_box_quad(box, matrix) for box in boxes)
                for boxes in edge_pip_boxes(style, item.label, card_w)
            )
        corners = piece_corners(matrix, fw, fh)
        drawn.append(_Drawn(item.label, corners, index_quads, decoys, edge_pips))
    return ids, drawn


def _box_quad(box, matrix: np.ndarray) -> np.ndarray:
    """A box in a card's pixels as a 4x2 quad on the canvas (``matrix``: card -> canvas)."""
    x1, y1, x2, y2 = box
    corners = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float32)
    return corners @ matrix[:, :2].T + matrix[:, 2]


def index_halves(quad: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The two halves of an index's quad (4 points, clockwise from its top-left as printed):
    the rank's and the suit's, in either order."""
    left, right = (quad[0] + quad[3]) / 2, (quad[1] + quad[2]) / 2
    return np.stack([quad[0], quad[1], right, left]), np.stack([left, right, quad[2], quad[3]])


def _readable(ids: np.ndarray, quad: np.ndarray, i: int, seen: float) -> bool:
    """Whether piece ``i``'s index at ``quad``, ``seen`` visible, is labelled."""
    if seen >= CORNER_MIN_VISIBLE:
        return True
    if seen < READABLE_HALF_VISIBLE:
        return False
    return all(visible_share(ids, half, i) >= READABLE_HALF_VISIBLE for half in index_halves(quad))


def _labels(
    ids: np.ndarray, drawn: list[_Drawn], transform
) -> tuple[
    tuple[CardLabel, ...],
    tuple[tuple[tuple[float, float], ...], ...],
    tuple[CardLabel, ...],
    tuple[tuple[float, float, float, float], ...],
]:
    """Cards and visible corners, face-down cards' quads, the partly shown cards
    (``CardScene.partly_shown``) and the boxes of visible stacked pips and of lone pips by an
    edge (``CardScene.decoys``), given ``ids`` in photo pixels and canvas -> photo points."""
    h, w = ids.shape
    decoys: list[tuple[float, float, float, float]] = []
    cards: list[CardLabel] = []
    partly_shown: list[CardLabel] = []
    backs: list[tuple[tuple[float, float], ...]] = []
    for i, card in enumerate(drawn):
        quad = transform(card.quad)
        as_tuple = tuple((float(x), float(y)) for x, y in quad)
        if card.label is None:
            backs.append(as_tuple)
            continue
        corners: list[CornerIndex] = []
        partial: list[CornerIndex] = []
        for name, canvas_quad in card.index_quads.items():
            q = transform(canvas_quad)
            span = q.max(axis=0) - q.min(axis=0)
            if span.min() < MIN_CORNER_PX:
                continue
            seen = visible_share(ids, q, i)
            if seen < CORNER_PARTLY_SHOWN:
                continue
            x1, y1 = np.clip(q.min(axis=0), 0, [w, h])
            x2, y2 = np.clip(q.max(axis=0), 0, [w, h])
            (corners if _readable(ids, q, i, seen) else partial).append(
                CornerIndex(
                    name,
                    (float(x1), float(y1), float(x2), float(y2)),
                    tuple((float(x), float(y)) for x, y in q),
                    round(seen, 4),
                )
            )
        # stacked pips that show, and lone pips whose strip past them is hidden
        shown = [(transform(q), None, None) for q in card.decoy_quads]
        shown += [tuple(transform(q) for q in quads) for quads in card.edge_pip_quads]
        for q, pip, strip in shown:
            if (q.max(axis=0) - q.min(axis=0)).min() < MIN_CORNER_PX:
                continue
            if strip is None:
                kept = visible_share(ids, q, i) >= CORNER_MIN_VISIBLE
            else:
                kept = (
                    visible_share(ids, pip, i) >= CORNER_MIN_VISIBLE
                    and visible_share(ids, strip, i) <= EDGE_STRIP_MAX_VISIBLE
                )
            if kept:
                x1, y1 = np.clip(q.min(axis=0), 0, [w, h])
                x2, y2 = np.clip(q.max(axis=0), 0, [w, h])
                decoys.append((float(x1), float(y1), float(x2), float(y2)))
        seen_card = visible_share(ids, quad, i)
        x1, y1 = np.clip(quad.min(axis=0), 0, [w, h])
        x2, y2 = np.clip(quad.max(axis=0), 0, [w, h])
        label = CardLabel(
            card.label,
            as_tuple,
            (float(x1), float(y1), float(x2), float(y2)),
            round(seen_card, 4),
            tuple(corners),
            tuple(partial),
        )
        if corners or seen_card >= CARD_MIN_VISIBLE:
            cards.append(label)
        elif partial:
            partly_shown.append(label)
    return tuple(cards), tuple(backs), tuple(partly_shown), tuple(decoys)


def shuffled_deck(rng: np.random.Generator, decks: int = 1, jokers: int = 2) -> list[str]:
    cards = [label for label in all_labels() if label != JOKER] * decks + [JOKER] * jokers
    return [cards[i] for i in rng.permutation(len(cards))]


# The reader's scenes of English-pattern queens: look 5 with half the decks printing the crossed Q
# (``training.scenes``' "cards_crossed_q", "cards_decoys").
CROSSED_Q_LOOK: dict[str, Any] = {"look": 5, "crossed_q": 0.5}  # render_scene arguments


def render_scene(
    seed: int,
    size: tuple[int, int] | None = None,
    look: int = 1,
    letter_sets: tuple[str, ...] = tuple(INDEX_LETTERS),
    dark_faces: bool = False,
    tight_fans: bool = False,
    crossed_q: float = 0.0,
    pip_decoys: bool = False,
    narrow_ten: float = 0.0,
    printed_felt: bool = False,
) -> CardScene:
    """A BGR photo of cards on a table and its labels, all from one seed. ``look=2``: decks
    printed in more fonts with jittered lettering; ``look=3``: and flat-topped 3s;
    ``look=4``: pips near the indices, busy court art, fine backs (``random_style``);
    ``look=5``: look 4 with real decks' diamond backs and hands lying face down; ``look=6``:
    look 5 with decks in other languages' index letters (from ``letter_sets``) and dark faces
    (every deck's with ``dark_faces``). ``tight_fans``: hands held or laid in tight fans
    (``_scene_layout``). ``crossed_q``: the share of decks printing the crossed Q.
    ``narrow_ten``: the share of decks printing the 10 as a narrow "IO", the O 0.3-0.6 of the
    font's O wide (``DeckStyle.narrow_ten``; drawn apart from the rest: only the 10s change).
    ``pip_decoys``: the scene's visible stacked pips and lone pips by an edge boxed too
    (``CardScene.decoys``; the photo and labels are the same either way). ``printed_felt``:
    the table a printed casino felt (``datasets.card_felts``), its index-like glyphs that show
    boxed as decoys too (whatever ``pip_decoys``)."""
    rng = np.random.default_rng(seed)
    if size is None:
        size = photo_size(rng)
    w, h = size
    pad = int(0.15 * max(w, h))  # draw larger, then crop: cards may leave the photo
    big_w, big_h = w + 2 * pad, h + 2 * pad
    canvas = background(rng, big_h, big_w)
    felt_glyphs: list[np.ndarray] = []
    if printed_felt:  # drawn from a stream of its own: the cards are the same either way
        canvas, felt_glyphs = _printed_felt(np.random.default_rng((seed, 7)), big_h, big_w)
    styles = [
        random_style(rng, look, letter_sets, dark_faces, crossed_q)
        for _ in range(2 if rng.random() < 0.15 else 1)
    ]
    if narrow_ten:  # drawn from a stream of its own: the scene is the same but for its 10s
        ten_rng = np.random.default_rng((seed, 10))
        styles = [
            replace(st, narrow_ten=float(ten_rng.uniform(0.3, 0.6)))
            if ten_rng.random() < narrow_ten
            else st
            for st in styles
        ]
    card_w = int(rng.uniform(0.065, 0.17) * max(w, h))
    deck = shuffled_deck(rng, decks=1 if rng.random() < 0.6 else 2, jokers=int(rng.integers(0, 5)))
    items = _scene_layout(
        rng, deck, w, h, card_w, styles[0].aspect, face_down_hands=look >= 5, tight_fans=tight_fans
    )
    items = [
        Placement(p.cx + pad, p.cy + pad, p.angle, p.label)
        if isinstance(p, Placement)
        else (p[0], p[1] + pad, p[2] + pad, p[3])
        for p in items
    ]
    gloss_p = rng.uniform(0.0, 0.6)
    ids, drawn = _compose(rng, canvas, items, styles, card_w, gloss_p, pip_decoys)
    # Camera: the shared tilt-and-crop; the crop stays inside the tilted canvas, so no mirrored
    # border shows unlabelled cards.
    to_photo = camera(rng, big_w, big_h, w, h)
    photo = cv2.warpPerspective(canvas, to_photo, (w, h), borderMode=cv2.BORDER_REFLECT)
    ids_photo = cv2.warpPerspective(
        ids.astype(np.float32), to_photo, (w, h), flags=cv2.INTER_NEAREST, borderValue=-1
    ).astype(np.int32)

    def transform(points: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(points[None].astype(np.float32), to_photo)[0]

    cards, backs, partly_shown, decoys = _labels(ids_photo, drawn, transform)
    decoys += _shown_glyphs(ids_photo, felt_glyphs, transform)
    return CardScene(photo_effects(rng, photo), cards, backs, partly_shown, decoys)


def render_bare_felt(seed: int, size: tuple[int, int] | None = None) -> np.ndarray:
    """A BGR photo of a printed casino felt with nothing on it (``render_scene``'s camera and
    photo effects)."""
    rng = np.random.default_rng(seed)
    w, h = size or photo_size(rng)
    pad = int(0.15 * max(w, h))
    big_w, big_h = w + 2 * pad, h + 2 * pad
    canvas, _glyphs = _printed_felt(np.random.default_rng((seed, 7)), big_h, big_w)
    photo = cv2.warpPerspective(
        canvas, camera(rng, big_w, big_h, w, h), (w, h), borderMode=cv2.BORDER_REFLECT
    )
    return photo_effects(rng, photo)


def _printed_felt(rng: np.random.Generator, h: int, w: int) -> tuple[np.ndarray, list]:
    from datasets.card_felts import printed_felt

    fonts = rank_fonts()
    typeface = fonts[int(rng.integers(0, len(fonts)))]
    return printed_felt(rng, h, w, lambda size: _font(typeface, size))


def _shown_glyphs(
    ids: np.ndarray, quads: list[np.ndarray], transform
) -> tuple[tuple[float, float, float, float], ...]:
    """Boxes (photo pixels) round the felt's printed glyphs no card or clutter hides."""
    h, w = ids.shape
    shown = []
    for canvas_quad in quads:
        q = transform(canvas_quad)
        if (q.max(axis=0) - q.min(axis=0)).min() < MIN_CORNER_PX:
            continue
        if visible_share(ids, q, -1) >= CORNER_MIN_VISIBLE:
            x1, y1 = np.clip(q.min(axis=0), 0, [w, h])
            x2, y2 = np.clip(q.max(axis=0), 0, [w, h])
            shown.append((float(x1), float(y1), float(x2), float(y2)))
    return tuple(shown)


def _framed(
    placements: list[Placement],
    width: int,
    height: int,
    frame: tuple[int, int],
    card_w: float,
    card_h: float,
) -> tuple[list[Placement], tuple[int, int]]:
    """``placements`` laid out in a ``width`` x ``height`` canvas, moved to the middle of a
    ``frame`` (width, height) canvas; ValueError where a card would leave it."""
    dx, dy = (frame[0] - width) / 2, (frame[1] - height) / 2
    moved = [replace(p, cx=p.cx + dx, cy=p.cy + dy) for p in placements]
    for p in moved:
        cos, sin = abs(math.cos(math.radians(p.angle))), abs(math.sin(math.radians(p.angle)))
        half_w, half_h = (cos * card_w + sin * card_h) / 2, (sin * card_w + cos * card_h) / 2
        if not (half_w <= p.cx <= frame[0] - half_w and half_h <= p.cy <= frame[1] - half_h):
            raise ValueError(f"the layout's cards do not fit in a {frame[0]}x{frame[1]} frame")
    return moved, frame


def render_test_layout(
    labels: list[str],
    layout: str = "fan",
    card_w: int = 140,
    seed: int = 7,
    face_down: int = 0,
    dark_faces: bool = False,
    fan_step: float = 12.0,
    index_letters: str = "en",
    frame: tuple[int, int] | None = None,
) -> CardScene:
    """A clean, fully specified photo for tests and benchmarks.

    ``layout="fan"``: a hand fanned ``fan_step`` degrees a card (at 12 each top-left index
    shows whole; at 5, a tight fan, only its left part);
    ``"row"``: overlapped sideways by 40 % of a card; ``"apart"``: side by side, both
    indices of every card showing. ``face_down`` backs lie to the right, not overlapping.
    ``dark_faces``: a deck with dark faces printed in light inks. ``index_letters``: the deck
    language whose letters the courts and the ace print (``INDEX_LETTERS``). ``frame``: the
    photo's (width, height), the layout in its middle (default: the layout's size and a
    margin of 0.6 card widths); ValueError where the layout's cards do not fit in it.
    """
    rng = np.random.default_rng(seed)
    style_rng = np.random.default_rng(seed + 1)
    style = random_style(style_rng)
    if dark_faces:
        style = replace(style, **_dark_face(style_rng))
    if index_letters != style.index_letters:
        style = replace(style, index_letters=index_letters)
    card_h = card_w * style.aspect
    n = len(labels)
    margin = int(card_w * 0.6)
    if layout == "fan":
        radius = card_h * 1.1
        spread = math.radians(fan_step * (n - 1) / 2) + 0.5
        width = int(2 * (radius + card_h / 2) * math.sin(min(spread, math.pi / 2))) + card_w
        height = int(radius + card_h) + 2 * margin
        placements = fan(
            list(labels),
            width / 2 + margin,
            margin + card_h / 2 + radius,
            fan_step,
            radius,
        )
        width += 2 * margin
    else:
        offset = card_w * (0.4 if layout == "row" else 1.1)
        width = int(offset * (n - 1) + card_w) + 2 * margin
        height = int(card_h) + 2 * margin
        placements = row(list(labels), margin + card_w / 2, margin + card_h / 2, offset, 0.0)
    extra = int(face_down * card_w * 1.2)
    for k in range(face_down):
        x = width + card_w * (0.6 + 1.2 * k) - margin / 2
        placements.append(Placement(x, margin + card_h / 2, 0.0, None))
    width += extra
    if frame is not None:
        placements, (width, height) = _framed(placements, width, height, frame, card_w, card_h)
    canvas = background(np.random.default_rng(seed + 2), height, width)
    canvas = cv2.GaussianBlur(canvas, (0, 0), 1.0)
    ids, drawn = _compose(rng, canvas, placements, [style], card_w, gloss_p=0.0)
    cards, backs, partly_shown, _ = _labels(ids, drawn, lambda points: points.astype(np.float32))
    return CardScene(canvas, cards, backs, partly_shown)
