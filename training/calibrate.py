"""``meldcam calibrate --kind K [FOLDER]``: the sure threshold of a kind, by split conformal
selection on synthetic scenes never trained on.

A piece is flagged ``sure`` when its sureness score (``KindSettings.sure_score``, a key of
``vision.pipeline.SURENESS``) is at least ``KindSettings.sure_threshold``. Sure pieces must be
right at least 99.5 % of the time. The threshold is chosen here:

1. **Calibration scenes**: ``--scenes`` (``SCENES``: tiles 600, dominoes 2,500, cards 2,000;
   about 35, 22 and 20 minutes on 2 cores) scenes rendered by the kind's generators from
   seeds ``CALIBRATION_SEED * 1_000_003 + i`` (the training's scheme, with a base seed no
   training uses: the training's base seeds are 20261129-20261161), spread evenly over the renderers
   (``DEFAULT_RENDERERS``: tiles' tables and racks, dominoes' looks 1-4 and 6 (graded pips),
   cards' looks 1-5;
   ``card_fans_scene``, hands in tight fans, by ``--renderer``).
   The tile and domino renderers give every piece the photo shows, the partly shown ones (a
   tile under 60 % visible, a domino with a half or a pip hidden: not labelled for training)
   too, so that a reading of one is judged against its true label rather than counted as a
   piece found where there is none; or the generated scenes of
   ``FOLDER`` (``NAME.jpg`` + ``NAME.json`` with seed, size and pieces, as ``meldcam eval
   --synthetic`` reads them).
2. **Matching**: the recogniser reads each scene; its pieces, most confident first, each take
   the unmatched true piece whose box overlaps theirs most, at IoU >= 0.5 (``match``). A piece
   is right when it took a true piece of its label; a piece that took none is wrong (a piece
   found where there is none, or found twice). Cards are matched by their corner indices: a
   card read is the true card one of whose index boxes (labelled: >= 90 % visible, or its rank
   and suit both showing; or partly shown, at least 20 % visible: the generator's
   ``CardScene.partly_shown``, as for tiles and dominoes) one of
   its own index boxes (``corners``) overlaps, the card of its own label first, at a cover >= 0.5
   (the smaller box at least half inside the other: a rightly read card is right however
   loosely the detector boxes its index), then any card at IoU >= 0.5 (``MATCHING``). So two
   cards of one label (two decks) stay two, a card reported twice is wrong once, and a card
   read from a partly shown index is judged by its label; one read from an index under 20 %
   visible counts as wrong.
3. **Threshold** (``choose_threshold``): the LOWEST threshold at which the one-sided
   Clopper-Pearson 95 % upper bound of the error rate among the accepted pieces (score >=
   threshold) is at most 0.005; of the thresholds accepting the same calibration pieces, the
   shortest decimal down to the lowest accepted score. With no such threshold nothing is sure
   (1.01). Each family of scenes (each renderer) must certify on its own, and the highest of
   their thresholds is the one chosen (``choose_threshold_per_family``): pooled, the easy
   tables would hide the harder racks. The bound holds at the chosen threshold; choosing the
   lowest of many thresholds makes it a little optimistic, which is why the real dev photos are
   the check (``meldcam eval``).

The command prints the threshold, the precision and the share of pieces accepted on the
calibration scenes, for the kind's sure score and, to compare, the others. ``--write`` stores
the chosen threshold in the kind's metrics file (``models/<kind>.json``, ``vision/metrics.py``)
with the command that chose it, the date and what it accepts (``threshold_name``: ``sure``,
``sets.SET`` for ``--set``, ``dark_faces`` for dark decks' scenes, or ``--threshold NAME``);
``vision/kinds.py`` reads it from there (the file is its one place).
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from vision.pipeline import NEVER_SURE

CALIBRATION_SEED = 20261201
# Scenes rendered by default: tiles' scenes hold ~20 pieces, dominoes' and cards' ~8-10, and
# certifying 99.5 % takes at least 598 sure pieces (all right) at a 95 % bound; more pieces
# tighten the bound, so a lower threshold certifies (tiles: 300 table and 300 rack scenes).
# Each family certifies on its own: with 500 domino scenes the low-camera look certified at no
# threshold, and with 400 card scenes no look did (80 scenes, ~900 cards, a look).
SCENES = {"tiles": 600, "dominoes": 2500, "cards": 2000}
MAX_ERROR = 0.005  # of sure pieces, at most this share wrong
BOUND_CONFIDENCE = 0.95  # ... by a one-sided Clopper-Pearson bound at this confidence
MATCH_IOU = 0.5
NOTHING_SURE = NEVER_SURE

# Scene renderers per kind, "module:function" (``seed -> (BGR image, [(label, box), ...],
# ...)``) or "module:function@N" (called with ``look=N``), used in turn.
DEFAULT_RENDERERS: dict[str, tuple[str, ...]] = {
    "tiles": (
        "datasets.tiles_synth:render_scene_every_tile",
        "datasets.tiles_racks:render_training_scene_every_tile",
    ),
    "dominoes": tuple(
        f"datasets.dominoes_synth:render_scene_every_domino@{look}" for look in (1, 2, 3, 4, 6)
    ),
    "cards": tuple(f"training.calibrate:card_scene@{look}" for look in (1, 2, 3, 4, 5)),
}

Truth = list[tuple[str, list[list[float]]]]  # (label, its boxes: one, or a card's corners)


# ------------------------------------------------------------------------- the bound


def clopper_pearson_upper(errors: int, n: int, confidence: float = BOUND_CONFIDENCE) -> float:
    """The one-sided Clopper-Pearson upper confidence bound of an error rate from ``errors``
    among ``n``: the rate u at which seeing at most ``errors`` has probability 1 - confidence
    (the ``confidence`` quantile of Beta(errors + 1, n - errors))."""
    if n <= 0:
        return 1.0
    if errors >= n:
        return 1.0
    tail = 1.0 - confidence
    if errors == 0:
        return 1.0 - tail ** (1.0 / n)
    k = np.arange(errors + 1)
    log_choose = np.array(
        [math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) for i in k]
    )

    def cdf(u: float) -> float:
        return float(np.exp(log_choose + k * math.log(u) + (n - k) * math.log1p(-u)).sum())

    low, high = errors / n, 1.0  # cdf(low) > tail > cdf(high)
    for _ in range(100):
        middle = (low + high) / 2
        if cdf(middle) > tail:
            low = middle
        else:
            high = middle
        if high - low < 1e-12:
            break
    return high


@dataclass(frozen=True)
class Choice:
    """A threshold and what it accepts on the calibration pieces."""

    threshold: float
    pieces: int  # all pieces read
    accepted: int  # score >= threshold
    errors: int  # wrong among the accepted
    bound: float  # Clopper-Pearson upper bound of the error rate among the accepted

    @property
    def precision(self) -> float | None:
        return (self.accepted - self.errors) / self.accepted if self.accepted else None

    @property
    def share(self) -> float:
        return self.accepted / self.pieces if self.pieces else 0.0


def choose_threshold(
    scores: Sequence[float],
    right: Sequence[bool],
    max_error: float = MAX_ERROR,
    confidence: float = BOUND_CONFIDENCE,
) -> Choice:
    """The lowest threshold at which the Clopper-Pearson upper bound of the error rate among
    the pieces scoring at least it is <= ``max_error``; ``NOTHING_SURE`` when there is none.

    The thresholds tried are the pieces' own scores (a threshold between two of them accepts
    what the higher one does); the one chosen is written with as few decimals (at most 6) as
    keep the same pieces accepted (``short_threshold``)."""
    s = np.asarray(scores, float)
    wrong = ~np.asarray(right, bool)
    order = np.argsort(s, kind="stable")
    s, wrong = s[order], wrong[order]
    errors_from = np.concatenate([np.cumsum(wrong[::-1])[::-1], [0]])  # errors at index >= i
    thresholds = np.unique(s)
    first = np.searchsorted(s, thresholds, side="left")  # s[first:] >= threshold
    bounds: dict[tuple[int, int], float] = {}
    for t, i in zip(thresholds, first, strict=True):
        n, e = len(s) - int(i), int(errors_from[i])
        if e > max_error * n:  # the bound is never below the observed rate
            continue
        if (n, e) not in bounds:
            bounds[n, e] = clopper_pearson_upper(e, n, confidence)
        if bounds[n, e] <= max_error:
            below = s[i - 1] if i > 0 else -np.inf
            return Choice(short_threshold(float(t), float(below)), len(s), n, e, bounds[n, e])
    return Choice(NOTHING_SURE, len(s), 0, 0, 1.0)


def choose_threshold_per_family(
    scores: Sequence[float],
    right: Sequence[bool],
    families: Sequence[str],
    max_error: float = MAX_ERROR,
    confidence: float = BOUND_CONFIDENCE,
) -> tuple[Choice, dict[str, Choice]]:
    """The lowest threshold at which the pieces of every family of scenes (each renderer: tile
    tables, tile racks) certify on their own (``choose_threshold`` per family, the highest of
    their thresholds), and what it accepts over all pieces; with each family's own choice. A
    pooled bound would let an easy family hide a hard one."""
    s, ok, fam = np.asarray(scores, float), np.asarray(right, bool), np.asarray(families)
    own = {
        f: choose_threshold(s[fam == f], ok[fam == f], max_error, confidence)
        for f in dict.fromkeys(families)
    }
    threshold = max((c.threshold for c in own.values()), default=NOTHING_SURE)
    if threshold >= NOTHING_SURE:
        return Choice(NOTHING_SURE, len(s), 0, 0, 1.0), own
    accepted = s >= threshold
    n, errors = int(accepted.sum()), int((accepted & ~ok).sum())
    bound = clopper_pearson_upper(errors, n, confidence)
    return Choice(threshold, len(s), n, errors, bound), own


def short_threshold(lowest_accepted: float, highest_refused: float) -> float:
    """The shortest decimal (at most 6 places) above ``highest_refused`` and at most
    ``lowest_accepted``: a threshold that accepts the same pieces and reads well in the
    settings."""
    for places in range(1, 7):
        step = 10.0**-places
        short = round(math.floor(lowest_accepted / step + 1e-9) * step, places)
        if highest_refused < short <= lowest_accepted:
            return short
    return lowest_accepted


# ------------------------------------------------------------------------ the matching


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return w * h / union if union > 0 else 0.0


def cover(a: Sequence[float], b: Sequence[float]) -> float:
    """The share of the smaller of two boxes that lies in the other."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    smaller = min((a[2] - a[0]) * (a[3] - a[1]), (b[2] - b[0]) * (b[3] - b[1]))
    return w * h / smaller if smaller > 0 else 0.0


