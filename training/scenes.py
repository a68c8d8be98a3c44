"""The scene sets' renderers, by name, and the generation of a set into ``work/<folder>``.

A recipe's scene set names its renderer (``SceneSet.renderer``): a key of ``RENDERERS``, or
"module:function" for one elsewhere (``training.leave_one_out``), either with "@ARG" for
``function(seed, ARG)``. A renderer turns a seed into (BGR image, [(label, box), ...]) and, for
rotated-box sets, each piece's corners; the domino renderers also the pieces partly shown
(for ``meldcam eval``). Generation stores each scene as ``NNNNN.jpg`` + ``NNNNN.json`` (seed,
size, pieces, and corners where rendered): scene ``i`` of a set made from seed ``s`` is
rendered from ``s * 1_000_003 + i`` (validation scenes from ``+ 10_000_000``), so any one can be
rendered again.
"""

from __future__ import annotations

import functools
import importlib
import json
import multiprocessing
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

from training.machine import current

Render = Callable[..., tuple]


# ------------------------------------------------------------------------------- tiles


def _tiles(seed: int):
    from datasets.tiles_synth import render_scene

    return render_scene(seed)


def _tiles_quads(seed: int):
    """Tile scenes stored with each tile's corners (the rotated-box round's)."""
    from datasets.tiles_synth import render_scene_with_quads

    return render_scene_with_quads(seed)


def _tiles_look2(seed: int, left_out: str = ""):
    """Look 2: tiles in racks and on tables of one set each, one printing (``left_out``, by
    default the shipped one) and one rack style never drawn."""
    from datasets.tiles_racks import render_training_scene

    return render_training_scene(seed, left_out) if left_out else render_training_scene(seed)


def _tiles_heldout_printing(seed: int, left_out: str = ""):
    """Look 2 of the printing training never draws only."""
    from datasets.tiles_racks import render_held_out_printing_scene

    if left_out:
        return render_held_out_printing_scene(seed, left_out)
    return render_held_out_printing_scene(seed)


def _tiles_heldout_rack(seed: int):
    """Look 2 of the rack style training never draws only."""
    from datasets.tiles_racks import render_held_out_rack_scene

    return render_held_out_rack_scene(seed)


# ------------------------------------------------------------------------------- dominoes


def domino_store(scene) -> tuple:
    """(BGR image, [(label, box), ...], each face-up domino's corners, [(label, box), ...] of
    the partly shown ones): the corners kept for the rotated-box labels, the partly shown
    dominoes for ``meldcam eval``, which counts a reading of one by its true label neither
    right nor wrong."""
    partly_shown = [(label, list(box)) for label, box in scene.partial]
    return scene.image, scene.labels(), domino_quads(scene), partly_shown


def domino_quads(scene) -> list[list[list[float]]]:
    """Each face-up domino's four corners in photo pixels, around its face (both halves'
    outer corners)."""
    quads = []
    for domino in scene.dominoes:
        first, second = domino.halves
        corners = [first.quad[0], first.quad[1], second.quad[0], second.quad[1]]
        quads.append([[float(x), float(y)] for x, y in corners])
    return quads


def _dominoes(look: int) -> Render:
    """Domino scenes of ``look`` (``datasets.dominoes_synth.render_scene_detailed``): 1 the
    first; 2 larger dominoes, close-ups, thick bodies at a slant; 3 photos from low down and
    dark textured surfaces; 4 busy coverings, side-by-side close-ups, shrink-wrap, greyscale;
    5 large pips on double-nine and double-twelve printings; 6 graded pips."""

    def render(seed: int):
        from datasets.dominoes_synth import render_scene_detailed

        return domino_store(render_scene_detailed(seed, look=look))

    return render


# ------------------------------------------------------------------------------- cards


