"""Uploaded photos: checked with Pillow, stored in the database with random ids (every node
serves every photo), and read by the recogniser (``vision.api``), imported lazily and shared by
the whole process.

The photo is checked here before any recogniser runs, so that a bad upload gets the same clear
message whatever the recogniser makes of it: empty file, not an image, a decompression bomb
(more than ``MAX_PIXELS``), a truncated file. What is stored, and read, is the photo upright,
no larger than ``MAX_SIDE`` and without metadata (``check_photo``); its colour profile only
when it is a real one of at most ``MAX_ICC_BYTES`` (``kept_profile``). A photo no game holds
(a viewer's, a seat's before its rack is sent, "check a meld") is deleted after
``UNATTACHED_PHOTO_HOURS`` (24), when the next photo is stored (``expire_unattached``).

Photos are read in this process by default, or by recognition workers (``meldcam worker``) when
``REDIS_URL`` is set (``webapp.workers``). Photos are taken in turn: ``RECOGNISE_WORKERS`` (1;
with workers, ``RECOGNISE_IN_FLIGHT``) at a time are decoded and read, up to
``RECOGNISE_QUEUE`` (4) more wait for their turn, and past that (or after ``RECOGNISE_WAIT_S``
seconds of waiting) the upload is answered 503 with ``Retry-After`` (``Busy``): memory stays
bounded however many phones send at once, and the machine's few cores, which the recogniser
already uses in full, are never shared by several readings.

Memory: a photo's decoding and reading run on the process's photo thread (``on_photo_thread``:
one at a time, or ``RECOGNISE_WORKERS``), never on the server's request threads, and the
allocator hands back what they freed (``give_back_memory``). glibc gives each thread that
allocates its own arena (up to 8 per core) and keeps what a freed arena held: a 7000 x 7000 PNG
(196 MB decoded) read on one request thread after another grew a server with 104 threads by
~300 MB per upload, for good. ``meldcam serve`` also caps the arenas
(``webapp.cli.cap_malloc_arenas``), and with ``--processes`` the processes take turns at photos
as one process's threads do (``share_turns``).

Dominoes and cards are read for the game's set (``set_name``, see ``set_name_of``), which the
game's rules tell (``scorer.games.photo_set``): a photo for a double-nine game is never labelled
10-12, and a Gin game's deck is read by the reader of its index letters (a Polish deck prints
"WDKA", its W a jack; by default, and for a photo of no game, told from the photo's own
letters, ``AUTO_SET``).
Every recogniser takes the set (``vision.api.Recogniser``: test stand-ins too); tiles never
get one. If the recogniser does not know the set
(``vision.errors.UnknownSet``) the photo is read again with no set (every domino 0-12, English
letters) and the scorer then names any piece outside the game's set; it is never a 500
(``vision.jobs.read``, the same steps in a worker).
"""

from __future__ import annotations

import ctypes
import io
import logging
import math
import secrets
import threading
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from flask import Flask, current_app, has_app_context
from PIL import Image, ImageCms, ImageOps, UnidentifiedImageError
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from meldcam.vocabulary import (
    AUTO_SET,
    INDEX_LETTERS,
    OTHER_LETTERS,
    RECOGNISER_KINDS,
    UNTOLD_LETTERS,
    printed_letters,
)
from scorer.errors import MeldcamError
from scorer.game import Rules
from scorer.games import game_type, photo_set
from vision import jobs
from vision.errors import ImageError, RecogniserUnavailable, UnknownSet
from webapp import workers
from webapp.bounds import clip
from webapp.db import Photo, PhotoData
from webapp.i18n import lazy_gettext

FORMATS = {"JPEG": ".jpg", "PNG": ".png", "WEBP": ".webp"}
MAX_PIXELS = 50_000_000
MAX_SIDE = 2000  # long side kept: the recogniser reads at most about this (vision.imageio)
# a colour profile kept with a photo: phones write 0.5-4 KB (Display P3, sRGB), the largest
# common one (ICC's sRGB v4 preference profile) is 60 KB
MAX_ICC_BYTES = 64 * 1024

log = logging.getLogger(__name__)

_recognise_lock = threading.Lock()
T = TypeVar("T")