# How a kind's pieces are paired with the true ones (``assign``): cards by their index, the
# label first ("index"); the others by their boxes alone ("box").
MATCHING = {"tiles": "box", "dominoes": "box", "cards": "index"}
# "index": a card read takes an unmatched true card of its own label when one of its index
# boxes covers at least this share of one of that card's (or lies that much inside it).
INDEX_COVER = 0.5


def match(
    pieces: list[dict], truth: Truth, min_iou: float = MATCH_IOU, matching: str = "box"
) -> list[bool]:
    """Whether each piece read is right: it took a true piece (``assign``) of its label; a
    piece that takes no true piece is wrong."""
    return [
        j is not None and piece["label"] == truth[j][0]
        for piece, j in zip(pieces, assign(pieces, truth, min_iou, matching), strict=True)
    ]


def assign(
    pieces: list[dict], truth: Truth, min_iou: float = MATCH_IOU, matching: str = "box"
) -> list[int | None]:
    """The true piece each piece read takes: pieces, most confident first, each take the
    unmatched true piece overlapping them most (IoU >= ``min_iou`` between any of the piece's
    boxes, its ``corners`` for a card, and any of the true piece's), or none (None).

    ``matching="index"`` (cards): first the unmatched true card of the piece's own label whose
    index boxes one of its own covers most, at least ``INDEX_COVER`` (``cover``): a card read
    rightly where it lies is right however loosely its index is boxed (the detector's box may
    take in the pip under the index, or only the rank), as a player sees it; only then, as
    above, a card of another label (a misreading) or none."""
    taken_by: list[int | None] = [None] * len(pieces)
    taken: set[int] = set()
    for i in sorted(range(len(pieces)), key=lambda i: -pieces[i]["confidence"]):
        boxes = pieces[i].get("corners") or [pieces[i]["bbox"]]
        best = None
        if matching == "index":
            best_cover = INDEX_COVER
            for j, (label, true_boxes) in enumerate(truth):
                if j in taken or label != pieces[i]["label"]:
                    continue
                overlap = max(cover(a, b) for a in boxes for b in true_boxes)
                if overlap >= best_cover:
                    best, best_cover = j, overlap
        if best is None:
            best_iou = min_iou
            for j, (_label, true_boxes) in enumerate(truth):
                if j in taken:
                    continue
                overlap = max(iou(a, b) for a in boxes for b in true_boxes)
                if overlap >= best_iou:
                    best, best_iou = j, overlap
        if best is not None:
            taken.add(best)
            taken_by[i] = best
    return taken_by


