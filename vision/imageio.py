"""Loading photos safely: path, bytes or numpy array in; BGR uint8 out, EXIF rotation applied.

Decoding goes through Pillow (EXIF orientation, lazy size check before decoding: a
decompression bomb is refused before it costs memory). Large JPEGs are decoded at a reduced
DCT scale (``draft``), a free 2-4x speed-up; boxes are mapped back to the pixels of the image
as displayed, so callers never see the reduction.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageFile, ImageOps, UnidentifiedImageError

from vision.errors import ImageError

MAX_PIXELS = 50_000_000  # larger is refused: no phone photo needs more
MAX_FILE_BYTES = 80 * 1024 * 1024
MIN_SIDE = 16
WORK_LONG_SIDE = 2000  # decode big JPEGs down to about this (never below it)
ImageFile.LOAD_TRUNCATED_IMAGES = False


@dataclass(frozen=True)
class LoadedImage:
    bgr: np.ndarray  # the pixels we work on
    scale: float  # displayed-image pixels per working pixel (>= 1)
    width: int  # the displayed image's size (after EXIF rotation)
    height: int


def _describe(source) -> str:
    return str(source) if isinstance(source, (str, Path)) else "the image"


# EXIF orientations that store a photo turned a quarter: shown, its width is its stored height
QUARTER_TURNED = (5, 6, 7, 8)


def shown_size(path: Path) -> tuple[int, int]:
    """(width, height) of an image file as shown (EXIF orientation applied, as ``load_image``
    and ``cv2.imread`` load it), read from its header alone."""
    with Image.open(path) as img:
        width, height = img.size
        orientation = img.getexif().get(0x0112, 1)
    return (height, width) if orientation in QUARTER_TURNED else (width, height)


def load_image(source, channels: str = "rgb") -> LoadedImage:
    """``source``: a path, encoded bytes, or an HxWx3 uint8 array (``channels`` "rgb" or "bgr")."""
    if isinstance(source, np.ndarray):
        return _from_array(source, channels)
    name = _describe(source)
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not path.is_file():
            raise ImageError(f"{name}: no such file")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ImageError(f"{name}: file too large ({path.stat().st_size // 2**20} MB)")
        data = path.read_bytes()
    elif isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        raise ImageError(f"cannot read an image from a {type(source).__name__}")
    if not data:
        raise ImageError(f"{name}: the file is empty")
    if len(data) > MAX_FILE_BYTES:
        raise ImageError(f"{name}: file too large ({len(data) // 2**20} MB)")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            img: Image.Image = Image.open(io.BytesIO(data))  # exif_transpose: an Image
            width, height = img.size
            if width * height > MAX_PIXELS:
                raise ImageError(
                    f"{name}: {width}x{height} is too large "
                    f"(at most {MAX_PIXELS // 1_000_000} megapixels)"
                )
            orientation = img.getexif().get(0x0112, 1)
            scale = 1.0
            if img.format == "JPEG" and max(width, height) >= 2 * WORK_LONG_SIDE:
                img.draft(
                    "RGB",
                    (width // 2, height // 2)
                    if max(width, height) < 4 * WORK_LONG_SIDE
                    else (width // 4, height // 4),
                )
                scale = width / img.size[0]
            img.load()
            img = ImageOps.exif_transpose(img) if orientation != 1 else img
            rgb = np.asarray(img if img.mode == "RGB" else img.convert("RGB"))
    except ImageError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise ImageError(
            f"{name}: the image is too large (at most {MAX_PIXELS // 1_000_000} megapixels)"
        ) from None
    except UnidentifiedImageError:
        raise ImageError(
            f"{name}: not an image, or in a format meldcam cannot read (use JPEG or PNG)"
        ) from None
    except (OSError, SyntaxError, ValueError, EOFError) as error:
        raise ImageError(
            f"{name}: cannot decode the image, truncated or damaged ({error})"
        ) from None
    if min(rgb.shape[:2]) < MIN_SIDE:
        raise ImageError(f"{name}: {rgb.shape[1]}x{rgb.shape[0]} is too small to hold pieces")
    disp_w, disp_h = (height, width) if orientation in QUARTER_TURNED else (width, height)
    # OpenCV swaps the channels some 20 times faster than numpy's reversed view copied.
    return LoadedImage(cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), scale, disp_w, disp_h)


def _from_array(array: np.ndarray, channels: str) -> LoadedImage:
    if channels not in ("rgb", "bgr"):
        raise ValueError(f"channels must be 'rgb' or 'bgr', not {channels!r}")
    if array.ndim == 2:
        array = np.repeat(array[..., None], 3, axis=2)
    if array.ndim != 3 or array.shape[2] not in (3, 4):
        raise ImageError(f"an image array must be HxWx3, not {array.shape}")
    if array.dtype != np.uint8:
        raise ImageError(f"an image array must be uint8, not {array.dtype}")
    h, w = array.shape[:2]
    if h * w > MAX_PIXELS:
        raise ImageError(f"{w}x{h} is too large (at most {MAX_PIXELS // 1_000_000} megapixels)")
    if min(h, w) < MIN_SIDE:
        raise ImageError(f"{w}x{h} is too small to hold pieces")
    if channels == "rgb":  # swapped by OpenCV, as a loaded file's
        swap = cv2.COLOR_RGB2BGR if array.shape[2] == 3 else cv2.COLOR_RGBA2BGR
        return LoadedImage(cv2.cvtColor(np.ascontiguousarray(array), swap), 1.0, w, h)
    return LoadedImage(np.ascontiguousarray(array[..., :3]), 1.0, w, h)
