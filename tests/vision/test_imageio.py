"""Bad files are rejected with a clear ImageError; EXIF orientation is applied."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image

from vision.errors import ImageError
from vision.imageio import load_image, shown_size


def jpeg_bytes(width=200, height=100, exif_orientation: int | None = None) -> bytes:
    img = Image.new("RGB", (width, height), (200, 30, 30))
    img.paste((30, 30, 200), (0, 0, width // 4, height // 4))  # a blue top-left corner
    buf = io.BytesIO()
    if exif_orientation:
        exif = Image.Exif()
        exif[0x0112] = exif_orientation
        img.save(buf, "JPEG", exif=exif)
    else:
        img.save(buf, "JPEG")
    return buf.getvalue()


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims a size but holds almost no data (a decompression-bomb shape)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0"))


def test_reads_a_jpeg_from_bytes_and_path(tmp_path):
    data = jpeg_bytes()
    loaded = load_image(data)
    assert loaded.bgr.shape == (100, 200, 3) and loaded.scale == 1.0
    path = tmp_path / "a.jpg"
    path.write_bytes(data)
    assert load_image(path).bgr.shape == (100, 200, 3)
    assert load_image(str(path)).bgr.shape == (100, 200, 3)


def test_exif_rotation_is_applied():
    loaded = load_image(jpeg_bytes(exif_orientation=6))  # stored landscape, shown portrait
    assert loaded.bgr.shape == (200, 100, 3)
    assert (loaded.width, loaded.height) == (100, 200)
    # Orientation 6 = turn 90 degrees clockwise to display: the blue corner goes top-right.
    top_right = loaded.bgr[5, -5]
    assert top_right[0] > 150 and top_right[2] < 100  # BGR: blue high, red low


def test_shown_size_reads_the_header_as_load_image_shows_it(tmp_path):
    for orientation, shown in ((None, (200, 100)), (3, (200, 100)), (6, (100, 200))):
        path = tmp_path / f"{orientation}.jpg"
        path.write_bytes(jpeg_bytes(exif_orientation=orientation))
        loaded = load_image(path)
        assert shown_size(path) == shown == (loaded.bgr.shape[1], loaded.bgr.shape[0])


def test_arrays_rgb_by_default_and_bgr_on_request():
    rgb = np.zeros((40, 50, 3), np.uint8)
    rgb[..., 0] = 255  # red in RGB
    assert load_image(rgb).bgr[0, 0].tolist() == [0, 0, 255]
    assert load_image(rgb, channels="bgr").bgr[0, 0].tolist() == [255, 0, 0]


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "empty"),
        (b"this is not an image at all, just text\n" * 10, "not an image"),
        (png_header_only(12_000, 9_000), "too large"),  # Pillow's own bomb limit
        (png_header_only(8_000, 7_000), "too large"),  # 56 MP: our limit
    ],
)
def test_bad_bytes_are_rejected(data, words):
    with pytest.raises(ImageError, match=words):
        load_image(data)


def test_truncated_jpeg_is_rejected(tmp_path):
    data = jpeg_bytes(400, 300)
    path = tmp_path / "cut.jpg"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ImageError, match=r"truncated|damaged"):
        load_image(path)


def test_missing_file_and_wrong_types():
    with pytest.raises(ImageError, match="no such file"):
        load_image("/nonexistent/photo.jpg")
    with pytest.raises(ImageError):
        load_image(12345)
    with pytest.raises(ImageError, match="too small"):
        load_image(np.zeros((4, 4, 3), np.uint8))
    with pytest.raises(ImageError, match="uint8"):
        load_image(np.zeros((40, 40, 3), np.float32))


def test_image_error_is_a_value_error():
    assert issubclass(ImageError, ValueError)
