"""Tile printings as data: the numeral fonts, inks, marks, brand lines and jokers of number-tile
sets, and a renderer that draws one tile face of a given printing.

A player's set is almost never the one a reader was trained on, so scenes of ``look=2``
(``datasets/tiles_racks.py``) draw every photo's tiles from one named printing of this
catalogue. A printing can be left out of training entirely (``HELD_OUT_PRINTING``) and its
scenes used to measure how the reader does on a set it has never seen.

Each printing fixes its font family, numeral size, mark under the numeral, brand line and
joker designs; the ink palette is drawn per photo from the shades every set uses (red; orange
or yellow; blue or teal; black or dark green), so that no colour shade belongs to one printing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from datasets.tiles_synth import load_font

FONT_DIRS = (Path("/usr/share/fonts"),)

# Font families by file name (Debian packages fonts-dejavu-*, fonts-liberation, fonts-freefont-ttf,
# fonts-urw-base35, fonts-roboto-unhinted, fonts-open-sans, fonts-comfortaa; scripts/setup.sh).
FONT_FAMILIES: dict[str, tuple[str, ...]] = {
    "grotesque": (
        "DejaVuSans-Bold.ttf",
        "LiberationSans-Bold.ttf",
        "FreeSansBold.ttf",
        "NimbusSans-Bold.otf",
        "Roboto-Bold.ttf",
        "OpenSans-ExtraBold.ttf",
    ),
    "condensed": (
        "DejaVuSansCondensed-Bold.ttf",
        "LiberationSansNarrow-Bold.ttf",
        "NimbusSansNarrow-Bold.otf",
        "RobotoCondensed-Bold.ttf",
        "OpenSans-CondBold.ttf",
    ),
    "rounded": ("Comfortaa-Bold.ttf", "URWGothic-Demi.otf"),
    "serif": (
        "DejaVuSerif-Bold.ttf",
        "FreeSerifBold.ttf",
        "NimbusRoman-Bold.otf",
        "C059-Bold.otf",
        "P052-Bold.otf",
        "URWBookman-Demi.otf",
    ),
}

# Ink shades in RGB per tile colour; a photo's set uses one shade per colour.
INK_SHADES: dict[str, tuple[tuple[int, int, int], ...]] = {
    "red": ((200, 30, 45), (215, 45, 60), (180, 20, 35), (225, 60, 80), (190, 25, 90)),
    # orange and the yellow of Okey sets
    "orange": ((240, 130, 40), (235, 150, 30), (230, 110, 30), (245, 180, 20), (230, 200, 30)),
    # blue and teal
    "blue": ((25, 90, 190), (20, 110, 200), (30, 70, 160), (20, 130, 170), (10, 140, 150)),
    # black and dark green
    "black": ((30, 30, 35), (45, 45, 50), (20, 25, 30), (25, 60, 40), (30, 45, 60)),
}

BODIES = ((238, 232, 214), (245, 242, 232), (232, 222, 196), (240, 238, 236), (228, 226, 218))


@dataclass(frozen=True)
class Printing:
    """One set's printing. Sizes are shares of the tile's width; ``numeral_y`` is the numeral's
    centre as a share of the face's height."""

    name: str
    family: str  # a key of FONT_FAMILIES
    numeral_size: tuple[float, float]
    numeral_y: tuple[float, float]
    marks: tuple[str, ...]  # under the numeral: "none", "circle", "heart", "dot", "bar"
    face_circle: float  # probability of the printed face circle around the numeral
    brand: tuple[str, ...]  # foot lines ("" for none), drawn "embossed" or "printed"
    brand_style: tuple[str, ...]
    jokers: tuple[str, ...]  # "face", "j", "star", "smiley", "clover" (or "pictogram": any)


