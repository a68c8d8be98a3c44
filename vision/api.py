"""Entry point other code uses: ``get_recogniser(kind).recognise(image) -> dict``.

The result is the CLI's JSON object without "image"::

    {"kind": "tiles", "pieces": [{"label", "bbox": [x1, y1, x2, y2], "confidence",
      "alternatives": [[label, p], ...], "sure": bool}], "melds": [[i, ...], ...], "ms": 12.3}

``image`` is a path, encoded bytes, or an HxWx3 uint8 numpy array in RGB order (pass
``channels="bgr"`` for OpenCV arrays). EXIF orientation is applied first; boxes are in the pixels
of the image as displayed. Bad input raises ``vision.errors.ImageError``.

Recognisers are created once per process and kind (thread-safe). The cache is keyed by process
id, so a worker forked from a parent that already loaded a model builds its own ONNX sessions
instead of sharing the parent's; spawned workers simply load on first use.
"""

from __future__ import annotations

import os
import threading
from typing import Protocol

from meldcam.vocabulary import KINDS
from vision.errors import ImageError, RecogniserUnavailable

__all__ = ["KINDS", "ImageError", "Recogniser", "RecogniserUnavailable", "get_recogniser"]


class Recogniser(Protocol):
    """What reads a photo (``vision.pipeline.Recogniser``; the web app's and tests' stand-ins):
    every argument, so that callers never ask which it takes (``vision.jobs.read``)."""

    def recognise(
        self,
        image,
        channels: str = "rgb",
        set_name: str | None = None,
        untold: str | None = None,
    ) -> dict: ...


# One class for every kind (``vision.pipeline.Recogniser``), its settings in ``vision/kinds.py``
# (KINDS, from ``meldcam.vocabulary``, is their names, known without importing them: the CLI
# starts without OpenCV).
# ``set_name`` limits labels to a set where the kind has sets (dominoes: "double-six",
# "double-nine", "double-twelve"); otherwise it raises ``vision.errors.UnknownSet``. Cards
# report each card once, with its visible corner boxes as "corners".


_lock = threading.Lock()
_cache: dict[tuple[int, str], Recogniser] = {}


def _after_fork_in_child() -> None:
    global _lock
    _lock = threading.Lock()  # a lock held by another thread at fork time stays held forever


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _build(kind: str) -> Recogniser:
    from vision.pipeline import Recogniser as KindRecogniser

    return KindRecogniser(kind)  # RecogniserUnavailable for an unknown kind or a missing model


def get_recogniser(kind: str) -> Recogniser:
    key = (os.getpid(), kind)
    recogniser = _cache.get(key)
    if recogniser is not None:
        return recogniser
    with _lock:
        recogniser = _cache.get(key)
        if recogniser is None:
            recogniser = _build(kind)
            for stale in [k for k in _cache if k[0] != key[0]]:
                del _cache[stale]
            _cache[key] = recogniser
    return recogniser