# The threads that decode and read photos, for the whole process (at most ``RECOGNISE_WORKERS``
# of them work at once: ``Gate``). Started on the first photo, so a server forked by
# ``meldcam serve --processes`` starts its own.
PHOTO_THREADS = 8
_photo_threads = ThreadPoolExecutor(max_workers=PHOTO_THREADS, thread_name_prefix="meldcam-photo")


def _malloc_trim() -> Callable[[int], int] | None:
    try:
        trim = ctypes.CDLL(None).malloc_trim  # glibc
    except (AttributeError, OSError):  # another C library, or not Linux
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


_trim = _malloc_trim()


def give_back_memory() -> None:
    """Have the C allocator return the memory freed in its arenas to the system (glibc's
    ``malloc_trim``; elsewhere nothing): a decoded photo's 100-200 MB would otherwise stay
    with the process, reserved for the next allocation of that thread's arena."""
    if _trim is not None:
        _trim(0)


MACHINE_TURNS_KEY = "meldcam_photo_machine_turns"


def share_turns(app: Flask) -> None:
    """Before ``meldcam serve --processes N`` forks: the server processes take turns at photo
    work too (a semaphore they all share, of ``RECOGNISE_WORKERS``), as one process's threads
    do. The reader uses every core already, so two readings at once take as long as two in
    turn; but each holds its own 250-350 MB while it works (a 7000 x 7000 PNG's decoding, a
    2000 px photo's reading): two at once took the server past 1 GB."""
    import multiprocessing

    turns = max(1, int(app.config["RECOGNISE_WORKERS"]))
    app.extensions[MACHINE_TURNS_KEY] = multiprocessing.get_context("fork").Semaphore(turns)


def on_photo_thread(work: Callable[..., T], *args: Any) -> T:
    """``work(*args)`` run on the photo thread (in its turn with the other server processes,
    ``share_turns``), then the memory it freed given back (``give_back_memory``); its result,
    or its exception raised here."""
    turns = current_app.extensions.get(MACHINE_TURNS_KEY) if has_app_context() else None

    def run() -> T:
        with turns if turns is not None else nullcontext():  # given back before the next turn
            try:
                return work(*args)
            finally:
                give_back_memory()

    if threading.current_thread().name.startswith("meldcam-photo"):  # already there
        return work(*args)
    return _photo_threads.submit(run).result()


class PhotoError(MeldcamError):
    """An upload that is not a usable photo."""


class Busy(RuntimeError):
    """Too many photos waiting to be read (503 with ``Retry-After``)."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            lazy_gettext("the photo reader is busy with other photos: try again in a few seconds")
        )
        self.retry_after = retry_after


class Gate:
    """At most ``workers`` photos at work, ``queue`` more waiting (up to ``wait_s``), else Busy."""

    def __init__(self, workers: int, queue: int, wait_s: float, retry_after: int) -> None:
        self._slots = threading.Semaphore(max(1, workers))
        self._lock = threading.Lock()
        self._admitted = 0
        self._capacity = max(1, workers) + max(0, queue)
        self._wait_s = wait_s
        self.retry_after = retry_after

    @contextmanager
    def turn(self) -> Iterator[None]:
        with self._lock:
            if self._admitted >= self._capacity:
                raise Busy(self.retry_after)
            self._admitted += 1
        try:
            if not self._slots.acquire(timeout=self._wait_s):
                raise Busy(self.retry_after)
            try:
                yield
            finally:
                self._slots.release()
        finally:
            with self._lock:
                self._admitted -= 1


GATE_KEY = "meldcam_photo_gate"  # settings RECOGNISE_* and UNATTACHED_PHOTO_HOURS: webapp.settings


def init_photos(app: Flask) -> None:
    queue = workers.init_queue(app)
    app.extensions[GATE_KEY] = Gate(
        # with a queue, this node's photos wait on the workers, not on its own cores
        int(app.config["RECOGNISE_WORKERS"]) if queue is None else queue.in_flight,
        int(app.config["RECOGNISE_QUEUE"]),
        float(app.config["RECOGNISE_WAIT_S"]),
        int(app.config["RECOGNISE_RETRY_AFTER"]),
    )


def turn() -> Any:
    """This app's turn at the photo reader: ``with photos.turn(): ...``."""
    gate: Gate = current_app.extensions[GATE_KEY]
    return gate.turn()


class RecogniserMissing(RuntimeError):
    """No recogniser for this kind of piece yet (503): pieces can still be entered by tapping."""