PRINTINGS: tuple[Printing, ...] = (
    # The Original's look: a bold grotesque numeral, a brand embossed on the foot, face jokers.
    Printing(
        name="original",
        family="grotesque",
        numeral_size=(0.5, 0.66),
        numeral_y=(0.36, 0.44),
        marks=("none",),
        face_circle=0.3,
        brand=("Rummikub", "RUMMIKUB", ""),
        brand_style=("embossed", "printed"),
        jokers=("face",),
    ),
    # Okey sets: condensed numerals over a heart or a dot, a clover "false joker".
    Printing(
        name="okey",
        family="condensed",
        numeral_size=(0.5, 0.66),
        numeral_y=(0.32, 0.4),
        marks=("heart", "dot"),
        face_circle=0.0,
        brand=("", "OKEY"),
        brand_style=("embossed",),
        jokers=("clover", "star"),
    ),
    # A large-number edition: numerals filling the face, a bar under 6 and 9.
    Printing(
        name="large",
        family="grotesque",
        numeral_size=(0.66, 0.8),
        numeral_y=(0.4, 0.46),
        marks=("none", "bar"),
        face_circle=0.0,
        brand=("", "Rummikub XXL"),
        brand_style=("printed",),
        jokers=("face", "j"),
    ),
    # A classic serif printing with a small circle under the numeral and a "J" joker.
    Printing(
        name="serif",
        family="serif",
        numeral_size=(0.46, 0.6),
        numeral_y=(0.36, 0.42),
        marks=("circle", "none"),
        face_circle=0.5,
        brand=("", "RUMMY"),
        brand_style=("printed", "embossed"),
        jokers=("j", "star"),
    ),
    # A travel set: rounded numerals, small, a dot under them, smiley jokers.
    Printing(
        name="travel",
        family="rounded",
        numeral_size=(0.38, 0.52),
        numeral_y=(0.34, 0.42),
        marks=("dot", "none"),
        face_circle=0.2,
        brand=("", "travel"),
        brand_style=("printed",),
        jokers=("smiley", "face"),
    ),
    # A condensed printing without marks (many club sets).
    Printing(
        name="club",
        family="condensed",
        numeral_size=(0.5, 0.62),
        numeral_y=(0.38, 0.46),
        marks=("none", "bar"),
        face_circle=0.6,
        brand=("Rummikub", ""),
        brand_style=("printed", "embossed"),
        jokers=("face", "star"),
    ),
)
PRINTING_NAMES = tuple(p.name for p in PRINTINGS)
# Left out of the shipped reader's training; its scenes measure an unseen printing.
HELD_OUT_PRINTING = "travel"

# A joker may be printed as anything that is not a numeral, and a player's set will have a
# design no catalogue holds, so training scenes may give a set a "pictogram" joker instead of
# its printing's own: one random composition per set (a symbol, a letter, a rosette, a star or
# polygon, a crescent, an asterisk; ringed or not, one or two inks), so that the reader learns
# "joker" as "no numeral" rather than as five drawings. No clover and no four-blob rosette is
# drawn: the okey printing's clover stays a design never seen when okey is left out.
PICTOGRAM_SYMBOLS = "☆♠♥♦☺☻☼♛♚♞☀☾✪❖✚☯♫✈☂⚑ΩψλЖ@#✿❀⚘♜♝♟☃☎✂✉✎✔✖✦✧❤➤⚓⚙⚡☠☢☣♀♂☸✵✹❄❋JKRWXYMHN"
PICTOGRAM_FONTS = ("DejaVuSans-Bold.ttf", "DejaVuSans.ttf")


def printing(name: str) -> Printing:
    for p in PRINTINGS:
        if p.name == name:
            return p
    raise KeyError(f"no printing {name!r}; known: {', '.join(PRINTING_NAMES)}")


@lru_cache(maxsize=1)
def _font_files() -> dict[str, str]:
    files: dict[str, str] = {}
    wanted = {name for names in FONT_FAMILIES.values() for name in names}
    for root in FONT_DIRS:
        if root.is_dir():
            for path in sorted(root.rglob("*")):
                if path.name in wanted and path.name not in files:
                    files[path.name] = str(path)
    return files


def family_fonts(family: str) -> tuple[str, ...]:
    """The installed fonts of a family (at least one: DejaVu is always there)."""
    files = _font_files()
    found = tuple(files[n] for n in FONT_FAMILIES[family] if n in files)
    if not found:
        raise RuntimeError(f"no font of family {family!r} installed: run scripts/setup.sh")
    return found


@dataclass(frozen=True)
class SetLook:
    """A physical set as photographed: its printing, one font, one ink shade per colour, one
    body colour, one mark, brand line and joker design (a set is printed one way)."""

    printing: Printing
    font: str
    inks: dict[str, tuple[int, int, int]]
    body: tuple[int, int, int]
    mark: str
    brand: str
    brand_style: str
    joker: str
    numeral_size: float
    numeral_y: float
    face_circle: bool
    aspect: float  # face height / width
    joker_seed: int = 0  # a "pictogram" joker's drawing, the same on every joker of the set


