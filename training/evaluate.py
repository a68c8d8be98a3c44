"""``meldcam eval DATA_DIR``: how well the recogniser reads labelled photos.

Per photo, the predicted labels and the true labels are compared as multisets (positions are
not scored: what matters to a player is which pieces were read). Counts are summed over photos
(micro average): precision = matched / predicted, recall = matched / true. A photo is "read
exactly" when both multisets are equal. Photos with ``pieces: null`` (unlabelled) are left out.
The pieces flagged ``sure`` are scored the same way: ``sure_precision`` = sure pieces whose
label is in the photo (the multiset of sure labels against the true one) / sure pieces, and
``sure_share`` = sure pieces / pieces read.

Real photos (``evaluate``) are reported in groups: all whole-table photos, the held-out quarter
of the trainable source (never trained on), the rest of the trainable source (trained on:
optimistic), measurement-only sources (never trained on), and "crops": tight single-piece crops
(``scene: "crop"``), kept out of every whole-table group and scored on their own; then the
whole-table photos of each source (``source REPO``), as the targets are set per source.

Generated scenes (``evaluate_synthetic``, one group "synthetic_test"): ``NAME.jpg`` +
``NAME.json`` (``{"seed", "size", "pieces": [[label, box], ...]}``) as written by
``training.scenes.generate``. For tiles and dominoes the stored pieces are the
truth. For cards the stored pieces are corner indices, so a card can appear twice (once per
visible corner); the truth is each card with at least one labelled corner, once. It is taken
from the scene re-rendered from its seed (``datasets.cards_synth.render_scene``), never guessed
from boxes (two decks can put the same card on the table twice), and the re-rendered scene must
match the stored one (size and corner labels), or the folder is refused: the generator changed
since, or the folder holds another kind. A card whose face is half visible but with no whole
corner index is not in the truth: nobody can name it from the photo.

A piece the scene shows only partly (a domino with a pip hidden or cut off by the frame, a card
whose indices all show only 20-90 %) is not in the truth either, so reading it by its true
label counts as a false piece in ``precision`` and ``f1``. ``f1_partly_shown_free`` also gives
the F1 with those readings counted neither right nor wrong (a wrong label stays false), as
calibration judges them: the domino scene files store their partly shown dominoes
(``partly_shown``), the cards' come from the re-rendered scene; None for scene files written
before.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from datasets.realdata import DOMAIN_OF_KIND, RealPhoto, load_photos, split_trainable
from training.readers import NOT_A_PIECE

SYNTHETIC_GROUP = "synthetic_test"
REAL_GROUPS = ("all", "held_out", "trained_on", "measurement_only", "crops")
SOURCE_GROUP = "source "  # + the source's repository name: its whole-table photos

# What a label of each kind looks like: a generated folder of another kind is refused.
LABEL_SHAPES = {
    "tiles": re.compile(r"(red|orange|blue|black)-\d{1,2}|joker"),
    "dominoes": re.compile(r"\d{1,2}-\d{1,2}"),
    "cards": re.compile(r"(A|[2-9]|10|J|Q|K)[CDHS]|JK"),
}
PIECE_NAMES = {"tiles": "tile", "dominoes": "domino", "cards": "card"}

Progress = Callable[[str, list[str], list[str]], None]


class EvalDataError(ValueError):
    """The folder holds nothing to score, or not what ``--kind`` / ``--synthetic`` say."""


@dataclass
class Score:
    photos: int = 0
    exact: int = 0
    matched: int = 0
    predicted: int = 0
    truth: int = 0
    seconds: float = 0.0
    misses: list[str] = field(default_factory=list)
    sure: int = 0  # predicted pieces flagged sure
    sure_matched: int = 0  # ... whose label is in the photo (multisets, as ``matched``)
    # Labels read that are not in the photo's truth but name a piece it shows only partly
    # (``partly_shown``); None once a photo came without its partly shown pieces.
    partly_shown_read: int | None = 0

    def add(
        self,
        name: str,
        predicted: list[str],
        truth: list[str],
        seconds: float,
        sure: list[str] | None = None,
        partly_shown: list[str] | None = None,
    ) -> None:
        """One photo: the labels read, the true labels, the labels read flagged sure, and
        the labels of the pieces it shows only partly (None: not known)."""
        p, t = Counter(predicted), Counter(truth)
        matched = sum((p & t).values())
        if partly_shown is None or self.partly_shown_read is None:
            self.partly_shown_read = None
        else:
            self.partly_shown_read += sum(((p - t) & Counter(partly_shown)).values())
        if sure:
            self.sure += len(sure)
            self.sure_matched += sum((Counter(sure) & t).values())
        self.photos += 1
        self.exact += int(p == t)
        self.matched += matched
        self.predicted += sum(p.values())
        self.truth += sum(t.values())
        self.seconds += seconds
        if p != t:
            extra = sorted((p - t).elements())
            missed = sorted((t - p).elements())
            self.misses.append(f"{name}: read {extra or '-'} instead of {missed or '-'}")

    @property
    def precision(self) -> float:
        return self.matched / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.matched / self.truth if self.truth else 1.0

    @property
    def sure_precision(self) -> float | None:
        return self.sure_matched / self.sure if self.sure else None

    @property
    def sure_share(self) -> float | None:
        return self.sure / self.predicted if self.predicted else None

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def f1_partly_shown_free(self) -> float | None:
        """F1 with each reading of a partly shown piece by its true label counted neither
        right nor wrong (a wrong label stays a false piece); None where not known."""
        if self.partly_shown_read is None:
            return None
        predicted = self.predicted - self.partly_shown_read
        p = self.matched / predicted if predicted else 1.0
        r = self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict:
        return {
            "photos": self.photos,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "exact": round(self.exact / self.photos, 4) if self.photos else None,
            "exact_photos": self.exact,
            "pieces_true": self.truth,
            "pieces_read": self.predicted,
            "seconds_per_photo": round(self.seconds / self.photos, 3) if self.photos else None,
            "pieces_sure": self.sure,
            "sure_precision": _rounded(self.sure_precision),
            "sure_share": _rounded(self.sure_share),
            "partly_shown_read": self.partly_shown_read,
            "f1_partly_shown_free": _rounded(self.f1_partly_shown_free),
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _check_kind(kind: str) -> None:
    if kind not in DOMAIN_OF_KIND:
        raise EvalDataError(f"unknown piece kind {kind!r}: use one of {', '.join(DOMAIN_OF_KIND)}")


def _default_recogniser(kind: str):
    from vision.api import get_recogniser

    return get_recogniser(kind)


def _read(recogniser, image: Path) -> tuple[list[str], float, list[str]]:
    """The labels read, the seconds it took, and the labels read flagged sure."""
    started = time.perf_counter()
    result = recogniser.recognise(image)
    seconds = time.perf_counter() - started
    pieces = result["pieces"]
    return [p["label"] for p in pieces], seconds, [p["label"] for p in pieces if p.get("sure")]


def _report(kind: str, data_dir: Path, groups: dict[str, Score], misses_of_all: bool) -> dict:
    return {
        "kind": kind,
        "data": str(data_dir),
        "groups": {k: v.as_dict() for k, v in groups.items() if v.photos},
        "not_exact": {
            k: v.misses
            for k, v in groups.items()
            if v.photos and (misses_of_all or k != "all") and not k.startswith(SOURCE_GROUP)
        },
    }


# ------------------------------------------------------------------------------ real photos


def real_photos(data_dir: Path, kind: str) -> list[RealPhoto]:
    """The labelled photos of ``kind`` in ``data_dir``; EvalDataError when there are none."""
    _check_kind(kind)
    data_dir = Path(data_dir)
    if not data_dir.is_dir():
        raise EvalDataError(f"{data_dir} is not a folder")
    domain = DOMAIN_OF_KIND[kind]
    photos = load_photos(data_dir, domain)
    if not photos:
        raise EvalDataError(
            f"{data_dir} has no {PIECE_NAMES[kind]} photos (NAME.jpg + NAME.json with domain "
            f"{domain!r}); for generated scenes add --synthetic"
        )
    if all(p.pieces is None for p in photos):
        raise EvalDataError(
            f"{data_dir} has {len(photos)} {PIECE_NAMES[kind]} photos but none is labelled"
        )
    return photos


def source_name(source: str) -> str:
    """A photo's source without owner, commit and path: "owner/repo@commit:path" -> "repo"."""
    return source.split("@", 1)[0].rsplit("/", 1)[-1] or "unknown"


