"""Dominoes: what the shared pipeline (``vision/pipeline.py``) does differently for dominoes,
referenced from their settings (``vision.kinds.DOMINOES``).

Stage 1, ``domino_detector.onnx``: a class-agnostic rotated-box (OBB) YOLO26-nano (one class,
"domino": face-up only; the backs of face-down dominoes were negatives in training) on the
whole photo and on it shrunk onto a larger canvas, merged by rotated NMS.
Stage 2, ``domino_reader.onnx``: a small CNN on a 96x96 crop cut square to the domino at its
rotated box's angle (long side vertical, ``vision/crops.py``; where the angle estimated from the
domino's edges disagrees by more than 20 degrees, also at that angle, the surer reading kept),
with two heads: the smaller half's pips (0-12, or "none": not a face-up domino) and the larger
half's (0-12). Sorted counts need no orientation: the crop read as is and turned half a turn
names the same domino, and both readings are averaged. A photo shaped like one domino may be a
tight crop of it, and is also read whole (``vision.pipeline.WholePhoto``).

A label's probability is P(smaller = a) x P(larger = b) over the pairs a <= b, renormalised
(``Heads(pairs=True)``). With a set (``double-six``, ``double-nine``, ``double-twelve``: ``sets``)
the label is the most likely pair the set contains, and its probability stays the one among all
pairs 0-12: a domino read as 10-10 in a double-nine set becomes its best in-set reading with a
low confidence, never a confident wrong answer. Dominoes are grouped into chains (``group``).
"""

from __future__ import annotations

from meldcam.vocabulary import DOMINO_SET_TOPS
from vision.labels import domino_label
from vision.layout import group_chains
from vision.settings import Piece


def set_labels() -> tuple[tuple[str, frozenset[str]], ...]:
    """Each domino set's name and labels."""
    return tuple(
        (name, frozenset(domino_label(a, b) for a in range(top + 1) for b in range(a, top + 1)))
        for name, top in DOMINO_SET_TOPS.items()
    )


def group(pieces: list[Piece]) -> tuple[list[Piece], list[list[int]]]:
    """Chains, L-shapes and rows of touching dominoes (``vision.layout.group_chains``)."""
    return pieces, group_chains([p.bbox for p in pieces])