def choose_set(rng: np.random.Generator, name: str, pictogram_jokers: float = 0.0) -> SetLook:
    """A set of printing ``name``; with probability ``pictogram_jokers`` its jokers are a random
    pictogram instead of the printing's own design (training scenes; at 0 nothing more is drawn
    from ``rng``, so every other scene set stays as it was)."""
    p = printing(name)
    fonts = family_fonts(p.family)
    inks = {c: shades[int(rng.integers(0, len(shades)))] for c, shades in INK_SHADES.items()}
    if rng.random() < 0.15:  # the teal and dark-green sets print both
        inks["blue"], inks["black"] = INK_SHADES["blue"][4], INK_SHADES["black"][3]
    body = np.clip(
        np.array(BODIES[int(rng.integers(0, len(BODIES)))]) + rng.normal(0, 5, 3), 150, 255
    )
    look = SetLook(
        printing=p,
        font=fonts[int(rng.integers(0, len(fonts)))],
        inks=inks,
        body=(int(body[0]), int(body[1]), int(body[2])),
        mark=p.marks[int(rng.integers(0, len(p.marks)))],
        brand=p.brand[int(rng.integers(0, len(p.brand)))],
        brand_style=p.brand_style[int(rng.integers(0, len(p.brand_style)))],
        joker=p.jokers[int(rng.integers(0, len(p.jokers)))],
        numeral_size=float(rng.uniform(*p.numeral_size)),
        numeral_y=float(rng.uniform(*p.numeral_y)),
        face_circle=bool(rng.random() < p.face_circle),
        aspect=float(rng.uniform(1.28, 1.42)),
    )
    if pictogram_jokers > 0 and rng.random() < pictogram_jokers:
        look = replace(look, joker="pictogram", joker_seed=int(rng.integers(0, 2**31)))
    return look


def render_set_tile(rng: np.random.Generator, look: SetLook, label: str, width: int) -> np.ndarray:
    """One tile face of ``look``, RGBA, ``width`` x ``width * look.aspect``."""
    height = int(width * look.aspect)
    scale = 4  # draw large, then shrink: smooth edges
    big_w, big_h = width * scale, height * scale
    body = np.array(look.body, float)
    img = Image.new("RGBA", (big_w, big_h), (0, 0, 0, 0))
    draw = ImageDraw.Draw(img)
    radius = int(big_w * 0.1)
    draw.rounded_rectangle((0, 0, big_w - 1, big_h - 1), radius=radius, fill=(*look.body, 255))
    rim_col = _shade(body, -rng.uniform(8, 25))
    draw.rounded_rectangle(
        (0, 0, big_w - 1, big_h - 1), radius=radius, outline=rim_col, width=int(big_w * 0.045)
    )
    cx, cy = big_w / 2, big_h * look.numeral_y
    if look.face_circle:
        r = big_w * 0.4
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=_shade(body, -rng.uniform(4, 12)))
    if look.brand:
        _draw_brand(draw, look, body, big_w, big_h)
    if label == "joker":
        _draw_set_joker(draw, rng, look, cx, cy, big_w)
        return np.asarray(img.resize((width, height), Image.Resampling.LANCZOS))
    colour, _, number = label.partition("-")
    ink = np.clip(np.array(look.inks[colour], float) + rng.normal(0, 6, 3), 0, 255)
    fill = (*ink.astype(int).tolist(), 255)
    size = int(big_w * look.numeral_size * (1.0 if len(number) == 1 else 0.82))
    font = load_font(look.font, max(8, size))
    box = draw.textbbox((0, 0), number, font=font, anchor="mm")
    if box[2] - box[0] > big_w * 0.84:  # two digits of a wide font: fit the face
        size = int(size * big_w * 0.84 / (box[2] - box[0]))
        font = load_font(look.font, max(8, size))
    draw.text((cx, cy), number, fill=fill, font=font, anchor="mm")
    box = draw.textbbox((cx, cy), number, font=font, anchor="mm")
    mark_y = box[3] + big_w * 0.1
    _draw_mark(draw, look.mark, number, cx, mark_y, big_w, fill)
    return np.asarray(img.resize((width, height), Image.Resampling.LANCZOS))


def _shade(body: np.ndarray, delta: float) -> tuple[int, int, int, int]:
    return (*np.clip(body + delta, 0, 255).astype(int).tolist(), 255)


