"""``meldcam eval DATA_DIR``: how well the recogniser reads labelled real photos.

Per photo, the predicted labels and the true labels are compared as multisets (positions are
not scored: what matters to a player is which pieces were read). Counts are summed over photos
(micro average): precision = matched / predicted, recall = matched / true. A photo is "read
exactly" when both multisets are equal. Photos with ``pieces: null`` (unlabelled) and tight
single-piece crops (``scene: "crop"``) are left out of whole-table scores.

Photos are reported in groups: all of them, the held-out quarter of the trainable source (never
trained on), the rest of the trainable source (trained on: optimistic), and measurement-only
sources (never trained on).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from datasets.realdata import DOMAIN_OF_KIND, load_photos, split_trainable


@dataclass
class Score:
    photos: int = 0
    exact: int = 0
    matched: int = 0
    predicted: int = 0
    truth: int = 0
    seconds: float = 0.0
    misses: list[str] = field(default_factory=list)

    def add(self, name: str, predicted: list[str], truth: list[str], seconds: float) -> None:
        p, t = Counter(predicted), Counter(truth)
        matched = sum((p & t).values())
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
    def f1(self) -> float:
        p, r = self.precision, self.recall
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
        }


def evaluate(data_dir: Path, kind: str, recogniser=None, progress=None) -> dict:
    """Scores by group (see module docstring) and the list of photos not read exactly."""
    if recogniser is None:
        from vision.api import get_recogniser

        recogniser = get_recogniser(kind)
    photos = load_photos(Path(data_dir), DOMAIN_OF_KIND[kind])
    _train, held = split_trainable(photos)
    held_names = {p.name for p in held}
    groups = {
        "all": Score(),
        "held_out": Score(),
        "trained_on": Score(),
        "measurement_only": Score(),
    }
    for photo in photos:
        if photo.pieces is None or photo.scene == "crop":
            continue
        started = time.perf_counter()
        result = recogniser.recognise(photo.image)
        seconds = time.perf_counter() - started
        predicted = [p["label"] for p in result["pieces"]]
        truth = [label for label, _box in photo.pieces]
        if photo.name in held_names:
            group = "held_out"
        elif photo.trainable_source:
            group = "trained_on"
        else:
            group = "measurement_only"
        for key in ("all", group):
            groups[key].add(photo.name, predicted, truth, seconds)
        if progress:
            progress(photo.name, predicted, truth)
    return {
        "kind": kind,
        "data": str(data_dir),
        "groups": {k: v.as_dict() for k, v in groups.items() if v.photos},
        "not_exact": {k: v.misses for k, v in groups.items() if v.photos and k != "all"},
    }


def format_report(report: dict) -> str:
    lines = [f"{report['kind']} on {report['data']}"]
    header = (
        f"{'photos':<18}{'n':>4}{'precision':>11}{'recall':>8}{'F1':>8}{'exact':>8}{'s/photo':>9}"
    )
    lines.append(header)
    for name, g in report["groups"].items():
        lines.append(
            f"{name:<18}{g['photos']:>4}{g['precision']:>11.3f}{g['recall']:>8.3f}"
            f"{g['f1']:>8.3f}{g['exact']:>8.1%}{g['seconds_per_photo']:>9.3f}"
        )
    for name, misses in report["not_exact"].items():
        if misses:
            lines.append(f"not read exactly ({name}):")
            lines.extend(f"  {m}" for m in misses)
    return "\n".join(lines)


def to_json(report: dict) -> str:
    return json.dumps(report, indent=1)
