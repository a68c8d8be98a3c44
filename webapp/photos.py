"""Uploaded photos: checked with Pillow, stored under ``instance/photos`` with random names,
and read by the recogniser (``vision.api``), imported lazily and shared by the whole process.

The photo is checked here before any recogniser runs, so that a bad upload gets the same clear
message whether or not a recogniser is installed: empty file, not an image, a decompression bomb
(more than ``MAX_PIXELS``), a truncated file. One recognition runs at a time per process: the
machine has few cores and the recogniser already uses them all.
"""

from __future__ import annotations

import io
import secrets
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask, current_app
from PIL import Image, ImageOps, UnidentifiedImageError

from scorer.errors import MeldcamError

KINDS = ("tiles", "dominoes", "cards")
FORMATS = {"JPEG": ".jpg", "PNG": ".png", "WEBP": ".webp"}
MAX_PIXELS = 50_000_000

_recognise_lock = threading.Lock()


class PhotoError(MeldcamError):
    """An upload that is not a usable photo."""


class RecogniserMissing(RuntimeError):
    """No recogniser for this kind of piece yet (503): pieces can still be entered by tapping."""


@dataclass(frozen=True)
class CheckedPhoto:
    data: bytes
    extension: str
    width: int  # as displayed, after EXIF orientation
    height: int


def check_photo(data: bytes) -> CheckedPhoto:
    """Open and fully decode the photo once, or raise PhotoError with a message for the player."""
    if not data:
        raise PhotoError("the photo is empty: take or choose the photo again")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data))
            if image.width * image.height > MAX_PIXELS:
                raise PhotoError(
                    f"the photo is too large ({image.width} x {image.height} pixels): "
                    f"at most {MAX_PIXELS // 1_000_000} megapixels"
                )
            if image.format not in FORMATS:
                raise PhotoError(f"{image.format} files are not accepted: send a JPEG, PNG or WebP")
            image.load()
            upright = ImageOps.exif_transpose(image)
    except PhotoError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        limit = MAX_PIXELS // 1_000_000
        raise PhotoError(f"the photo is too large: at most {limit} megapixels") from None
    except UnidentifiedImageError:
        raise PhotoError("this file is not a photo: send a JPEG, PNG or WebP image") from None
    except (OSError, SyntaxError, ValueError) as error:
        raise PhotoError(f"the photo is damaged or cut off ({error}): send it again") from None
    return CheckedPhoto(data, FORMATS[str(image.format)], upright.width, upright.height)


def photo_folder(app: Flask) -> Path:
    folder = Path(app.instance_path) / "photos"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def save_photo(app: Flask, photo: CheckedPhoto) -> str:
    """Write the photo under a random name; return that name (never derived from user input)."""
    filename = secrets.token_hex(16) + photo.extension
    (photo_folder(app) / filename).write_bytes(photo.data)
    return filename


def _vision_recogniser(kind: str) -> Any:
    try:
        from vision import api as vision_api
    except ImportError:
        raise RecogniserMissing(
            "the photo reader is not installed yet: enter the pieces by tapping"
        ) from None
    unavailable: type[Exception] = getattr(vision_api, "RecogniserUnavailable", RuntimeError)
    try:
        return vision_api.get_recogniser(kind)
    except unavailable as error:
        raise RecogniserMissing(
            f"photos of {kind} cannot be read yet ({error}): enter the pieces by tapping"
        ) from None


def _image_error_type() -> type[Exception]:
    try:
        from vision.errors import ImageError
    except ImportError:
        return PhotoError
    return ImageError


def get_recogniser(kind: str) -> Any:
    """The recogniser for ``kind``; tests and benchmarks may set ``RECOGNISER_FACTORY``."""
    factory: Callable[[str], Any] | None = current_app.config.get("RECOGNISER_FACTORY")
    return (factory or _vision_recogniser)(kind)


def recognise(kind: str, photo: CheckedPhoto) -> dict[str, Any]:
    """Run the shared recogniser on the photo's bytes (it applies EXIF orientation itself)."""
    recogniser = get_recogniser(kind)
    image_error = _image_error_type()
    with _recognise_lock:
        try:
            result = recogniser.recognise(photo.data)
        except image_error as error:
            raise PhotoError(str(error)) from None
    return dict(result)