@dataclass(frozen=True)
class CheckedPhoto:
    data: bytes
    extension: str
    width: int  # as displayed, after EXIF orientation
    height: int


def _reduced_size(width: int, height: int) -> tuple[int, int]:
    """The smallest size whose long side is still ``MAX_SIDE`` (the JPEG draft target)."""
    scale = min(1.0, MAX_SIDE / max(width, height))
    return max(1, math.ceil(width * scale)), max(1, math.ceil(height * scale))


def check_photo(data: bytes) -> CheckedPhoto:
    """``checked_photo(data)`` on the photo thread (``on_photo_thread``)."""
    return on_photo_thread(checked_photo, data)


def checked_photo(data: bytes) -> CheckedPhoto:
    """Decode the photo once and re-encode what is kept, or raise PhotoError with a message.

    Large JPEGs are decoded at a reduced DCT scale (Pillow's draft mode: a 49-megapixel photo
    costs about 10 MB, not 150), so no full-size copy is ever held. The EXIF orientation is
    applied, the long side brought down to ``MAX_SIDE`` (what the recogniser reads at most),
    and the photo is encoded again in its own format with no metadata: no EXIF (GPS position,
    camera, time), no XMP, no comments; only the colour profile is kept, if it is a real one
    of at most ``MAX_ICC_BYTES`` (``kept_profile``).
    """
    if not data:
        raise PhotoError(lazy_gettext("the photo is empty: take or choose the photo again"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image: Image.Image = Image.open(io.BytesIO(data))  # exif_transpose: an Image
            if image.width * image.height > MAX_PIXELS:
                raise PhotoError(
                    lazy_gettext(
                        "the photo is too large (%(width)s x %(height)s pixels): "
                        "at most %(most)s megapixels",
                        width=image.width,
                        height=image.height,
                        most=MAX_PIXELS // 1_000_000,
                    )
                )
            image_format = str(image.format)
            if image_format not in FORMATS:
                raise PhotoError(
                    lazy_gettext(
                        "%(format)s files are not accepted: send a JPEG, PNG or WebP",
                        format=image.format,
                    )
                )
            if image_format == "JPEG" and max(image.size) > MAX_SIDE:
                image.draft(None, _reduced_size(*image.size))
            image.load()
            icc_profile = kept_profile(image.info.get("icc_profile"))
            # shrunk first, turned upright after: the box is square, so the size comes out the
            # same, and no full-size copy is made (turning a 7000 x 7000 PNG, or copying it where
            # it needs no turn, held a second 196 MB: Pillow keeps RGB in 4 bytes a pixel)
            if max(image.size) > MAX_SIDE:
                image.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS, reducing_gap=3.0)
            image = ImageOps.exif_transpose(image)
            cleaned = _encode(image, image_format, icc_profile)
    except PhotoError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        limit = MAX_PIXELS // 1_000_000
        raise PhotoError(
            lazy_gettext("the photo is too large: at most %(most)s megapixels", most=limit)
        ) from None
    except UnidentifiedImageError:
        raise PhotoError(
            lazy_gettext("this file is not a photo: send a JPEG, PNG or WebP image")
        ) from None
    except (OSError, SyntaxError, ValueError, EOFError) as error:
        reason = clip(str(error), 80)
        raise PhotoError(
            lazy_gettext(
                "the photo is damaged or cut off (%(reason)s): send it again", reason=reason
            )
        ) from None
    return CheckedPhoto(cleaned, FORMATS[image_format], image.width, image.height)


def kept_profile(profile: Any) -> bytes | None:
    """The photo's colour profile, or None where it is not one worth keeping: Pillow hands on
    whatever bytes a file carries as its profile (2 MB of anything rode on a 400 x 300 JPEG
    into the database and back out). Kept: at most ``MAX_ICC_BYTES``, exactly the size its
    header declares (nothing appended), and read by LittleCMS (``ImageCms``). A profile
    dropped changes how the photo's colours are shown, never its pixels or what is read."""
    if not isinstance(profile, bytes) or not profile:
        return None
    if len(profile) > MAX_ICC_BYTES or int.from_bytes(profile[:4], "big") != len(profile):
        log.info("photo's colour profile dropped: %s bytes", len(profile))
        return None
    try:
        ImageCms.ImageCmsProfile(io.BytesIO(profile))
    except (OSError, ValueError, ImageCms.PyCMSError):
        log.info("photo's colour profile dropped: not a profile LittleCMS reads")
        return None
    return profile


def _encode(image: Image.Image, image_format: str, icc_profile: bytes | None) -> bytes:
    """The pixels alone, in ``image_format``: Pillow writes no metadata it is not given."""
    has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    if image_format == "JPEG":
        mode = image.mode if image.mode in ("RGB", "L") else "RGB"
    else:
        mode = "RGBA" if has_alpha else ("L" if image.mode in ("L", "1") else "RGB")
    image = image.convert(mode) if image.mode != mode else image.copy()
    image.info = {}  # Pillow writes some of these back (a JPEG's comment, a PNG's texts)
    options: dict[str, Any] = {}
    if icc_profile and mode != "L":
        options["icc_profile"] = icc_profile
    if image_format == "JPEG":
        options.update(quality=92, optimize=True)
    elif image_format == "WEBP":
        options.update(quality=90)
    out = io.BytesIO()
    image.save(out, image_format, **options)
    return out.getvalue()


def expire_unattached(session: Session) -> int:
    """Delete the photos no game holds that are older than ``UNATTACHED_PHOTO_HOURS``, with
    their bytes; how many. Nobody can attach them any more in practice (a seat's rack claims its
    photos when it is sent, a viewer's and "check a meld"'s are never attached), and
    ``/api/recognise`` needs no game, so without this anyone could fill the database. Run
    when a photo is stored (``save_photo``), as idempotency records are: storage grows only
    then, and the query is one look-up of the index on ``game_id``."""
    hours = current_app.config["UNATTACHED_PHOTO_HOURS"]
    if not hours:
        return 0
    cutoff = datetime.now(UTC) - timedelta(hours=float(hours))
    expired = select(Photo.id).where(Photo.game_id.is_(None), Photo.created_at < cutoff)
    # the bytes first: no row of theirs is left even where foreign keys are not enforced
    session.execute(
        delete(PhotoData)
        .where(PhotoData.photo_id.in_(expired))
        .execution_options(synchronize_session=False)
    )
    result = session.execute(
        delete(Photo).where(Photo.id.in_(expired)).execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def save_photo(session: Session, photo: CheckedPhoto, **fields: Any) -> str:
    """Add the photo and its bytes to ``session`` under a random id (never derived from user
    input) and return the id; ``fields`` are the rest of its ``Photo`` row. Photos of no game
    past their time go first (``expire_unattached``)."""
    expire_unattached(session)
    photo_id = secrets.token_hex(16)
    session.add(Photo(id=photo_id, filename=photo_id + photo.extension, **fields))
    session.flush()  # the photo's row before its bytes' (the foreign key)
    session.add(PhotoData(photo_id=photo_id, data=photo.data))
    return photo_id


def stored_photo(session: Session, photo_id: str) -> tuple[str, bytes] | None:
    """A stored photo's file name and bytes, or None if there is none with this id."""
    if len(photo_id) > 32:
        return None
    found = session.execute(
        select(Photo.filename, PhotoData.data)
        .join(PhotoData, PhotoData.photo_id == Photo.id)
        .where(Photo.id == photo_id)
    ).first()
    return None if found is None else (found.filename, found.data)


def _vision_recogniser(kind: str) -> Any:
    from vision.api import get_recogniser

    try:
        return get_recogniser(kind)
    except RecogniserUnavailable as error:
        raise RecogniserMissing(
            lazy_gettext(
                "photos of %(kind)s cannot be read yet (%(reason)s): enter the pieces by tapping",
                kind=kind,
                reason=str(error),
            )
        ) from None


def set_name_of(kind: str, rules: Rules | None) -> str | None:
    """The set a game's photos of ``kind`` are read for (``rules`` None: a photo of no game):
    the one its rules tell (``scorer.games.photo_set``: a domino game's set, a deck's index
    letters or ``AUTO_SET``) for photos of its own kind of piece; a photo of no game: cards
    told from each photo (``AUTO_SET``), no set otherwise."""
    if rules is None:
        return AUTO_SET if kind == "cards" else None
    if kind != RECOGNISER_KINDS[game_type(rules.game).piece_kind]:
        return None
    return photo_set(rules)


def game_told_set(session: Session, game_id: str, kind: str) -> str | None:
    """The set the game's earlier photos of ``kind`` were told to show (their readings' "set",
    read with ``AUTO_SET``): the one told most, when told at least twice as often as any other
    (a photo told only ``OTHER_LETTERS`` counting for every deck but the English one, and
    against it); else ``OTHER_LETTERS`` where the photos telling other letters than English,
    whichever, are twice the English ones; None when none was told. One deck plays a whole
    game, and a hand photo showing none of its own letters (no jack in a Polish hand) is then
    read for the deck its other photos showed."""
    readings = session.execute(
        select(Photo.recognition).where(Photo.game_id == game_id, Photo.kind == kind)
    ).scalars()
    told = Counter(
        r.get("set")
        for r in readings
        if isinstance(r, dict) and r.get("set") and r.get("set_from") != "game"  # told itself
    )
    # A photo told only that the deck prints other letters (``OTHER_LETTERS``) backs each deck
    # printing such letters, and stands against an English one as they do.
    other = told.pop(OTHER_LETTERS, 0)
    backed = Counter(
        {name: n + (0 if name == UNTOLD_LETTERS else other) for name, n in told.items()}
    )
    ranked = [*backed.most_common(2), (None, 0), (None, 0)]
    (best, most), (_second, next_most) = ranked[0], ranked[1]
    if best == UNTOLD_LETTERS:
        next_most = max(next_most, other)
    if best is not None and most >= 2 * next_most:
        return best
    foreign = other + sum(n for name, n in told.items() if name != UNTOLD_LETTERS)
    return OTHER_LETTERS if foreign and foreign >= 2 * told[UNTOLD_LETTERS] else None


def recognise_for_game(
    kind: str, photo: CheckedPhoto, set_name: str | None, game_set: str | None
) -> dict[str, Any]:
    """``recognise``, a photo read with ``AUTO_SET`` that tells no set read as ``game_set``
    (``game_told_set``) where that is not what an untold photo is read as (the same boxes,
    read by that set's reader): its "set" then says so, and "set_from": "game". A deck told
    has its letters in "set_letters" ("WDKA"), for the page to show."""
    untold = game_set if set_name == AUTO_SET and game_set != UNTOLD_LETTERS else None
    result = recognise(kind, photo, set_name, untold)
    if result.pop("set_from", None) == "untold":
        result["set_from"] = "game"
    if kind == "cards" and result.get("set") in INDEX_LETTERS:  # what the page shows
        result["set_letters"] = printed_letters(result["set"])
    return result


def get_recogniser(kind: str) -> Any:
    """The recogniser for ``kind``; tests and benchmarks may set ``RECOGNISER_FACTORY``."""
    factory: Callable[[str], Any] | None = current_app.config["RECOGNISER_FACTORY"]
    return (factory or _vision_recogniser)(kind)


def recognise(
    kind: str, photo: CheckedPhoto, set_name: str | None = None, untold: str | None = None
) -> dict[str, Any]:
    """Run the shared recogniser on the photo's bytes (it applies EXIF orientation itself).

    ``set_name`` (``set_name_of``) reads for the game's set; a set the recogniser does not
    know means reading with no set, never an error for the player. ``untold``:
    with ``AUTO_SET``, the set a photo that tells none is read as (``vision.jobs.read``).
    """
    queue: workers.RecognitionQueue | None = current_app.extensions.get(workers.EXTENSION_KEY)
    if queue is not None:  # MELDCAM_REDIS_URL: read by a `meldcam worker`
        answer = queue.read(kind, photo.data, set_name, untold)
        if answer.get("error") == "image":
            raise PhotoError(answer["message"])
        if "error" in answer:
            raise RecogniserMissing(
                f"the photo reader cannot read these pieces ({answer['message']}): "
                "enter the pieces by tapping"
            )
        return dict(answer["result"])
    recogniser = get_recogniser(kind)
    with _recognise_lock:
        try:
            return on_photo_thread(jobs.read, recogniser, kind, photo.data, set_name, untold)
        except ImageError as error:
            raise PhotoError(str(error)) from None
        except UnknownSet as last_error:
            raise RecogniserMissing(
                lazy_gettext(
                    "the photo reader cannot read this set (%(reason)s): enter the pieces by "
                    "tapping",
                    reason=str(last_error),
                )
            ) from None