def evaluate(data_dir: Path, kind: str, recogniser=None, progress: Progress | None = None) -> dict:
    """Scores by group (see module docstring) and the list of photos not read exactly."""
    photos = real_photos(data_dir, kind)
    if recogniser is None:
        recogniser = _default_recogniser(kind)
    _train, held = split_trainable(photos)
    held_names = {p.name for p in held}
    groups = {name: Score() for name in REAL_GROUPS}
    for photo in photos:
        if photo.pieces is None:
            continue
        predicted, seconds, sure = _read(recogniser, photo.image)
        truth = [label for label, _box in photo.pieces]
        if photo.scene == "crop":
            keys: tuple[str, ...] = ("crops",)
        elif photo.name in held_names:
            keys = ("all", "held_out")
        elif photo.trainable_source:
            keys = ("all", "trained_on")
        else:
            keys = ("all", "measurement_only")
        if photo.scene != "crop":
            keys = (*keys, SOURCE_GROUP + source_name(photo.source))
        for key in keys:
            groups.setdefault(key, Score()).add(photo.name, predicted, truth, seconds, sure)
        if progress:
            progress(photo.name, predicted, truth)
    return _report(kind, data_dir, groups, misses_of_all=False)


# ------------------------------------------------------------------------ generated scenes


@dataclass(frozen=True)
class SyntheticScene:
    name: str
    image: Path
    seed: int
    size: tuple[int, int]  # width, height
    pieces: tuple[tuple[str, tuple[float, ...]], ...]  # as stored: for cards, one per corner
    # The labels of the pieces shown only partly, as stored (None: the scene file has none).
    partly_shown: tuple[str, ...] | None = None