def _draw_brand(draw: ImageDraw.ImageDraw, look: SetLook, body, big_w: int, big_h: int) -> None:
    """The brand name on the tile's foot: embossed (a light and a dark edge in the body's own
    colour) or printed in a faint ink."""
    path = family_fonts("grotesque")[0]
    font = load_font(path, max(8, int(big_w * 0.11)))
    x, y = big_w / 2, big_h * 0.88
    box = draw.textbbox((0, 0), look.brand, font=font)
    if box[2] - box[0] > big_w * 0.8:
        font = load_font(path, max(8, int(font.size * big_w * 0.8 / (box[2] - box[0]))))
    if look.brand_style == "embossed":
        d = max(2, big_w // 90)
        draw.text((x - d, y - d), look.brand, fill=_shade(body, 18), font=font, anchor="mm")
        draw.text((x + d, y + d), look.brand, fill=_shade(body, -40), font=font, anchor="mm")
        draw.text((x, y), look.brand, fill=_shade(body, -8), font=font, anchor="mm")
    else:
        draw.text((x, y), look.brand, fill=_shade(body, -70), font=font, anchor="mm")


def _draw_mark(draw, mark: str, number: str, cx: float, y: float, w: int, fill) -> None:
    """The mark under the numeral; "bar" underlines only 6 and 9 (telling them apart)."""
    r = w * 0.055
    if mark == "circle":
        draw.ellipse((cx - r, y - r, cx + r, y + r), outline=fill, width=max(2, int(r * 0.35)))
    elif mark == "dot":
        draw.ellipse((cx - r * 0.7, y - r * 0.7, cx + r * 0.7, y + r * 0.7), fill=fill)
    elif mark == "heart":
        _heart(draw, cx, y, r * 1.5, fill)
    elif mark == "bar" and number in ("6", "9"):
        draw.line(
            (cx - w * 0.12, y - r, cx + w * 0.12, y - r), fill=fill, width=max(3, int(r * 0.6))
        )


def _heart(draw, cx: float, cy: float, r: float, fill) -> None:
    pts = []
    for k in range(40):
        t = 2 * math.pi * k / 40
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        pts.append((cx + x * r / 16, cy - y * r / 16))
    draw.polygon(pts, fill=fill)


def _draw_set_joker(draw, rng, look: SetLook, cx: float, cy: float, w: int) -> None:
    red, black = look.inks["red"], look.inks["black"]
    main = (*(red if rng.random() < 0.5 else black), 255)
    lw = max(3, int(w * 0.035))
    if look.joker == "pictogram":
        _draw_pictogram(draw, look, cx, cy, w)
    elif look.joker == "j":
        font = load_font(look.font, int(w * look.numeral_size))
        draw.text((cx, cy), "J", fill=main, font=font, anchor="mm")
    elif look.joker == "star":
        r = w * 0.3
        pts = [
            (
                cx + (r if k % 2 == 0 else r * 0.42) * math.sin(math.pi * k / 5),
                cy - (r if k % 2 == 0 else r * 0.42) * math.cos(math.pi * k / 5),
            )
            for k in range(10)
        ]
        draw.polygon(pts, fill=main)
    elif look.joker == "clover":
        r = w * 0.11
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):
            x, y = cx + dx * r * 1.1, cy + dy * r * 1.1
            draw.ellipse((x - r, y - r, x + r, y + r), fill=main)
        draw.line((cx, cy, cx + r * 1.5, cy + r * 3), fill=main, width=lw)
    elif look.joker == "smiley":
        r = w * 0.3
        yellow = (*look.inks["orange"], 255)
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=yellow, outline=main, width=lw)
        for side in (-0.35, 0.35):
            ex, ey, e = cx + side * r, cy - 0.25 * r, r * 0.1
            draw.ellipse((ex - e, ey - e, ex + e, ey + e), fill=main)
        draw.arc(
            (cx - r * 0.55, cy - r * 0.4, cx + r * 0.55, cy + r * 0.6), 20, 160, fill=main, width=lw
        )
    else:  # "face": a jester's face in a ring, in red or black (the Original's two jokers)
        r = w * 0.32
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=main, width=lw)
        hat = [
            (cx - r * 0.8, cy - r * 0.2),
            (cx - r * 0.5, cy - r * 1.1),
            (cx, cy - r * 0.45),
            (cx + r * 0.5, cy - r * 1.1),
            (cx + r * 0.8, cy - r * 0.2),
        ]
        draw.line(hat, fill=main, width=lw)
        for side in (-0.3, 0.3):
            ex, ey, e = cx + side * r, cy, r * 0.09
            draw.ellipse((ex - e, ey - e, ex + e, ey + e), fill=main)
        draw.arc(
            (cx - r * 0.45, cy - r * 0.1, cx + r * 0.45, cy + r * 0.6), 20, 160, fill=main, width=lw
        )


