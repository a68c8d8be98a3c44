"""The tile-face classifier: a small CNN with two heads (value: 1-17, joker, none; colour).

Trained on crops cut around labelled boxes from full-resolution synthetic scenes and trainable
real photos, plus "none" crops (background, tile edges) so that a false detection can be dropped.
Augmentation: re-cropping (box jitter), quarter turns and small rotations (tiles lie at any
angle), sometimes a larger rotation (the angle estimate misses on crowded piles), perspective
(a slanted photo), a strip along one side covered (a neighbour, a finger, the photo's edge),
light, contrast, blur and noise; no hue shifts (colour is a label).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.crops import CROP_SIZE, STORE_MARGIN, STORE_SIZE, cut_crop
from vision.labels import CLASSIFIER_VALUES, TILE_COLOURS, split_tile_label
from vision.pipeline import greyscale

# The name of the training schedule and augmentation below; a new one gets a new name, so that
# no checkpoint of another is resumed.
RECIPE = "r2"


@dataclass(frozen=True)
class ReaderSpec:
    """What a crop reader learns: two heads, the first of which ends with a "none" class (not a
    piece: a detector's false positive), the second ignored (-1) for "none" and where the label
    has no such part (a joker's colour or suit)."""

    name: str  # prefix of the crop cache and checkpoints ("" for the number tiles)
    heads: tuple[tuple[str, int], tuple[str, int]]  # ONNX output names and class counts
    targets: Callable[[str], tuple[int, int]]  # label -> (first head, second head or -1)
    recipe: str = RECIPE
    crop_size: int = CROP_SIZE
    hue_shift: bool = False  # colour is not part of the label: shift hues, swap channels
    # This share of training views is turned grey (a greyscale photo): the label must then be
    # read from shapes alone (a card's suit, where red and black would otherwise decide).
    grey_share: float = 0.0
    # This share of training views is blurred harder than the usual augmentation (sigma 1.2-2.5
    # px of the crop): an out-of-focus photo, or a small index enlarged.
    strong_blur: float = 0.0
    # This share of training views is smeared along a random direction (3-15 px of the crop):
    # a hand that moved while the photo was taken.
    shaken: float = 0.0
    # A fine-tune: this recipe starts from ``base``'s trained reader and crops (``base`` trained
    # on the first ``base_looks`` reader looks), then trains on those crops and the later looks'
    # for ``finetune_epochs`` at a peak learning rate of ``finetune_lr``.
    base: str | None = None
    base_looks: int = 0
    finetune_epochs: int = 0
    finetune_lr: float = 1e-3
    # A third head, ``value_turn``: the first head's classes x the four quarter turns
    # (counter-clockwise) the piece shows in its crop, jointly (``training/turn_crops.py``).
    turns: bool = False
    # Pieces (not "none") sampled with weight n ** -balanced, n the crops of their label: a
    # label rare in the scenes (a domino of two high halves: most sets drawn are double-sixes)
    # is seen more often, the pieces' share of the batches unchanged. 0: as drawn.
    balanced: float = 0.0

    @property
    def output_names(self) -> list[str]:
        return [name for name, _classes in self.heads] + (["value_turn"] if self.turns else [])

    @property
    def none_index(self) -> int:
        return self.heads[0][1] - 1

    @property
    def store_size(self) -> int:
        return round(self.crop_size * STORE_SIZE / CROP_SIZE)

    def file(self, stem: str) -> str:
        return f"{self.name}_{stem}" if self.name else stem

    def crop_cache(self, work: Path, smoke: bool = False) -> Path:
        """Where this recipe's crops are kept (they differ by recipe)."""
        stem = "crops_smoke.npz" if smoke else "crops.npz"
        return work / "classifier" / self.file(f"{self.recipe}_{stem}")

    def base_spec(self) -> ReaderSpec | None:
        """The recipe this one fine-tunes, or None."""
        if self.base is None:
            return None
        return replace(self, recipe=self.base, base=None, base_looks=0, finetune_epochs=0)


# The number tiles' reader, recipe "r5" (the name keys its crop cache and checkpoints): the
# training schedule of ``RECIPE`` on the crops of the tile scene sets (tables, rotated-box
# scenes, and look-2 racks and named printings, one printing never drawn) and of the trainable
# real photos (``training.train --kind tiles``; models/tiles.md).
TILE_SPEC = ReaderSpec(
    "",
    (("value", len(CLASSIFIER_VALUES)), ("colour", len(TILE_COLOURS))),
    split_tile_label,
    recipe="r5",
)


def _box_iou_max(box, boxes) -> float:
    if not boxes:
        return 0.0
    b = np.array(boxes, np.float32)
    ix1, iy1 = np.maximum(b[:, 0], box[0]), np.maximum(b[:, 1], box[1])
    ix2, iy2 = np.minimum(b[:, 2], box[2]), np.minimum(b[:, 3], box[3])
    inter = np.clip(ix2 - ix1, 0, None) * np.clip(iy2 - iy1, 0, None)
    area = (box[2] - box[0]) * (box[3] - box[1])
    return float((inter / max(area, 1e-6)).max())


def collect_crops(
    items, rng: np.random.Generator, negatives_per_image: int = 2, spec: ReaderSpec = TILE_SPEC
):
    """Stored crops (N, STORE, STORE, 3) uint8, first- and second-head targets (-1 = none)."""
    crops, values, colours = [], [], []
    store = spec.store_size
    for image_path, pieces in items:
        img = cv2.imread(str(image_path))
        if img is None:
            continue
        boxes = []
        for label, box in pieces:
            if box is None:
                continue
            value, colour = spec.targets(label)
            crops.append(cut_crop(img, box, store, STORE_MARGIN))
            values.append(value)
            colours.append(colour)
            boxes.append(box)
        h, w = img.shape[:2]
        sizes = [((b[2] - b[0]), (b[3] - b[1])) for b in boxes] or [(0.08 * w, 0.1 * h)]
        for _ in range(negatives_per_image):
            bw, bh = sizes[int(rng.integers(0, len(sizes)))]
            bw, bh = bw * rng.uniform(0.6, 1.6), bh * rng.uniform(0.6, 1.6)
            for _attempt in range(10):
                x1, y1 = rng.uniform(0, max(1, w - bw)), rng.uniform(0, max(1, h - bh))
                box = (x1, y1, x1 + bw, y1 + bh)
                # Background, or straddling two tiles / a tile's edge: not one readable face.
                if _box_iou_max(box, boxes) < 0.45:
                    crops.append(cut_crop(img, box, store, STORE_MARGIN))
                    values.append(spec.none_index)
                    colours.append(-1)
                    break
    return np.stack(crops), np.array(values, np.int64), np.array(colours, np.int64)


def augment(
    crop: np.ndarray,
    rng: np.random.Generator,
    spec: ReaderSpec = TILE_SPEC,
    quarter: int | None = None,
) -> np.ndarray:
    """A training view of a stored crop, ``spec.crop_size`` square; ``quarter``: the quarter
    turns (counter-clockwise) it is turned by (default: drawn here)."""
    size, store = spec.crop_size, crop.shape[0]
    # Re-crop: the stored crop has margin STORE_MARGIN; pick a margin in [0, 0.14] with jitter.
    inner = store / (1 + 2 * STORE_MARGIN)  # box size in stored pixels
    margin = rng.uniform(-0.02, 0.14)
    side = inner * (1 + 2 * margin)
    sx, sy = side * rng.uniform(0.93, 1.07), side * rng.uniform(0.93, 1.07)
    cx = store / 2 + rng.normal(0, inner * 0.04)
    cy = store / 2 + rng.normal(0, inner * 0.04)
    # Crops come square to the tile (vision/crops.py): mostly upright or upside down, sometimes
    # a quarter off (near 45 degrees, or when the box's sides mislead).
    if quarter is None:
        quarter = draw_quarter(rng)
    angle = rng.normal(0, 3) + 90 * quarter
    if rng.random() < 0.15:  # the angle estimate can be off on crowded piles
        angle += rng.uniform(-14, 14)
    matrix = cv2.getRotationMatrix2D((cx, cy), angle, 1.0)
    matrix[0] *= size / sx
    matrix[1] *= size / sy
    matrix[0, 2] += size / 2 - cx * size / sx
    matrix[1, 2] += size / 2 - cy * size / sy
    out = cv2.warpAffine(
        crop,
        matrix,
        (size, size),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT,
    )
    if rng.random() < 0.25:  # perspective: a photo taken at a slant
        out = random_perspective(out, rng)
    if rng.random() < 0.2:  # partly covered by a neighbour's edge, a finger, the photo's edge
        out = occlude_edge(out, rng)
    if spec.hue_shift and rng.random() < 0.5:  # other sets' colours: pips, bodies, inks
        out = _shift_hue(out, rng)
    grey = bool(spec.grey_share) and rng.random() < spec.grey_share
    out = out.astype(np.float32)
    out = out * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30)
    mean = out.mean()
    out = (out - mean) * rng.uniform(0.7, 1.3) + mean
    out *= rng.uniform(0.92, 1.08, 3)  # mild white balance, never a hue change
    if rng.random() < 0.3:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 1.2))
    if spec.strong_blur and rng.random() < spec.strong_blur:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(1.2, 2.5))
    if spec.shaken and rng.random() < spec.shaken:
        out = smear(out, int(rng.integers(3, 16)), rng.uniform(0, 180))
    if rng.random() < 0.3:
        small = int(size * rng.uniform(0.4, 0.8))
        out = cv2.resize(cv2.resize(out, (small, small)), (size, size))
    out += rng.normal(0, rng.uniform(0, 8), out.shape)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if grey:  # last: a grey photo has no tint and no colour noise
        out = greyscale(out)
    return out