# -------------------------------------------------------------------------- the scenes


def card_scene(seed: int, look: int = 1):
    """A generated card scene and its cards with at least one labelled corner index, each with
    its labelled index boxes."""
    from datasets.cards_synth import render_scene

    scene = render_scene(seed, look=look)
    return scene.image, _card_truth(scene)


def card_fans_scene(seed: int):
    """A look-5 card scene with hands in tight fans, and its cards as ``card_scene`` gives them:
    players photograph the hands they hold."""
    from datasets.cards_synth import render_scene

    scene = render_scene(seed, look=5, tight_fans=True)
    return scene.image, _card_truth(scene)


def card_grey_scene(seed: int):
    """``card_scene`` of looks 1-5 in turn (by seed), photographed in greyscale: the scenes the
    sure threshold of a photo without colour (``GreyPhotos``) is calibrated on."""
    from vision.pipeline import greyscale

    image, truth = card_scene(seed, look=1 + seed % 5)
    return greyscale(image), truth


def card_letters_scene(seed: int, letters: str = "en", dark_faces: bool = False):
    """A card scene of look 6 whose decks print the index letters ``letters`` ("pl": W D K A),
    and its cards as ``card_scene`` gives them: the scenes a deck letters' reader is
    calibrated on (``--set``)."""
    from datasets.cards_synth import render_scene

    scene = render_scene(seed, look=6, letter_sets=(letters,), dark_faces=dark_faces)
    return scene.image, _card_truth(scene)