def synthetic_scenes(folder: Path, kind: str) -> list[SyntheticScene]:
    """The generated scenes in ``folder``, sorted by name; EvalDataError when there are none or
    their labels are not labels of ``kind``."""
    _check_kind(kind)
    folder = Path(folder)
    if not folder.is_dir():
        raise EvalDataError(f"{folder} is not a folder")
    scenes = []
    for meta_path in sorted(folder.glob("*.json")):
        image = meta_path.with_suffix(".jpg")
        if not image.is_file():
            continue
        try:
            meta = json.loads(meta_path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise EvalDataError(f"{meta_path}: not a readable scene label file ({error})") from None
        if not (isinstance(meta, dict) and {"seed", "size", "pieces"} <= meta.keys()):
            continue  # not a generated scene (a real photo's labels, a manifest)
        # A reader's hard negatives (boxes of no piece) are never truth.
        pieces = tuple(
            (str(label), tuple(box)) for label, box in meta["pieces"] if label != NOT_A_PIECE
        )
        wrong = [label for label, _box in pieces if not LABEL_SHAPES[kind].fullmatch(label)]
        if wrong:
            raise EvalDataError(
                f"{meta_path.name} in {folder} labels {wrong[0]!r}, which is not a "
                f"{PIECE_NAMES[kind]}: is this a folder of {kind}?"
            )
        width, height = meta["size"]
        partly = meta.get("partly_shown")
        partly_shown = None if partly is None else tuple(str(label) for label, _box in partly)
        scenes.append(
            SyntheticScene(
                meta_path.stem, image, int(meta["seed"]), (width, height), pieces, partly_shown
            )
        )
    if not scenes:
        raise EvalDataError(
            f"{folder} has no generated scenes (NAME.jpg + NAME.json with seed, size and pieces, "
            "as written by the training generator); for real photos leave out --synthetic"
        )
    return scenes


def card_truth(scene: SyntheticScene) -> list[str]:
    """The cards of a generated card scene with at least one labelled corner, each once."""
    return card_truth_and_partly_shown(scene)[0]


def card_truth_and_partly_shown(scene: SyntheticScene) -> tuple[list[str], list[str]]:
    """``card_truth``, and the cards with no labelled corner but one partly shown (20-90 %)."""
    rendered = rendered_card_scene(scene)
    truth = [card.label for card in rendered.cards if card.corners]
    partly = [
        card.label
        for card in (*rendered.cards, *rendered.partly_shown)
        if card.partial and not card.corners
    ]
    return truth, partly


def rendered_card_scene(scene: SyntheticScene):
    """The generated card scene re-rendered from its seed (``datasets.cards_synth.CardScene``).

    The scene file keeps its seed, not its look: each look is re-rendered until one gives the
    stored corners (look 1 first, the detector's scenes; then the reader's looks 2-5, look 5
    with hands in tight fans, then with half the decks printing the crossed Q; then look 6 with
    every index letter set, then with each set alone:
    the letters' widths move the indices, and with them which corners show whole; then look 6
    with every deck's face dark)."""
    from datasets.cards_synth import CROSSED_Q_LOOK, render_scene
    from meldcam.vocabulary import INDEX_LETTERS

    stored = Counter(label for label, _box in scene.pieces)
    every = tuple(INDEX_LETTERS)
    tries: list[dict] = [{"look": look} for look in (1, 2, 3, 4, 5)]
    tries += [{"look": 5, "tight_fans": True}, CROSSED_Q_LOOK]
    for dark_faces in (False, True):
        tries += [
            {"look": 6, "letter_sets": sets, "dark_faces": dark_faces}
            for sets in (every, *((s,) for s in every))
        ]
    for options in tries:
        rendered = render_scene(scene.seed, **options)
        height, width = rendered.image.shape[:2]
        corners = Counter(label for label, _box in rendered.corner_labels())
        if (width, height) == tuple(scene.size) and corners == stored:
            return rendered
    raise EvalDataError(
        f"{scene.name}: re-rendering seed {scene.seed} does not give the stored card scene "
        "(the card generator changed since, or this is not a card folder): "
        "generate the test set again"
    )


def synthetic_truth(scene: SyntheticScene, kind: str) -> tuple[list[str], list[str] | None]:
    """The scene's true labels, and those of the pieces it shows only partly (None: not
    known, a scene file written before they were stored)."""
    if kind == "cards":
        return card_truth_and_partly_shown(scene)
    partly = None if scene.partly_shown is None else list(scene.partly_shown)
    return [label for label, _box in scene.pieces], partly


def evaluate_synthetic(
    folder: Path, kind: str, recogniser=None, progress: Progress | None = None
) -> dict:
    """The scores on a folder of generated scenes: one group, "synthetic_test"."""
    scenes = synthetic_scenes(folder, kind)
    if recogniser is None:
        recogniser = _default_recogniser(kind)
    score = Score()
    for scene in scenes:
        truth, partly_shown = synthetic_truth(scene, kind)
        predicted, seconds, sure = _read(recogniser, scene.image)
        score.add(scene.name, predicted, truth, seconds, sure, partly_shown)
        if progress:
            progress(scene.name, predicted, truth)
    return _report(kind, folder, {SYNTHETIC_GROUP: score}, misses_of_all=True)


# ---------------------------------------------------------------------------------- output


def format_report(report: dict) -> str:
    lines = [f"{report['kind']} on {report['data']}"]
    header = (
        f"{'photos':<30}{'n':>4}{'precision':>11}{'recall':>8}{'F1':>8}{'exact':>8}{'s/photo':>9}"
        f"{'sure prec':>11}{'sure':>8}"
    )
    lines.append(header)
    for name, g in report["groups"].items():
        sure_precision = g.get("sure_precision")
        sure_share = g.get("sure_share")
        lines.append(
            f"{name:<30}{g['photos']:>4}{g['precision']:>11.3f}{g['recall']:>8.3f}"
            f"{g['f1']:>8.3f}{g['exact']:>8.1%}{g['seconds_per_photo']:>9.3f}"
            + (f"{sure_precision:>11.3f}" if sure_precision is not None else f"{'-':>11}")
            + (f"{sure_share:>8.1%}" if sure_share is not None else f"{'-':>8}")
        )
    for name, g in report["groups"].items():
        if g.get("f1_partly_shown_free") is not None and g.get("partly_shown_read"):
            lines.append(
                f"{name}: F1 {g['f1_partly_shown_free']:.3f} with the {g['partly_shown_read']} "
                "readings of partly shown pieces by their true labels counted neither way"
            )
    for name, misses in report["not_exact"].items():
        if misses:
            lines.append(f"not read exactly ({name}):")
            lines.extend(f"  {m}" for m in misses)
    return "\n".join(lines)


def to_json(report: dict) -> str:
    return json.dumps(report, indent=1)
