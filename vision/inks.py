"""A tile's colour from its ink, told per photo: not from a head trained on rendered inks.

The ink's mean colour is divided by the face's (the face is white or ivory in any light: this
takes out the light's colour), then described by CIELAB lightness, chroma and hue. Measured on
the labelled real tiles of ``realdata/dev`` (``rk_rbf_``, ``rk5_``; 704 tiles): black ink's
chroma 2-21 (5th-95th percentile), the coloured inks' 25-65; hue red 14-45 degrees, orange
(and yellow) 50-71, blue 278-306 (teal lies between blue and green, 180-260). Red and orange
are near each other and the light moves both: where a photo's warm inks fall in two groups with
a clear gap between them, the boundary is that gap (``InkColours.photo_split``), so the four
inks of one photo fall in four groups whatever the light; where they show no gap, a warm ink may
be either.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class InkColours:
    """How ink colours are named (``colours``: the kind's colour head order, which must hold
    "red", "orange", "blue", "black")."""

    colours: tuple[str, ...]
    black_chroma: float = 18.0  # chroma under this: black ink
    warm_split: float = 47.0  # a photo's red-orange gap is looked for within 15 degrees of this
    warm_range: tuple[float, float] = (0.0, 110.0)  # hues of red and orange/yellow inks
    gap: float = 10.0  # degrees between a photo's two warm groups for it to set the boundary
    close_gap: float = 5.0  # ... or this many, where each group is tight (``photo_split``)
    spread: float = 1.5
    sure_at: float = 12.0  # a colour this far from its boundary is told at probability 0.95

    def name(self, inks: list[tuple[float, float, float] | None]) -> list[np.ndarray | None]:
        """Each ink's (lightness, chroma, hue) as how surely it is each of ``colours`` (None
        where a tile shows no ink to measure): probabilities, but where the photo's warm inks
        show no gap between a red and an orange group (``photo_split``), a warm ink is named
        both red and orange fully: its hue alone cannot tell them apart under the photo's
        light."""
        split = self.photo_split(inks)
        out: list[np.ndarray | None] = []
        for ink in inks:
            if ink is None:
                out.append(None)
                continue
            _lightness, chroma, hue = ink
            p = np.zeros(len(self.colours))
            black_margin = chroma - self.black_chroma
            black = _soft(-black_margin, self.sure_at)
            p[self.colours.index("black")] = black
            low, high = self.warm_range
            if low <= hue < high or hue >= 345.0:
                warm_hue = hue - 360.0 if hue >= 345.0 else hue
                orange = 1.0 if split is None else _soft(warm_hue - split, self.sure_at / 2)
                red = 1.0 if split is None else 1.0 - orange
                p[self.colours.index("orange")] = (1 - black) * orange
                p[self.colours.index("red")] = (1 - black) * red
            else:
                p[self.colours.index("blue")] = 1 - black
            out.append(p if split is None else p / p.sum())
        return out

    def photo_split(self, inks) -> float | None:
        """The red-orange boundary of one photo: the widest gap between its warm inks' hues
        within 15 degrees of ``warm_split`` where it is at least ``gap`` degrees, or at least
        ``close_gap`` and ``spread`` times the larger of the two groups' own spreads (standard
        deviations; two inks at least on each side): warm light pulls a red and an orange
        closer, but each group stays tight. None where there is no such gap."""
        hues = sorted(
            h
            for ink in inks
            if ink is not None
            for _l, c, h in [ink]
            if c >= self.black_chroma and self.warm_range[0] <= h < self.warm_range[1]
        )
        best, split = 0.0, None
        for k, (a, b) in enumerate(itertools.pairwise(hues), start=1):
            middle = (a + b) / 2
            if b - a <= best or abs(middle - self.warm_split) > 15.0:
                continue
            below, above = hues[:k], hues[k:]
            tight = (
                min(len(below), len(above)) >= 2
                and b - a >= self.close_gap
                and b - a >= self.spread * max(np.std(below), np.std(above))
            )
            if b - a >= self.gap or tight:
                best, split = b - a, middle
        return split


def _soft(margin: float, scale: float) -> float:
    """0.5 at the boundary, 0.95 at ``scale`` beyond it (a logistic)."""
    return float(1.0 / (1.0 + np.exp(-margin * np.log(19.0) / scale)))


def ink_of(face: np.ndarray, mask: np.ndarray) -> tuple[float, float, float] | None:
    """The ink's (lightness, chroma, hue in degrees) on a face crop, white-balanced by the face
    (``mask``: the ink's pixels); None where there is too little of either."""
    ink = mask > 0
    if ink.sum() < 12 or (~ink).sum() < 12:
        return None
    mean_ink = face[ink].astype(np.float32).mean(axis=0)
    paper = np.median(face[~ink].astype(np.float32), axis=0)
    balanced = np.clip(mean_ink / np.maximum(paper, 1.0) * 255.0, 0, 255).astype(np.uint8)
    lightness, a, b = cv2.cvtColor(balanced[None, None], cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    a, b = a - 128.0, b - 128.0
    return float(lightness), float(np.hypot(a, b)), float(np.degrees(np.arctan2(b, a)) % 360.0)
