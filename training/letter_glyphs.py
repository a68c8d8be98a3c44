"""The letter glyph reader: which letter a card's corner index prints (J Q K A, W D B V R), or
none (a number, a joker, no index), so that a photo's deck letters can be told from the photo
(``vision.cards.guess_letter_set``) when the game does not name them.

The card readers say which card an index is, not which letter it printed: a Polish W and an
English J both read as a jack, and the two readers' readings of one photo differ too little to
tell the deck (docs/experiments/cards.md, "Index letters"). This small CNN (the readers' net,
its first head the glyphs, its second the suit) learns the printed letter itself, on crops cut
at the true corner boxes of look-6 scenes (``datasets.cards_synth``: look 5 with one language's
letters a scene, a fifth of the decks dark), every letter set, French included: it only says
which deck it sees; the letters reader that reads the cards still never saw French (its
leave-one-out).

``python -m training.letter_glyphs --out models [--scenes 300] [--epochs 8]`` renders the
scenes (seed ``SEED`` + the set's place x 100,000; kept in ``datasets/generated/cards_glyphs``),
cuts the crops at the true index boxes, trains and writes ``card_letter_glyphs.onnx`` (recipe
"g1"); checkpoints each epoch (a run resumes).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from meldcam.vocabulary import INDEX_LETTERS
from training.classifier import (
    ReaderSpec,
    _net_input,
    _resume,
    _save,
    augment,
    build_net,
    export_classifier,
)
from training.offline import GENERATED
from vision.cards import GLYPH_READER, GLYPHS
from vision.crops import STORE_MARGIN, cut_crop
from vision.labels import CARD_JOKER, CARD_SUITS, split_card_label

SEED = 20261401
RECIPE = "g1"
LETTERED = ("J", "Q", "K", "A")  # the ranks whose index is a letter


def glyph_of(label: str, letter_set: str) -> int:
    """The glyph class a corner labelled ``label`` of a deck printing ``letter_set`` shows."""
    rank = label[:-1]
    if label != CARD_JOKER and rank in LETTERED:
        return GLYPHS.index(INDEX_LETTERS[letter_set][rank])
    return GLYPHS.index("none")


def _targets(_label: str) -> tuple[int, int]:  # the spec's; crops are labelled here instead
    raise NotImplementedError


SPEC = ReaderSpec(
    name="glyphs",
    heads=(("glyph", len(GLYPHS)), ("suit", len(CARD_SUITS))),
    targets=_targets,
    recipe=RECIPE,
    crop_size=64,
)


def scene_crops(seed: int, letter_set: str, rng: np.random.Generator):
    """Stored crops of one rendered look-6 scene whose decks print ``letter_set``, their glyph
    and suit targets: every lettered corner, about half the numbered ones, two background
    boxes."""
    from datasets.cards_synth import render_scene

    scene = render_scene(seed, look=6, letter_sets=(letter_set,))
    image = scene.image
    crops, glyphs, suits = [], [], []
    boxes = []

    def add(box, glyph: int, suit: int) -> None:
        crops.append(cut_crop(image, box, SPEC.store_size, STORE_MARGIN))
        glyphs.append(glyph)
        suits.append(suit)

    none = GLYPHS.index("none")
    for label, box in scene.corner_labels():
        boxes.append(box)
        glyph = glyph_of(label, letter_set)
        suit = -1 if label == CARD_JOKER else split_card_label(label)[1]
        if glyph == none and rng.random() < 0.5:
            continue
        add(box, glyph, suit)
    h, w = image.shape[:2]
    for _ in range(2 if boxes else 0):  # background the size of an index
        x1, y1, x2, y2 = boxes[int(rng.integers(0, len(boxes)))]
        bw, bh = x2 - x1, y2 - y1
        x, y = rng.uniform(0, max(1, w - bw)), rng.uniform(0, max(1, h - bh))
        add((x, y, x + bw, y + bh), none, -1)
    return crops, glyphs, suits


def _set_crops(args: tuple[str, int, int, Path]) -> Path:
    letter_set, place, scenes, folder = args
    path = folder / f"{letter_set}_{scenes}.npz"
    if path.exists():
        return path
    rng = np.random.default_rng(SEED + place)
    crops, glyphs, suits = [], [], []
    for i in range(scenes):
        c, g, s = scene_crops(SEED + place * 100_000 + i, letter_set, rng)
        crops += c
        glyphs += g
        suits += s
    folder.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, crops=np.stack(crops), glyphs=np.array(glyphs), suits=np.array(suits))
    return path


def collect(scenes: int, folder: Path, processes: int = 2):
    """Every letter set's crops (rendered in ``processes`` processes, cached per set)."""
    from multiprocessing import Pool

    jobs = [(s, place, scenes, folder) for place, s in enumerate(INDEX_LETTERS)]
    with Pool(processes) as pool:
        paths = pool.map(_set_crops, jobs)
    parts = [np.load(p) for p in paths]
    return (
        np.concatenate([p["crops"] for p in parts]),
        np.concatenate([p["glyphs"] for p in parts]),
        np.concatenate([p["suits"] for p in parts]),
    )