def card_dark_scene(seed: int, letters: str = "en"):
    """``card_letters_scene`` with every deck's face dark, printed in light inks: the scenes the
    sure threshold of a photo read inverted (``DarkFaces``) is calibrated on."""
    return card_letters_scene(seed, letters, dark_faces=True)


def _card_truth(scene) -> Truth:
    """Every card with a labelled or partly shown index (``CardScene.partly_shown``), with the
    boxes of those indices: a reading of a partly shown index is judged by its card's label."""
    cards = (*scene.cards, *scene.partly_shown)
    return [
        (c.label, [list(k.box) for k in (*c.corners, *c.partial)])
        for c in cards
        if c.corners or c.partial
    ]


def renderer(spec: str) -> Callable[[int], tuple[np.ndarray, Truth]]:
    """``seed -> (BGR image, truth)`` from "module:function", "module:function@LOOK" (a number:
    called with ``look=LOOK``) or "module:function@ARG" (called with ARG, a string)."""
    name, _, argument = spec.partition("@")
    module, _, function = name.partition(":")
    render = getattr(importlib.import_module(module), function)

    def scene(seed: int) -> tuple[np.ndarray, Truth]:
        if not argument:
            rendered = render(seed)
        elif argument.isdigit():
            rendered = render(seed, look=int(argument))
        else:
            rendered = render(seed, argument)
        image, labels, *_rest = rendered
        return image, [(label, _boxes(box)) for label, box in labels]

    return scene


