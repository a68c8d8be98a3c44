"""Reading a photo as plain data in, plain data out: the same steps for the web app's own
process and for recognition workers (``meldcam worker``, jobs on Redis with RQ), which import
neither Flask nor the web app, so they run on any machine with the models (a GPU one too).

Dominoes and cards are read for the game's set (a domino set, a deck's index letters); a set the
recogniser does not know means reading again with no set (every domino 0-12, English index
letters), never an error for the player.
"""

from __future__ import annotations

import logging
from typing import Any

from meldcam.vocabulary import AUTO_SET, PHOTO_SETS
from vision.api import Recogniser, get_recogniser
from vision.errors import ImageError, RecogniserUnavailable, UnknownSet

log = logging.getLogger(__name__)

QUEUE_NAME = "meldcam-recognise"  # the Redis queue that web nodes fill and workers empty


def read(
    recogniser: Recogniser,
    kind: str,
    data: bytes,
    set_name: str | None = None,
    untold: str | None = None,
) -> dict[str, Any]:
    """``recogniser``'s reading of the photo ``data``; ``set_name`` (dominoes, cards) reads
    for the game's set where it can; with ``AUTO_SET``, ``untold`` is the set a photo that
    tells none is read as (``Recogniser.recognise``). Raises ImageError for a photo it cannot
    read, and UnknownSet if even the reading with no set failed. A set refused is dropped:
    ``untold`` first, then ``set_name``."""
    attempts: list[tuple[str | None, str | None]] = [(None, None)]  # (set_name, untold)
    if kind in PHOTO_SETS and set_name is not None:
        attempts.insert(0, (set_name, None))
        if set_name == AUTO_SET and untold is not None:
            attempts.insert(0, (set_name, untold))
    last_error: UnknownSet | None = None
    for told, fallback in attempts:
        try:
            return dict(recogniser.recognise(data, set_name=told, untold=fallback))
        except UnknownSet as error:
            log.warning("%s reader: %s; reading with no set", kind, error)
            last_error = error
    assert last_error is not None
    raise last_error


def recognise_job(
    kind: str, data: bytes, set_name: str | None = None, untold: str | None = None
) -> dict[str, Any]:
    """A worker's job: ``{"result": reading}``, or ``{"error": "image" | "unavailable",
    "message": ...}`` for what the player must hear about (a bad photo, no model or set); any
    other exception fails the job (the web node answers 503)."""
    try:
        return {"result": read(get_recogniser(kind), kind, data, set_name, untold)}
    except ImageError as error:
        return {"error": "image", "message": str(error)}
    except (RecogniserUnavailable, UnknownSet) as error:
        return {"error": "unavailable", "message": str(error)}
