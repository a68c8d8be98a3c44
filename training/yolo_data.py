"""A detector round's YOLO data set: its scene sets' images linked under ``work/yolo_<round>``
with one-class labels, axis-aligned boxes or rotated boxes (YOLO-OBB), and its ``data.yaml``.

Training images are ``<set>_<scene>`` (a set weighted up is linked that many times in all,
``<set>_copy<k>_<scene>``; a trainable real photo ``real_<photo>_<k>``), validation images
``<set>_<scene>``. A rotated box comes from the corners stored with the scene or, for a scene
stored without them, from the scene rendered again from its seed (checked to show the stored
pieces); a real tile's from its box and edges (``real_quad``).
"""

from __future__ import annotations

import json
import multiprocessing
import time
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from training.machine import current
from training.readers import NOT_A_PIECE
from training.recipes import SceneSet
from training.scenes import Item, scene_renderer
from vision.imageio import shown_size

MAX_COPIES = 9


def write_data_yaml(root: Path, class_name: str) -> Path:
    """The ultralytics data file of a one-class set under ``root`` (images/ and labels/)."""
    data_yaml = root / "data.yaml"
    data_yaml.write_text(
        f"path: {root.resolve()}\ntrain: images/train\nval: images/val\nnames:\n  0: {class_name}\n"
    )
    return data_yaml


def box_lines(pieces, w: int, h: int) -> list[str]:
    """YOLO label lines (class 0, centre and size normalised) of the pieces' boxes clipped to
    the ``w`` x ``h`` photo; a reader's hard negative ("none", no box) and a sliver left out."""
    lines = []
    for label, (x1, y1, x2, y2) in pieces:
        if label == NOT_A_PIECE:  # a reader's hard negative (a card scene's decoys), no box
            continue
        x1, x2 = max(0.0, x1), min(float(w), x2)
        y1, y2 = max(0.0, y1), min(float(h), y2)
        if x2 - x1 < 2 or y2 - y1 < 2:
            continue
        cx, cy = (x1 + x2) / 2 / w, (y1 + y2) / 2 / h
        lines.append(f"0 {cx:.6f} {cy:.6f} {(x2 - x1) / w:.6f} {(y2 - y1) / h:.6f}")
    return lines


def obb_line(quad, w: int, h: int) -> str | None:
    """A YOLO-OBB label line (class 0, four corners normalised) for the part of ``quad`` inside
    the ``w`` x ``h`` photo: the smallest rotated rectangle around that part."""
    pts = np.asarray(quad, np.float32).reshape(4, 2)
    if cv2.contourArea(pts, oriented=True) < 0:
        pts = pts[::-1].copy()
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    area, inside = cv2.intersectConvexConvex(pts, frame)
    if inside is None or area < 16:
        return None
    corners = cv2.boxPoints(cv2.minAreaRect(inside.reshape(-1, 2)))
    corners = np.clip(corners / [w, h], 0.0, 1.0)
    return "0 " + " ".join(f"{v:.6f}" for v in corners.ravel())


def real_quad(image: np.ndarray, box) -> np.ndarray:
    """A real tile's corners from its labelled axis-aligned box: the tile's angle estimated
    from the edges around the box (``tile_angle``), its sides from the box (``face_size``)."""
    from vision.crops import face_size, tile_angle

    x1, y1, x2, y2 = (float(v) for v in box)
    theta = tile_angle(image, box)
    fw, fh = face_size(x2 - x1, y2 - y1, theta)
    return cv2.boxPoints((((x1 + x2) / 2, (y1 + y2) / 2), (fw, fh), theta))


def _link(link: Path, target: Path) -> None:
    if not link.is_symlink():
        link.symlink_to(target.resolve())


def _label_job(job: tuple[str, str, str, bool]) -> int:
    """Write one scene's label file (skipped when written); its boxes."""
    meta_path, renderer, label_path, rotated = job
    label = Path(label_path)
    if label.exists():
        return 0
    meta = json.loads(Path(meta_path).read_text())
    w, h = meta["size"]
    if rotated:
        quads = meta.get("quads")
        if quads is None:
            quads = rendered_quads(meta, renderer, meta_path)
        lines = [line for quad in quads if (line := obb_line(quad, w, h))]
    else:
        lines = box_lines(meta["pieces"], w, h)
    label.write_text("".join(x + "\n" for x in lines))
    return len(lines)