def _boxes(box) -> list[list[float]]:
    """One box [x1, y1, x2, y2], or a list of them, as a list of boxes."""
    return [list(map(float, b)) for b in box] if isinstance(box[0], list | tuple) else [box]


def set_renderers(kind: str, set_name: str | None) -> tuple[str, ...]:
    """The renderers a kind's sure threshold is calibrated on: for a set with a reader of its
    own (``--set pl``: cards' index letters), card scenes of that set's decks only (each set
    has its threshold, as a game names one deck's letters); otherwise ``DEFAULT_RENDERERS``."""
    from vision.kinds import settings_of

    if kind == "cards" and set_name in dict(settings_of(kind).set_readers):
        return (f"training.calibrate:card_letters_scene@{set_name}",)
    return DEFAULT_RENDERERS[kind]


def rendered_scenes(kind: str, scenes: int, seed: int, renderers: Sequence[str] | None = None):
    """(name, BGR image, truth, family: the renderer) of ``scenes`` scenes, the renderers used
    in turn."""
    specs = tuple(renderers or DEFAULT_RENDERERS[kind])
    makers = [renderer(spec) for spec in specs]
    for i in range(scenes):
        image, truth = makers[i % len(makers)](seed * 1_000_003 + i)
        yield f"{i:05d}", image, truth, specs[i % len(specs)]


def folder_scenes(kind: str, folder: Path):
    """(name, BGR image, truth) of the generated scenes in ``folder`` (cards re-rendered from
    their seeds for the cards' index boxes)."""
    import cv2

    from training.evaluate import rendered_card_scene, synthetic_scenes

    for scene in synthetic_scenes(folder, kind):
        image = cv2.imread(str(scene.image))
        if kind == "cards":
            truth = _card_truth(rendered_card_scene(scene))
        else:
            truth = [(label, [list(box)]) for label, box in scene.pieces]
        yield scene.name, image, truth


# ------------------------------------------------------------------------ calibration


def _scoring(recogniser):
    """``recogniser`` reporting, on each piece, every sureness score (``"_sureness"``)."""
    from vision.pipeline import SURENESS, Recogniser

    class Scoring(Recogniser):
        def _finish(self, pieces, inverted=False, grey=False):
            finished = super()._finish(pieces, inverted, grey)
            for piece, reported in zip(pieces, finished, strict=True):
                # A label never flagged sure scores 0: it takes no part in the threshold.
                never = piece.label in self.settings.never_sure
                reported["_sureness"] = {
                    name: 0.0 if never else f(piece) for name, f in SURENESS.items()
                }
                reported["_rotated"] = piece.rotated
            return finished

    scoring = Scoring.__new__(Scoring)
    scoring.__dict__.update(recogniser.__dict__)
    return scoring


