"""The real labelled photos in ``../shared/realdata`` (never copied into the repository).

Only photos from ``conner-replogle/rummikub-detector`` (CC BY 4.0) may be trained on, and of
those a fixed quarter is held out: every 4th by sorted name (index % 4 == 3). Everything else
(Inc-G, other domains, unlabelled photos) is for measurement only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

TRAINABLE_SOURCES = ("conner-replogle/rummikub-detector",)
DOMAIN_OF_KIND = {"tiles": "rummikub", "dominoes": "domino", "cards": "card"}
REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class RealPhoto:
    name: str
    image: Path
    domain: str
    scene: str
    source: str
    pieces: tuple[tuple[str, tuple[float, float, float, float] | None], ...] | None

    @property
    def trainable_source(self) -> bool:
        return self.source.split("@", 1)[0] in TRAINABLE_SOURCES


def realdata_dir() -> Path | None:
    """Where the real photos are: $MELDCAM_REALDATA, /work/shared/realdata or ../shared."""
    candidates = [os.environ.get("MELDCAM_REALDATA", "")]
    candidates += ["/work/shared/realdata", str(REPO_ROOT.parent / "shared" / "realdata")]
    for candidate in candidates:
        if candidate and (Path(candidate) / "dev").is_dir():
            return Path(candidate) / "dev"
        if candidate and Path(candidate).is_dir() and any(Path(candidate).glob("*.json")):
            return Path(candidate)
    return None


def load_photos(data_dir: Path, domain: str | None = None) -> list[RealPhoto]:
    """All photos with a JSON label file in ``data_dir``, sorted by name."""
    photos = []
    for label_path in sorted(Path(data_dir).glob("*.json")):
        if label_path.name == "manifest.json":
            continue
        meta = json.loads(label_path.read_text())
        if domain is not None and meta.get("domain") != domain:
            continue
        image = label_path.with_suffix(".jpg")
        if not image.exists():
            matches = [p for p in label_path.parent.glob(label_path.stem + ".*") if p != label_path]
            if not matches:
                continue
            image = matches[0]
        pieces = meta.get("pieces")
        parsed = None
        if pieces is not None:
            parsed = tuple(
                (p["label"], tuple(p["bbox"]) if p.get("bbox") is not None else None)
                for p in pieces
            )
        photos.append(
            RealPhoto(
                name=label_path.stem,
                image=image,
                domain=meta.get("domain", ""),
                scene=meta.get("scene", "table"),
                source=meta.get("source", ""),
                pieces=parsed,
            )
        )
    return photos


def split_trainable(photos: list[RealPhoto]) -> tuple[list[RealPhoto], list[RealPhoto]]:
    """(train, held_out) among the labelled photos of trainable sources: every 4th held out."""
    usable = sorted(
        (p for p in photos if p.trainable_source and p.pieces is not None), key=lambda p: p.name
    )
    train = [p for i, p in enumerate(usable) if i % 4 != 3]
    held = [p for i, p in enumerate(usable) if i % 4 == 3]
    return train, held


# Labels in the trainable source that are plainly wrong, corrected for TRAINING only (scoring
# always uses the labels as given): photo name -> (label as given, rule, corrected label).
# rk_rbf_rummy-2: the bottom row of a full colour layout (black 1-13) is labelled blue 1-13,
# so blue 1-13 appears twice and black not at all.
TRAINING_LABEL_FIXES: dict[str, str] = {"rk_rbf_rummy-2": "bottom_blue_row_is_black"}


def training_pieces(photo: RealPhoto) -> list[tuple[str, tuple[float, float, float, float]]]:
    """The photo's boxed pieces with known label errors corrected (see TRAINING_LABEL_FIXES)."""
    pieces = [(label, box) for label, box in (photo.pieces or ()) if box is not None]
    if TRAINING_LABEL_FIXES.get(photo.name) == "bottom_blue_row_is_black":
        blue_rows = sorted({round(box[1], -1) for label, box in pieces if label.startswith("blue")})
        bottom = max(box[1] for label, box in pieces if label.startswith("blue"))
        if len(blue_rows) > 1:
            pieces = [
                (
                    label.replace("blue", "black")
                    if label.startswith("blue") and box[1] > bottom - 0.5 * (box[3] - box[1])
                    else label,
                    box,
                )
                for label, box in pieces
            ]
    return pieces