def _cards(seed: int, *, decoys: bool = False, inverted: bool = False, **options: Any):
    """A card scene (``datasets.cards_synth.render_scene(seed, **options)``) as (BGR image,
    [(card label, corner-index box), ...]); with ``decoys`` its decoy boxes (stacked pips,
    lone pips by an edge, a felt's index-like glyphs) labelled "not a card", for a reader only
    (a detector would learn them as indices); ``inverted``: the photo's lightness inverted as
    the recogniser inverts a dark deck's photo."""
    from datasets.cards_synth import render_scene
    from training.readers import NOT_A_PIECE

    scene = render_scene(seed, **options)
    image = scene.image
    if inverted:
        from vision.pipeline import invert_lightness

        image = invert_lightness(image)
    none = [(NOT_A_PIECE, list(b)) for b in scene.decoys] if decoys else []
    return image, scene.corner_labels() + none


def _card_look(look: int, **options: Any) -> Render:
    """Card scenes of ``look``: 1 the first; 2 more index fonts, jittered lettering; 3 half the
    decks a flat-topped 3; 4 pips near the indices, busy court art, fine backs; 5 real decks'
    backs and face-down hands; 6 other languages' index letters and dark faces."""
    return functools.partial(_cards, look=look, **options)


def _crossed_q(seed: int, **options: Any):
    """Look 5, half the decks printing the Q as English-pattern decks do."""
    from datasets.cards_synth import CROSSED_Q_LOOK

    return _cards(seed, **CROSSED_Q_LOOK, **options)


def _cards_felt(seed: int, decoys: str = ""):
    """The crossed-Q scenes (the same cards) on a printed casino felt; with "@decoys" the
    felt's index-like glyphs, stacked pips and lone pips boxed as no card."""
    return _crossed_q(seed, pip_decoys=bool(decoys), printed_felt=True, decoys=bool(decoys))


def _cards_bare_felt(seed: int):
    """A printed casino felt with no card on it: a photo that must read as nothing."""
    from datasets.cards_synth import render_bare_felt

    return render_bare_felt(seed), []


def _cards_inverted(seed: int, felt: str = ""):
    """Look 6's English, Polish or German decks, every one dark, the photo read inverted, with
    stacked and lone pips (and with "@felt" a printed felt's glyphs) boxed as no card."""
    return _cards(
        seed,
        look=6,
        letter_sets=("en", "pl", "de"),
        dark_faces=True,
        pip_decoys=True,
        printed_felt=bool(felt),
        decoys=True,
        inverted=True,
    )


def _cards_letters(seed: int, letter_sets: str = "", dark_faces: bool = False):
    """Look 6; "@pl,de" limits the languages drawn (default: every set of ``INDEX_LETTERS``)."""
    from meldcam.vocabulary import INDEX_LETTERS

    sets = tuple(letter_sets.split(",")) if letter_sets else tuple(INDEX_LETTERS)
    unknown = set(sets) - set(INDEX_LETTERS)
    if unknown:
        raise ValueError(f"unknown index letter sets: {', '.join(sorted(unknown))}")
    return _cards(seed, look=6, letter_sets=sets, dark_faces=dark_faces)


def _cards_dark(seed: int, letter_sets: str = ""):
    """``cards_letters`` with every deck's face dark (``benchmarks.cards_letters --dark``)."""
    return _cards_letters(seed, letter_sets, dark_faces=True)


RENDERERS: dict[str, Render] = {
    "tiles": _tiles,
    "tiles_quads": _tiles_quads,
    "tiles_look2": _tiles_look2,
    "tiles_heldout_printing": _tiles_heldout_printing,
    "tiles_heldout_rack": _tiles_heldout_rack,
    **{f"dominoes_look{look}": _dominoes(look) for look in range(1, 7)},
    **{
        f"cards{suffix}": _card_look(look)
        for look, suffix in ((1, ""), (2, "_fonts"), (3, "_glyphs"), (4, "_real"), (5, "_backs"))
    },
    "cards_fans": _card_look(5, tight_fans=True),
    "cards_crossed_q": _crossed_q,
    "cards_decoys": functools.partial(_crossed_q, pip_decoys=True, decoys=True),
    "cards_felt": _cards_felt,
    "cards_bare_felt": _cards_bare_felt,
    "cards_inverted": _cards_inverted,
    "cards_letters": _cards_letters,
    "cards_dark": _cards_dark,
}