def _pictogram_font(size: int):
    files = _font_files()
    for name in PICTOGRAM_FONTS:
        if name in files:
            return load_font(files[name], size)
    return load_font(family_fonts("grotesque")[0], size)


def _draw_pictogram(draw, look: SetLook, cx: float, cy: float, w: int) -> None:
    """The set's random joker (``look.joker_seed``): the same drawing on each of its jokers."""
    rng = np.random.default_rng(look.joker_seed)
    inks = [look.inks[c] for c in ("red", "black", "blue", "orange")]
    main = (*inks[int(rng.choice(4, p=[0.4, 0.4, 0.1, 0.1]))], 255)
    second = (*inks[int(rng.integers(0, 4))], 255) if rng.random() < 0.35 else main
    r = w * rng.uniform(0.2, 0.33)
    lw = max(3, int(w * rng.uniform(0.025, 0.05)))
    kind = ("symbol", "rosette", "polygon", "crescent", "asterisk")[
        int(rng.choice(5, p=[0.4, 0.15, 0.2, 0.1, 0.15]))
    ]
    if kind == "symbol":
        symbol = PICTOGRAM_SYMBOLS[int(rng.integers(0, len(PICTOGRAM_SYMBOLS)))]
        draw.text((cx, cy), symbol, fill=main, font=_pictogram_font(int(2.2 * r)), anchor="mm")
    elif kind == "rosette":  # never four blobs: that is the okey clover
        blobs = int(rng.choice([3, 5, 6, 8]))
        b = r * rng.uniform(0.28, 0.45)
        turn = rng.uniform(0, 2 * math.pi)
        for k in range(blobs):
            t = turn + 2 * math.pi * k / blobs
            x, y = cx + (r - b) * math.cos(t), cy + (r - b) * math.sin(t)
            draw.ellipse((x - b, y - b, x + b, y + b), fill=main)
        c = b * rng.uniform(0.4, 0.9)
        draw.ellipse((cx - c, cy - c, cx + c, cy + c), fill=second)
    elif kind == "polygon":
        points = int(rng.integers(3, 10))
        inner = rng.uniform(0.35, 1.0)
        turn = rng.uniform(0, 2 * math.pi)
        pts = [
            (
                cx + (r if k % 2 == 0 else r * inner) * math.cos(turn + math.pi * k / points),
                cy + (r if k % 2 == 0 else r * inner) * math.sin(turn + math.pi * k / points),
            )
            for k in range(2 * points)
        ]
        if rng.random() < 0.5:
            draw.polygon(pts, fill=main)
        else:
            draw.line([*pts, pts[0]], fill=main, width=lw, joint="curve")
    elif kind == "crescent":
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=main)
        d = r * rng.uniform(0.3, 0.6)
        t = rng.uniform(0, 2 * math.pi)
        ox, oy = cx + d * math.cos(t), cy + d * math.sin(t)
        draw.ellipse((ox - r, oy - r, ox + r, oy + r), fill=(*look.body, 255))
    else:  # an asterisk: spokes through the middle (no loose stroke that could read as a numeral)
        spokes = int(rng.integers(3, 7))
        turn = rng.uniform(0, math.pi)
        for k in range(spokes):
            t = turn + math.pi * k / spokes
            dx, dy = r * math.cos(t), r * math.sin(t)
            draw.line((cx - dx, cy - dy, cx + dx, cy + dy), fill=main, width=lw)
    if rng.random() < 0.35:  # a ring around it
        ring = r * rng.uniform(1.15, 1.35)
        draw.ellipse((cx - ring, cy - ring, cx + ring, cy + ring), outline=second, width=lw)
    if rng.random() < 0.15:  # a word under it
        font = _pictogram_font(int(w * 0.12))
        word = ("JOKER", "JOLLY", "JOKE")[int(rng.integers(0, 3))]
        draw.text((cx, cy + r * 1.45), word, fill=main, font=font, anchor="mm")