def calibrate(kind: str, scenes, recogniser=None, progress=None, pieces_out=None) -> dict:
    """Read ``scenes`` ((name, image, truth) or (name, image, truth, family)) and choose the
    threshold of every sure score, one that every family certifies
    (``choose_threshold_per_family``). ``pieces_out``: a list that gets each piece read (scene,
    family, label, right, every score, box, photo size, rotated box)."""
    from vision.pipeline import SURENESS, Recogniser

    if recogniser is None:
        recogniser = Recogniser(kind)
    settings = recogniser.settings
    recogniser = _scoring(recogniser)
    scores: dict[str, list[float]] = {name: [] for name in SURENESS}
    right: list[bool] = []
    families: list[str] = []
    count = 0
    started = time.perf_counter()
    for name, image, truth, *family in scenes:
        family_name = family[0] if family else "all"
        pieces = recogniser.recognise(image, channels="bgr")["pieces"]
        correct = match(pieces, truth, matching=MATCHING[kind])
        right += correct
        families += [family_name] * len(pieces)
        for piece, ok in zip(pieces, correct, strict=True):
            for score, value in piece["_sureness"].items():
                scores[score].append(value)
            if pieces_out is not None:
                pieces_out.append(
                    {"scene": name, "family": family_name, "label": piece["label"], "right": ok}
                    | {"scores": piece["_sureness"], "bbox": piece["bbox"]}
                    | {"image": list(image.shape[:2]), "rotated": piece["_rotated"]}
                )
        count += 1
        if progress:
            progress(name, len(pieces), sum(correct), len(truth))
    per_family = {
        name: choose_threshold_per_family(values, right, families)
        for name, values in scores.items()
    }
    choices = {name: choice for name, (choice, _own) in per_family.items()}
    now = choose_now = None
    if settings.sure_score in scores:
        values = np.asarray(scores[settings.sure_score])
        accepted = values >= settings.sure_threshold
        errors = int((accepted & ~np.asarray(right, bool)).sum())
        n = int(accepted.sum())
        choose_now = Choice(
            settings.sure_threshold, len(right), n, errors, clopper_pearson_upper(errors, n)
        )
        now = _choice_dict(choose_now)
    return {
        "kind": kind,
        "scenes": count,
        "seconds": round(time.perf_counter() - started, 1),
        "pieces": len(right),
        "right": int(sum(right)),
        "max_error": MAX_ERROR,
        "bound_confidence": BOUND_CONFIDENCE,
        "sure_score": settings.sure_score,
        "chosen": _choice_dict(choices[settings.sure_score]),
        "by_score": {name: _choice_dict(choice) for name, choice in choices.items()},
        "by_family": {
            family: _choice_dict(choice)
            for family, choice in per_family.get(settings.sure_score, (None, {}))[1].items()
        },
        "settings_now": now,
    }


def _choice_dict(choice: Choice) -> dict:
    return asdict(choice) | {
        "precision": None if choice.precision is None else round(choice.precision, 5),
        "share": round(choice.share, 4),
        "bound": round(choice.bound, 5),
    }


def format_calibration(report: dict, source: str) -> str:
    chosen = report["chosen"]
    lines = [
        f"{report['kind']}: {report['scenes']} calibration scenes ({source}), "
        f"{report['pieces']} pieces read, {report['right']} right, {report['seconds']:.0f} s",
        f"sure score {report['sure_score']!r}: threshold {chosen['threshold']}",
        f"  on the calibration scenes: {chosen['accepted']} of {chosen['pieces']} pieces sure "
        f"({chosen['share']:.1%}), {chosen['errors']} wrong, precision "
        + (f"{chosen['precision']:.4f}" if chosen["precision"] is not None else "-")
        + f", error upper bound {chosen['bound']:.4f} (<= {report['max_error']})",
        "every sure score (threshold, share sure, precision):",
    ]
    width = max(12, *(len(name) + 1 for name in report["by_score"]))
    for name, c in report["by_score"].items():
        precision = f"{c['precision']:.4f}" if c["precision"] is not None else "-"
        lines.append(f"  {name:<{width}}{c['threshold']:>9}{c['share']:>8.1%}{precision:>8}")
    if len(report["by_family"]) > 1:
        lines.append(f"each family's own threshold of {report['sure_score']!r}:")
        for family, c in report["by_family"].items():
            lines.append(
                f"  {family}: {c['threshold']} ({c['accepted']} of {c['pieces']} sure, "
                f"{c['errors']} wrong)"
            )
    now = report["settings_now"]
    if now is not None:
        precision = f"{now['precision']:.4f}" if now["precision"] is not None else "-"
        lines.append(
            f"the settings now (vision/kinds.py, threshold {now['threshold']}): "
            f"{now['share']:.1%} sure, precision {precision}, bound {now['bound']:.4f}"
        )
    return "\n".join(lines)


# ------------------------------------------------------------------------------ command