def train(crops, glyphs, suits, epochs: int, checkpoint: Path, batch: int = 128):
    import torch
    from torch import nn

    torch.manual_seed(SEED)
    torch.set_num_threads(2)
    rng = np.random.default_rng(SEED)
    net = build_net(SPEC)
    optimiser = torch.optim.AdamW(net.parameters(), lr=2e-3, weight_decay=1e-4)
    steps = epochs * ((len(crops) + batch - 1) // batch)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=2e-3, total_steps=steps)
    start = _resume(checkpoint, net, optimiser, scheduler)
    # Lettered glyphs are a third of the crops: weight the classes evenly.
    counts = np.bincount(glyphs, minlength=len(GLYPHS)).astype(np.float32)
    weights = torch.tensor(counts.sum() / np.maximum(counts, 1) / len(GLYPHS))
    glyph_loss = nn.CrossEntropyLoss(weight=weights)
    suit_loss = nn.CrossEntropyLoss(ignore_index=-1)
    for epoch in range(start, epochs):
        net.train()
        order = rng.permutation(len(crops))
        total, started = 0.0, time.time()
        for i in range(0, len(order), batch):
            idx = order[i : i + batch]
            g_logits, s_logits = net.logits(_net_input([augment(crops[j], rng, SPEC) for j in idx]))
            loss = glyph_loss(g_logits, torch.from_numpy(glyphs[idx]))
            loss = loss + 0.3 * suit_loss(s_logits, torch.from_numpy(suits[idx]))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            scheduler.step()
            total += float(loss.detach()) * len(idx)
        seconds = time.time() - started
        print(f"epoch {epoch + 1}/{epochs}: loss {total / len(order):.4f} ({seconds:.0f} s)")
        _save(checkpoint, net, optimiser, scheduler, epoch)
    net.eval()
    return net


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="where the ONNX file is written")
    parser.add_argument("--scenes", type=int, default=300, help="rendered scenes per letter set")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--work", type=Path, default=GENERATED / "cards_glyphs")
    args = parser.parse_args(argv)
    started = time.time()
    crops, glyphs, suits = collect(args.scenes, args.work)
    counts = np.bincount(glyphs, minlength=len(GLYPHS))
    each = ", ".join(f"{glyph} {n}" for glyph, n in zip(GLYPHS, counts, strict=True))
    seconds = time.time() - started
    print(f"{len(crops)} crops from {args.scenes} scenes a set ({each}; {seconds:.0f} s)")
    checkpoint = args.work / f"{RECIPE}_{args.scenes}_{args.epochs}_last.pt"
    net = train(crops, glyphs, suits, args.epochs, checkpoint)
    export_classifier([net], args.out / GLYPH_READER, spec=SPEC)
    print(f"glyphs: {args.out / GLYPH_READER} ({time.time() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
