"""What the general text recogniser read on a piece, as the second reader passes it on
(``vision.twostage.SecondReading.numerals``), made up for tests of either kind's reader."""

from __future__ import annotations

import numpy as np

from vision.settings import SecondReader


def text_reading(settings: SecondReader, numeral: str | None, p: float = 0.95) -> np.ndarray:
    """``numeral`` read with probability ``p`` (the rest "no numeral"); None: none read."""
    texts = [text for _cls, text in settings.numerals]
    out = np.zeros(len(texts) + 1)
    if numeral is None:
        out[-1] = 1.0
    else:
        out[texts.index(numeral)], out[-1] = p, 1.0 - p
    return out
