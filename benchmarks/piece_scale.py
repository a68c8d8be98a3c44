"""Pieces from a speck to most of the frame: ``python -m benchmarks.piece_scale --kind cards``
(or ``dominoes``) ``[--photos 8] [--models DIR] [--seed N] [--misses] [--meld]``.

Issues 19 and 20 ask for dominoes and cards read from 3 % to 60 % of the frame (a whole table
to a close-up of one piece). Each share of ``SHARES`` is one piece's area over the photo's (a
1600 x 1200 photo: dominoes on a landscape one, cards on a portrait one, as a phone holds them
for a hand): at 0.3 % a card is 64 px wide, at 60 % 907 px (``ASPECTS``). ``--photos``
photos a share, each a clean rendered row of as many pieces as fit, up to ``MOST`` (the
generators' test layouts with ``frame``: look-1 cards apart, dominoes end to end, upright on a
plain table, saved as a JPEG of quality 85), read by the shipped recogniser. Printed per
share: the piece's width, label precision, recall, F1, photos read exactly, sure share and
its precision; what each photo misread with ``--misses``. ``--meld``: cards three at a time,
overlapped in a row as a meld is laid (a disputed meld's close-up; fewer where three do not
fit).
Figures in the model cards ("Scale").
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from datasets import cards_synth, dominoes_synth
from training.evaluate import Score
from vision.labels import CARD_RANKS, CARD_SUITS, card_label
from vision.pipeline import MODELS_DIR, Recogniser

SHARES = (0.003, 0.01, 0.03, 0.1, 0.2, 0.4, 0.6)
MOST = 8  # pieces in a photo at most
FRAMES = {"cards": (1200, 1600), "dominoes": (1600, 1200)}  # (width, height)
# A piece's long side over its short one (poker cards 88 x 63 mm; a domino is two squares).
ASPECTS = {"cards": 1.4, "dominoes": 2.0}
SEED = 20261206


def _short_side(kind: str, share: float) -> int:
    """A piece's short side in px when it covers ``share`` of the kind's frame."""
    frame_w, frame_h = FRAMES[kind]
    return int(math.sqrt(share * frame_w * frame_h / ASPECTS[kind]))


def _card_photo(
    share: float, rng: np.random.Generator, seed: int, layout: str = "apart"
) -> tuple[np.ndarray, list[str]]:
    """``layout`` "apart": as many cards as fit side by side; "meld": three overlapped in a row
    as a meld is laid (fewer where three do not fit)."""
    frame_w, frame_h = FRAMES["cards"]
    card_w = _short_side("cards", share)
    if layout == "meld":
        count, layout = 3, "row"
    else:
        count = max(1, min(MOST, int((frame_w - 0.3 * card_w) / (1.1 * card_w))))
    deck = [card_label(r, s) for r in range(len(CARD_RANKS)) for s in range(len(CARD_SUITS))]
    hand = [str(c) for c in rng.choice(deck, count, replace=False)]
    while True:
        try:
            scene = cards_synth.render_test_layout(
                hand, layout=layout, card_w=card_w, seed=seed, frame=(frame_w, frame_h)
            )
            return scene.image, [c.label for c in scene.cards]
        except ValueError:  # too large for the frame: one card fewer
            if len(hand) == 1:
                raise
            hand = hand[:-1]


def _domino_photo(
    share: float, rng: np.random.Generator, seed: int, _layout: str = "apart"
) -> tuple[np.ndarray, list[str]]:
    frame_w, frame_h = FRAMES["dominoes"]
    width = _short_side("dominoes", share)
    count = max(1, min(MOST, int((frame_w - 0.2 * width) / (2.1 * width))))
    labels = dominoes_synth.all_labels("double-six")
    row = [str(label) for label in rng.choice(labels, count, replace=False)]
    scene = dominoes_synth.render_test_scene(
        [row], tile_width=width, gap=int(0.1 * width), seed=seed, frame=(frame_w, frame_h)
    )
    return scene.image, [label for label, _box in scene.labels()]


PHOTOS = {"cards": _card_photo, "dominoes": _domino_photo}


def photos(
    kind: str, share: float, count: int, first_seed: int = SEED, layout: str = "apart"
) -> Iterator[tuple[str, np.ndarray, list[str]]]:
    """(name, BGR photo as a JPEG of quality 85 decodes, labels) of ``count`` photos whose
    pieces each cover ``share`` of the photo's area (cards ``layout``: ``_card_photo``)."""
    for i in range(count):
        seed = first_seed + 1000 * SHARES.index(share) + i
        image, labels = PHOTOS[kind](share, np.random.default_rng(seed), seed, layout)
        encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])[1]
        yield f"{share:.1%}-{i}", cv2.imdecode(encoded, cv2.IMREAD_COLOR), labels


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=tuple(PHOTOS), required=True)
    parser.add_argument("--photos", type=int, default=8, help="photos a share")
    parser.add_argument("--models", type=Path, default=MODELS_DIR, help="the models' folder")
    parser.add_argument("--misses", action="store_true", help="name what each photo misread")
    parser.add_argument("--seed", type=int, default=SEED, help="other photos (the first's seed)")
    parser.add_argument(
        "--meld", action="store_true", help="cards: three overlapped in a row (a meld's close-up)"
    )
    args = parser.parse_args(argv)
    if args.meld and args.kind != "cards":
        parser.error("--meld is for cards")
    recogniser = Recogniser(args.kind, args.models)
    frame_w, frame_h = FRAMES[args.kind]
    laid = ", three overlapped as a meld" if args.meld else ""
    share_of = f"{args.photos} a share, seed {args.seed}"
    print(f"{args.kind} on {frame_w} x {frame_h} photos{laid}, {share_of}")
    print(
        f"{'share':>7}{'width px':>9}{'pieces':>8}{'precision':>11}{'recall':>8}{'F1':>8}"
        f"{'exact':>7}{'sure':>8}{'sure precision':>16}{'s/photo':>9}"
    )
    layout = "meld" if args.meld else "apart"
    for share in SHARES:
        score = Score()
        for name, image, labels in photos(args.kind, share, args.photos, args.seed, layout):
            result = recogniser.recognise(image, "bgr")
            pieces = result["pieces"]
            read = [p["label"] for p in pieces]
            sure = [p["label"] for p in pieces if p["sure"]]
            score.add(name, read, labels, result["ms"] / 1000, sure)
        side = _short_side(args.kind, share)
        sure_precision = score.sure_precision
        print(
            f"{share:>7.1%}{side:>9.0f}{score.truth:>8}{score.precision:>11.3f}"
            f"{score.recall:>8.3f}{score.f1:>8.3f}{score.exact:>7}{score.sure_share or 0:>8.1%}"
            + (f"{sure_precision:>16.3f}" if sure_precision is not None else f"{'-':>16}")
            + f"{score.seconds / score.photos:>9.3f}",
            flush=True,
        )
        if args.misses:
            for miss in score.misses:
                print(f"    {miss}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