def rendered_quads(meta: dict, renderer: str, where: str) -> list:
    """The pieces' corners of a scene stored without them: its renderer's again, from its
    seed, which must give the stored pieces."""
    _image, labels, quads, *_ = scene_renderer(renderer)(meta["seed"])
    stored = [(label, [round(v, 3) for v in box]) for label, box in meta["pieces"]]
    rendered = [(label, [round(v, 3) for v in box]) for label, box in labels]
    if stored != rendered:
        raise RuntimeError(f"{where}: rendering seed {meta['seed']} again gives other pieces")
    return quads


def build_dataset(
    work: Path,
    name: str,
    train: Sequence[tuple[SceneSet, int]],
    val: Sequence[SceneSet],
    class_name: str,
    rotated: bool = False,
    real: Sequence[Item] = (),
    real_copies: int = 0,
    procs: int | None = None,
) -> Path:
    """``work/name``: the training scenes of ``train`` ((set, copies in all), ...), the
    validation scenes of ``val``, and ``real`` photos ``real_copies`` times each; its
    ``data.yaml``."""
    if max((copies for _s, copies in train), default=1) > MAX_COPIES:
        raise ValueError(f"at most {MAX_COPIES} copies of a scene set: {train}")
    root = work / name
    for sub in ("images", "labels"):
        for split in ("train", "val"):
            (root / sub / split).mkdir(parents=True, exist_ok=True)
    jobs = []
    copies_of: list[tuple[Path, Path, list[Path]]] = []
    for split, sets in (("train", train), ("val", [(s, 1) for s in val])):
        for scene_set, copies in sets:
            for meta_path in sorted((work / scene_set.folder / split).glob("*.json")):
                stem = f"{scene_set.folder}_{meta_path.stem}"
                image = root / "images" / split / f"{stem}.jpg"
                label = root / "labels" / split / f"{stem}.txt"
                _link(image, meta_path.with_suffix(".jpg"))
                jobs.append((str(meta_path), scene_set.renderer, str(label), rotated))
                extra = [
                    root / "images" / split / f"{scene_set.folder}_copy{k}_{meta_path.stem}"
                    for k in range(1, copies)
                ]
                copies_of.append((image, label, extra))
    started = time.time()
    render_again = rotated and any(
        "quads" not in json.loads(Path(meta).read_text())
        for meta, _r, label, _rot in jobs
        if not Path(label).exists()
    )
    if render_again:  # scenes stored without their corners: rendered again, in processes
        with multiprocessing.get_context("spawn").Pool(procs or current().procs) as pool:
            boxes = sum(pool.imap_unordered(_label_job, jobs, chunksize=8))
    else:
        boxes = sum(map(_label_job, jobs))
    for image, label, extra in copies_of:  # a set weighted up: its scenes linked again
        for copy in extra:
            _link(copy.with_suffix(".jpg"), image)
            _link(label.parent / f"{copy.name}.txt", label)
    for photo, pieces in real:
        w, h = shown_size(photo)
        if rotated:
            bgr = cv2.imread(str(photo))
            if bgr is None:
                raise ValueError(f"{photo}: not an image")
            quads = [real_quad(bgr, box) for _label, box in pieces]
            lines = [line for q in quads if (line := obb_line(q, w, h))]
        else:
            lines = box_lines(pieces, w, h)
        for k in range(real_copies):
            stem = f"real_{photo.stem}_{k}"
            _link(root / "images" / "train" / f"{stem}.jpg", photo)
            (root / "labels" / "train" / f"{stem}.txt").write_text("".join(x + "\n" for x in lines))
    print(f"{name}: {len(jobs)} scenes, {boxes} new boxes ({time.time() - started:.0f} s)")
    return write_data_yaml(root, class_name)