def renderer_known(name: str) -> bool:
    """Whether ``name`` (without its "@ARG") is a key of ``RENDERERS``."""
    return name.partition("@")[0] in RENDERERS


def scene_renderer(name: str) -> Render:
    """The renderer ``name``: a key of ``RENDERERS`` or "module:function", with "@ARG" for
    ``function(seed, ARG)``."""
    name, _, argument = name.partition("@")
    if name in RENDERERS:
        render = RENDERERS[name]
    else:
        module, sep, function = name.partition(":")
        if not sep:
            raise KeyError(f"no scene renderer {name!r}: one of {', '.join(RENDERERS)}")
        render = getattr(importlib.import_module(module), function)
    return functools.partial(_call_with, render, argument) if argument else render


def _call_with(render: Render, argument: str, seed: int):
    return render(seed, argument)


# ------------------------------------------------------------------------------- generation


def _render_one(job: tuple[int, str, str]) -> int:
    seed, stem, renderer = job
    image_path = Path(stem + ".jpg")
    if image_path.exists() and Path(stem + ".json").exists():
        return 0
    img, labels, *extra = scene_renderer(renderer)(seed)
    cv2.imwrite(str(image_path), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
    meta = {"seed": seed, "size": [img.shape[1], img.shape[0]], "pieces": labels}
    if extra:  # a rotated-box renderer: each piece's corners too
        meta["quads"] = extra[0]
    if len(extra) > 1:  # ... and the pieces partly shown (label, box), for ``meldcam eval``
        meta["partly_shown"] = extra[1]
    Path(stem + ".json").write_text(json.dumps(meta))
    return len(labels)


def generate(
    work: Path,
    n_train: int,
    n_val: int,
    seed: int,
    procs: int | None = None,
    name: str = "synth",
    renderer: str = "tiles",
    quiet: bool = False,
) -> None:
    """``n_train`` training and ``n_val`` validation scenes of ``renderer`` from ``seed`` into
    ``work/name/{train,val}``; scenes already there are kept."""
    jobs = []
    for split, count, offset in (("train", n_train, 0), ("val", n_val, 10_000_000)):
        folder = work / name / split
        folder.mkdir(parents=True, exist_ok=True)
        jobs += [
            (seed * 1_000_003 + offset + i, str(folder / f"{i:05d}"), renderer)
            for i in range(count)
        ]
    start = time.time()
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(procs or current().procs) as pool:
        pieces = sum(pool.imap_unordered(_render_one, jobs, chunksize=8))
    if not quiet:
        print(f"generate: {len(jobs)} scenes ({pieces} new pieces) in {time.time() - start:.0f} s")


Item = tuple[Path, list[tuple[str, list[float]]]]


def synth_items(work: Path, split: str, name: str = "synth") -> list[Item]:
    """(image, [(label, box), ...]) of each generated scene in ``work/name/split``."""
    items = []
    for meta_path in sorted((work / name / split).glob("*.json")):
        meta = json.loads(meta_path.read_text())
        items.append((meta_path.with_suffix(".jpg"), [tuple(p) for p in meta["pieces"]]))
    return items


def real_train_items() -> list[Item]:
    """The trainable real tile photos (the held-out quarter never), or none where absent."""
    from datasets.realdata import load_photos, realdata_dir, split_trainable, training_pieces

    data = realdata_dir()
    if data is None:
        print("real photos not found: training on synthetic scenes only")
        return []
    train, _held = split_trainable(load_photos(data, "rummikub"))
    return [(p.image, [(label, list(box)) for label, box in training_pieces(p)]) for p in train]