def smear(view: np.ndarray, length: int, angle: float) -> np.ndarray:
    """``view`` smeared over ``length`` px along ``angle`` degrees (motion blur)."""
    line = np.zeros((length, length), np.float32)
    line[length // 2, :] = 1.0
    centre = ((length - 1) / 2, (length - 1) / 2)
    kernel = cv2.warpAffine(line, cv2.getRotationMatrix2D(centre, angle, 1.0), (length, length))
    normalised: np.ndarray = kernel / max(float(kernel.sum()), 1e-6)  # float32, as kernel
    return cv2.filter2D(view, -1, normalised)


def draw_quarter(rng: np.random.Generator) -> int:
    return int(rng.choice(4, p=[0.4, 0.1, 0.4, 0.1]))


def _shift_hue(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Hues turned, channels swapped, sometimes the image inverted (dark tiles, light pips)."""
    hsv = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    hsv[..., 0] = (hsv[..., 0].astype(np.int32) + int(rng.integers(0, 180))) % 180
    out = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    out = out[..., rng.permutation(3)]
    if rng.random() < 0.15:
        out = 255 - out
    return np.ascontiguousarray(out)


def random_perspective(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The crop seen at a slant: each corner moved by up to 7 % of the side."""
    n = crop.shape[0]
    src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    dst = src + rng.uniform(-0.07, 0.07, (4, 2)).astype(np.float32) * n
    matrix = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(crop, matrix, (n, n), borderMode=cv2.BORDER_REFLECT)


def occlude_edge(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A strip along one side (up to 22 % of the crop) covered by a flat or noisy patch: the face
    stays readable, as the labels only mark tiles whose face is mostly visible."""
    out = crop.copy()
    n = out.shape[0]
    depth = int(n * rng.uniform(0.08, 0.22))
    side = int(rng.integers(0, 4))
    colour = rng.uniform(0, 255, 3)
    patch = np.clip(colour + rng.normal(0, rng.uniform(0, 20), (n, n, 3)), 0, 255).astype(np.uint8)
    if side == 0:
        out[:depth] = patch[:depth]
    elif side == 1:
        out[-depth:] = patch[-depth:]
    elif side == 2:
        out[:, :depth] = patch[:, :depth]
    else:
        out[:, -depth:] = patch[:, -depth:]
    return out


def build_net(spec: ReaderSpec = TILE_SPEC):
    import torch
    from torch import nn

    cells = spec.crop_size // 16  # 64 px -> 4 x 4 cells after the four halvings
    (_first, first_classes), (_second, second_classes) = spec.heads

    def block(cin, cout, stride=1, pool=True):
        layers = [
            nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        ]
        return nn.Sequential(*layers, nn.MaxPool2d(2)) if pool else nn.Sequential(*layers)

    class TileNet(nn.Module):
        def __init__(self):
            super().__init__()
            # 64 -> 32 (strided) -> 16 -> 8 -> 4: about 16 M multiply-adds per crop.
            self.features = nn.Sequential(
                block(3, 24, stride=2, pool=False), block(24, 32), block(32, 64), block(64, 96)
            )
            self.trunk = nn.Sequential(
                nn.Flatten(),
                nn.Dropout(0.2),
                nn.Linear(96 * cells * cells, 192),
                nn.ReLU(inplace=True),
            )
            self.value = nn.Linear(192, first_classes)
            self.colour = nn.Linear(192, second_classes)
            if spec.turns:  # value x turn, flattened value-major
                self.turn = nn.Linear(192, first_classes * 4)

        def forward(self, x):
            z = self.trunk(self.features(x))
            out = (torch.softmax(self.value(z), 1), torch.softmax(self.colour(z), 1))
            return (*out, torch.softmax(self.turn(z), 1)) if spec.turns else out

        def logits(self, x):
            z = self.trunk(self.features(x))
            out = (self.value(z), self.colour(z))
            return (*out, self.turn(z)) if spec.turns else out

    return TileNet()


def label_weights(values: np.ndarray, colours: np.ndarray, spec: ReaderSpec) -> np.ndarray:
    """Each crop's sampling weight for ``spec.balanced`` (ones when 0): pieces weighted by
    their label's count to the power ``-balanced``, scaled so that they keep their share."""
    weights = np.ones(len(values))
    pieces = values != spec.none_index
    if not spec.balanced or not pieces.any():
        return weights
    pairs = values[pieces] * (spec.heads[1][1] + 1) + colours[pieces] + 1
    _, inverse, counts = np.unique(pairs, return_inverse=True, return_counts=True)
    piece_weights = counts[inverse].astype(float) ** -spec.balanced
    weights[pieces] = piece_weights * pieces.sum() / piece_weights.sum()
    return weights


def _batches(n: int, batch: int, rng: np.random.Generator, weights: np.ndarray):
    order = rng.choice(n, size=n, replace=True, p=weights / weights.sum())
    for i in range(0, n, batch):
        yield order[i : i + batch]


def train_classifier(
    work: Path,
    epochs: int,
    seed: int,
    synth_items,
    real_items,
    smoke: bool = False,
    member: int = 0,
    spec: ReaderSpec = TILE_SPEC,
    init=None,
    base_crops: Path | None = None,
    max_lr: float = 3e-3,
    frozen_norms: bool = False,
    crops_from: str = "",
):
    """Train (or resume, or just load when finished) ensemble member ``member``; returns it.

    Members share the crops and differ in initialisation and augmentation order (seed + member).
    A fine-tune starts from the weights of ``init`` (a trained net) and adds the crops cached at
    ``base_crops`` to those it cuts from ``synth_items``; ``frozen_norms`` keeps its batch norms
    as they are (a net rebuilt from its ONNX file: ``training.recover.rebuild_reader``).
    ``crops_from`` says what the crops are cut from (scene sets and their sizes): crops cached
    from something else are cut again (``cached_crops``).
    """
    import torch
    from torch import nn

    torch.manual_seed(seed + member)
    torch.set_num_threads(2)
    rng = np.random.default_rng(seed)
    cache = spec.crop_cache(work, smoke)
    cache.parent.mkdir(parents=True, exist_ok=True)
    started = time.time()
    cached = cached_crops(cache, crops_from)
    if cached is not None:
        crops, values, colours, is_real = cached
    else:
        synth = collect_crops(synth_items(work, "train"), rng, spec=spec)
        real_list = real_items()
        parts = [synth]
        if real_list:
            parts.append(collect_crops(real_list, rng, negatives_per_image=4, spec=spec))
        crops = np.concatenate([p[0] for p in parts])
        values = np.concatenate([p[1] for p in parts])
        colours = np.concatenate([p[2] for p in parts])
        is_real = np.concatenate(
            [np.zeros(len(synth[0]), bool)]
            + ([np.ones(len(parts[1][0]), bool)] if len(parts) > 1 else [])
        )
        if base_crops is not None:
            base = np.load(base_crops)
            crops = np.concatenate([base["crops"], crops])
            values = np.concatenate([base["values"], values])
            colours = np.concatenate([base["colours"], colours])
            is_real = np.concatenate([base["is_real"], is_real])
            del base
        np.savez(
            cache, crops=crops, values=values, colours=colours, is_real=is_real, source=crops_from
        )
    print(
        f"classifier: {len(crops)} crops ({int(is_real.sum())} real) in "
        f"{time.time() - started:.0f} s"
    )
    # Real crops are few but they are the target domain: sample each 4x as often.
    weights = np.where(is_real, 4.0, 1.0) * label_weights(values, colours, spec)
    net = build_net(spec)
    if init is not None:
        net.load_state_dict(init.state_dict())
    optimiser = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    steps_per_epoch = max(1, len(crops) // 128 + (1 if len(crops) % 128 else 0))
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=max_lr, total_steps=epochs * steps_per_epoch, pct_start=0.15
    )
    # The recipe tag keeps checkpoints of an earlier recipe from being resumed by this one.
    name = spec.file(
        f"{spec.recipe}_last" + ("" if member == 0 else f"_{member}") + ("_smoke" if smoke else "")
    )
    checkpoint = work / "classifier" / f"{name}.pt"
    first_epoch = _resume(checkpoint, net, optimiser, scheduler)
    if first_epoch:
        print(f"classifier {member}: resuming after epoch {first_epoch}")
    value_loss = nn.CrossEntropyLoss(label_smoothing=0.05)
    colour_loss = nn.CrossEntropyLoss(ignore_index=-1, label_smoothing=0.05)
    for epoch in range(first_epoch, epochs):
        net.train()
        if frozen_norms:
            from training.recover import freeze_norms

            freeze_norms(net)
        t0, total, right, seen = time.time(), 0.0, 0, 0
        epoch_rng = np.random.default_rng((seed + member) * 1000 + epoch)
        for idx in _batches(len(crops), 128, epoch_rng, weights):
            x = _net_input([augment(crops[i], epoch_rng, spec) for i in idx])
            v = torch.from_numpy(values[idx])
            c = torch.from_numpy(colours[idx])
            v_logits, c_logits = net.logits(x)
            loss = value_loss(v_logits, v)
            if (c >= 0).any():
                loss = loss + colour_loss(c_logits, c)
            _step(loss, optimiser, scheduler)
            total += float(loss.detach()) * len(idx)
            right += int((v_logits.argmax(1) == v).sum())
            seen += len(idx)
        print(
            f"classifier: epoch {epoch + 1}/{epochs} loss {total / seen:.3f} "
            f"value acc {right / seen:.3f} ({time.time() - t0:.0f} s)"
        )
        _save(checkpoint, net, optimiser, scheduler, epoch)
    print(f"classifier {member}: trained ({time.time() - started:.0f} s)")
    return net


def _net_input(views: list[np.ndarray]):
    """Augmented BGR crops -> the net's input batch (N x 3 x S x S, RGB 0..1)."""
    import torch

    batch = np.stack(views)
    return torch.from_numpy(batch[..., ::-1].astype(np.float32).transpose(0, 3, 1, 2) / 255)


def _step(loss, optimiser, scheduler) -> None:
    optimiser.zero_grad()
    loss.backward()
    optimiser.step()
    scheduler.step()


def cached_crops(cache: Path, crops_from: str = "") -> tuple[np.ndarray, ...] | None:
    """(crops, values, colours, is_real) kept at ``cache``, or None where there are none or
    they were cut from something other than ``crops_from`` (a recipe changed under its tag;
    a cache that names no source is taken as it is)."""
    if not cache.exists():
        return None
    data = np.load(cache)
    source = str(data["source"]) if "source" in data.files else None
    if source is not None and source != crops_from:
        print(f"{cache.name}: cut from {source!r}, not {crops_from!r}: cutting again")
        return None
    return data["crops"], data["values"], data["colours"], data["is_real"]


def _resume(checkpoint: Path, net, optimiser, scheduler) -> int:
    """The epoch to start from: 0, or after the one saved at ``checkpoint`` (state restored).
    A checkpoint of another schedule (other epochs or crops, the recipe changed under its tag)
    is not resumed: its rate schedule would run past its end."""
    import torch

    if not checkpoint.exists():
        return 0
    state = torch.load(checkpoint, weights_only=False)
    planned = state["sched"].get("total_steps")
    if planned is not None and planned != scheduler.total_steps:
        print(
            f"{checkpoint.name}: planned {planned} steps, this run {scheduler.total_steps}: "
            "starting over"
        )
        return 0
    net.load_state_dict(state["net"])
    optimiser.load_state_dict(state["opt"])
    scheduler.load_state_dict(state["sched"])
    return int(state["epoch"]) + 1


def _save(checkpoint: Path, net, optimiser, scheduler, epoch: int) -> None:
    import torch

    state = {
        "net": net.state_dict(),
        "opt": optimiser.state_dict(),
        "sched": scheduler.state_dict(),
        "epoch": epoch,
    }
    torch.save(state, checkpoint)


RECIPE_KEY = "recipe"  # the ONNX metadata naming the reader's recipe ("c9"), for its fine-tunes


def export_classifier(nets: list, path: Path, spec: ReaderSpec = TILE_SPEC) -> None:
    """One ONNX file whose outputs are the members' averaged probabilities, its recipe's name in
    its metadata (``RECIPE_KEY``)."""
    import torch
    from torch import nn

    class Ensemble(nn.Module):
        def __init__(self, members):
            super().__init__()
            self.members = nn.ModuleList(members)

        def forward(self, x):
            outs = [m(x) for m in self.members]
            return tuple(torch.stack(heads).mean(0) for heads in zip(*outs, strict=True))

    model = Ensemble(nets) if len(nets) > 1 else nets[0]
    model.eval()
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        (torch.zeros(1, 3, spec.crop_size, spec.crop_size),),
        str(path),
        input_names=["crops"],
        output_names=spec.output_names,
        dynamic_axes={"crops": {0: "n"}, **{name: {0: "n"} for name in spec.output_names}},
        opset_version=17,
        dynamo=False,
    )
    stamp_recipe(path, spec.recipe)


def stamp_recipe(path: Path, recipe: str) -> None:
    """Write ``recipe`` into the ONNX file's metadata (``RECIPE_KEY``), the weights unchanged."""
    import onnx

    model = onnx.load(str(path))
    kept = [prop for prop in model.metadata_props if prop.key != RECIPE_KEY]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    model.metadata_props.add(key=RECIPE_KEY, value=recipe)
    onnx.save(model, str(path))


def reader_recipe(path: Path) -> str | None:
    """The recipe an exported reader names in its metadata; None for a file exported before
    readers were stamped."""
    import onnx

    model = onnx.load(str(path))
    return next((prop.value for prop in model.metadata_props if prop.key == RECIPE_KEY), None)


TILE_TURN_SPEC = replace(TILE_SPEC, recipe="r7", turns=True)  # r7: turn crops with pictogram jokers


def finetune_turns(
    work: Path,
    epochs: int,
    seed: int,
    init: Path,
    base_crops: Path,
    turn_crops: Path,
    spec: ReaderSpec = TILE_TURN_SPEC,
    max_lr: float = 1e-3,
    limit: int | None = None,
):
    """Fine-tune a two-head reader (checkpoint ``init``) into one with the ``value_turn`` head:
    on its own crops (``base_crops``, whose turn is unknown: that head learns nothing from them)
    and the ``turn_crops`` (``training/turn_crops.py``). Resumable; returns the net."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    torch.set_num_threads(2)
    base, turned = np.load(base_crops), np.load(turn_crops)
    crops = np.concatenate([base["crops"], turned["crops"]])
    values = np.concatenate([base["values"], turned["values"]])
    colours = np.concatenate([base["colours"], turned["colours"]])
    is_real = np.concatenate([base["is_real"], np.zeros(len(turned["crops"]), bool)])
    turns = np.concatenate([np.full(len(base["crops"]), -1, np.int64), turned["turns"]])
    del base, turned
    if limit is not None:  # a smoke run
        keep = np.random.default_rng(seed).choice(
            len(crops), size=min(limit, len(crops)), replace=False
        )
        crops, values, colours, is_real, turns = (
            a[keep] for a in (crops, values, colours, is_real, turns)
        )
    print(f"turn fine-tune: {len(crops)} crops, {int((turns >= 0).sum())} with their turn")
    weights = np.where(is_real, 4.0, 1.0)
    net = build_net(spec)
    state = torch.load(init, weights_only=False)
    missing, unexpected = net.load_state_dict(state.get("net", state), strict=False)
    assert not unexpected and all(k.startswith("turn.") for k in missing), (missing, unexpected)
    optimiser = torch.optim.AdamW(net.parameters(), lr=max_lr, weight_decay=1e-4)
    steps = max(1, -(-len(crops) // 128))
    scheduler = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=max_lr, total_steps=epochs * steps, pct_start=0.15
    )
    checkpoint = work / "classifier" / spec.file(f"{spec.recipe}_last.pt")
    first_epoch = 0 if limit is not None else _resume(checkpoint, net, optimiser, scheduler)
    if first_epoch:
        print(f"turn fine-tune: resuming after epoch {first_epoch}")
    smoothed = nn.CrossEntropyLoss(label_smoothing=0.05)
    ignoring = nn.CrossEntropyLoss(ignore_index=-1, label_smoothing=0.05)
    none = spec.none_index
    for epoch in range(first_epoch, epochs):
        net.train()
        t0, total, right, turn_right, turn_seen, seen = time.time(), 0.0, 0, 0, 0, 0
        rng = np.random.default_rng(seed * 1000 + epoch)
        for idx in _batches(len(crops), 128, rng, weights):
            quarters = [draw_quarter(rng) for _ in idx]
            x = _net_input(
                [augment(crops[i], rng, spec, q) for i, q in zip(idx, quarters, strict=True)]
            )
            v = torch.from_numpy(values[idx])
            c = torch.from_numpy(colours[idx])
            known = (turns[idx] >= 0) & (values[idx] != none)
            t = np.where(known, (turns[idx] + np.array(quarters)) % 4, 0)
            joint = torch.from_numpy(np.where(known, values[idx] * 4 + t, -1))
            v_logits, c_logits, j_logits = net.logits(x)
            loss = smoothed(v_logits, v)
            if (c >= 0).any():
                loss = loss + ignoring(c_logits, c)
            if known.any():
                loss = loss + ignoring(j_logits, joint)
                mask = torch.from_numpy(known)
                turn_right += int(((j_logits.argmax(1) % 4) == joint % 4)[mask].sum())
                turn_seen += int(known.sum())
            _step(loss, optimiser, scheduler)
            total += float(loss.detach()) * len(idx)
            right += int((v_logits.argmax(1) == v).sum())
            seen += len(idx)
        print(
            f"turn fine-tune: epoch {epoch + 1}/{epochs} loss {total / seen:.3f} value acc "
            f"{right / seen:.3f} turn acc {turn_right / max(1, turn_seen):.3f} "
            f"({time.time() - t0:.0f} s)"
        )
        if limit is None:
            _save(checkpoint, net, optimiser, scheduler, epoch)
    return net
