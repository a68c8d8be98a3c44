"""The shipped settings of each kind on the models in a folder: ``TileRecogniser``,
``DominoRecogniser`` and ``CardRecogniser`` are ``vision.pipeline.Recogniser`` on
``vision.kinds.TILES``, ``DOMINOES`` and ``CARDS`` (the top of ``vision``'s import chain: the
per-kind hooks below it never import the recogniser)."""

from __future__ import annotations

from pathlib import Path

from vision.kinds import CARDS, DOMINOES, TILES
from vision.pipeline import Recogniser
from vision.settings import MODELS_DIR


class TileRecogniser(Recogniser):
    """The shipped tile settings (``vision.kinds.TILES``) on the models in ``models_dir``."""

    def __init__(self, models_dir: Path = MODELS_DIR):
        super().__init__(TILES, models_dir)


class DominoRecogniser(Recogniser):
    """The shipped domino settings (``vision.kinds.DOMINOES``) on the models in
    ``models_dir``; ``set_name`` limits every reading to that set."""

    def __init__(self, models_dir: Path = MODELS_DIR, set_name: str | None = None):
        super().__init__(DOMINOES, models_dir, set_name=set_name)


class CardRecogniser(Recogniser):
    """The shipped card settings (``vision.kinds.CARDS``) on the models in ``models_dir``."""

    def __init__(self, models_dir: Path = MODELS_DIR):
        super().__init__(CARDS, models_dir)