def run_calibrate(args: argparse.Namespace) -> int:
    """``meldcam calibrate`` (the parser is in ``vision/cli.py``)."""
    from training.evaluate import EvalDataError, synthetic_scenes
    from vision.errors import RecogniserUnavailable, UnknownSet
    from vision.pipeline import Recogniser

    try:
        if args.folder is not None:
            synthetic_scenes(args.folder, args.kind)  # checked before a model is loaded
            scenes = folder_scenes(args.kind, args.folder)
            source = str(args.folder)
        else:
            count = SCENES[args.kind] if args.scenes is None else args.scenes
            seed = CALIBRATION_SEED if args.seed is None else args.seed
            specs = tuple(args.renderer or set_renderers(args.kind, args.set_name))
            for spec in specs:
                renderer(spec)  # a bad name fails before any scene is read
            scenes = rendered_scenes(args.kind, count, seed, specs)
            source = f"seed {seed}, {', '.join(specs)}"
        recogniser = Recogniser(args.kind, set_name=args.set_name).for_set(args.set_name)
    except (
        EvalDataError,
        RecogniserUnavailable,
        UnknownSet,
        ImportError,
        AttributeError,
    ) as error:
        print(f"meldcam: {error}", file=sys.stderr)
        return 2

    def progress(name, read, right, true):
        if args.verbose:
            print(f"{name}: {read} read, {right} right, {true} true", file=sys.stderr)

    pieces: list[dict] | None = [] if args.pieces else None
    report = calibrate(args.kind, scenes, recogniser, progress, pieces)
    report["source"] = source
    if args.pieces:
        args.pieces.write_text(json.dumps(pieces))
    print(json.dumps(report, indent=1) if args.json else format_calibration(report, source))
    if getattr(args, "write", False):
        from vision.metrics import metrics_path, write_threshold

        name = threshold_name(args)
        path = getattr(args, "metrics", None) or metrics_path(args.kind)
        chosen = report["chosen"]
        write_threshold(
            path,
            args.kind,
            name,
            chosen["threshold"],
            command=calibrate_command(args),
            score=report["sure_score"],
            calibration={"scenes": report["scenes"], "source": source}
            | {key: chosen[key] for key in ("pieces", "accepted", "errors", "precision")}
            | {key: chosen[key] for key in ("share", "bound")}
            | {"by_family": {f: c["threshold"] for f, c in report["by_family"].items()}},
        )
        print(
            f"meldcam: threshold {name!r} = {chosen['threshold']} written to {path}",
            file=sys.stderr,
        )
    return 0


def threshold_name(args: argparse.Namespace) -> str:
    """The metrics file's threshold ``meldcam calibrate --write`` sets: ``--threshold``, else
    ``sets.SET`` for a set with a reader of its own, ``dark_faces`` for dark decks' scenes,
    else ``sure``."""
    from vision.metrics import SET_PREFIX

    if getattr(args, "threshold", None):
        return str(args.threshold)
    if args.set_name and args.set_name in set_readers_of(args.kind):
        return SET_PREFIX + args.set_name
    if any("card_dark_scene" in spec for spec in args.renderer or ()):
        return "dark_faces"
    return "sure"


def set_readers_of(kind: str) -> set[str]:
    from vision.kinds import settings_of

    return {name for name, _reader in settings_of(kind).set_readers}


def calibrate_command(args: argparse.Namespace) -> str:
    """The ``meldcam calibrate`` command that chooses the threshold again (the defaults
    written out: scenes, seed)."""
    parts = ["meldcam", "calibrate"]
    if args.folder is not None:
        parts.append(str(args.folder))
    parts += ["--kind", args.kind]
    if args.set_name:
        parts += ["--set", args.set_name]
    if args.folder is None:
        count = SCENES[args.kind] if args.scenes is None else args.scenes
        seed = CALIBRATION_SEED if args.seed is None else args.seed
        parts += ["--scenes", str(count), "--seed", str(seed)]
        for spec in args.renderer or ():
            parts += ["--renderer", spec]
    return " ".join(parts)
