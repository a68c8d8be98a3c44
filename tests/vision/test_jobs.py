"""``vision.jobs.read``: which arguments reach the recogniser, and what a set it refuses costs
(never the reading)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from meldcam.vocabulary import AUTO_SET
from vision.errors import UnknownSet
from vision.jobs import read


class Reader:
    """Records each call's keyword arguments; refuses the sets in ``unknown``."""

    def __init__(self, unknown: tuple[str, ...] = ()) -> None:
        self.calls: list[dict[str, Any]] = []
        self.unknown = unknown

    def recognise(
        self,
        image: bytes,
        channels: str = "rgb",
        set_name: str | None = None,
        untold: str | None = None,
    ):
        arguments = {"set_name": set_name, "untold": untold}
        self.calls.append({k: v for k, v in arguments.items() if v is not None})
        if set_name in self.unknown or untold in self.unknown:
            raise UnknownSet(f"unknown set {set_name!r} / {untold!r}")
        return {"pieces": [], "set": untold}


def test_untold_reaches_a_reader_that_tells_the_set_from_the_photo():
    reader = Reader()
    assert read(reader, "cards", b"jpeg", AUTO_SET, "pl")["set"] == "pl"
    assert reader.calls == [{"set_name": AUTO_SET, "untold": "pl"}]


@pytest.mark.parametrize(("kind", "set_name"), [("cards", "pl"), ("dominoes", "double-six")])
def test_untold_is_only_for_a_set_told_from_the_photo(kind: str, set_name: str):
    reader = Reader()
    read(reader, kind, b"jpeg", set_name, "de")
    assert reader.calls == [{"set_name": set_name}]


def test_tiles_and_a_photo_of_no_set_are_read_with_none():
    reader = Reader()
    read(reader, "tiles", b"jpeg", "double-six", "de")
    read(reader, "dominoes", b"jpeg")
    assert reader.calls == [{}, {}]


def test_jobs_ask_no_recogniser_which_arguments_it_takes():
    """Every recogniser takes the whole protocol (``vision.api.Recogniser``): no signature
    sniffing, no retry with fewer arguments."""
    import vision.jobs

    source = Path(vision.jobs.__file__).read_text()
    assert "inspect" not in source and "signature" not in source


def test_an_untold_set_refused_is_read_as_if_not_given_then_with_no_set():
    reader = Reader(unknown=("xx",))
    assert read(reader, "cards", b"jpeg", AUTO_SET, "xx")["set"] is None
    assert reader.calls == [{"set_name": AUTO_SET, "untold": "xx"}, {"set_name": AUTO_SET}]
    refusing = Reader(unknown=("xx", AUTO_SET))
    read(refusing, "cards", b"jpeg", AUTO_SET, "xx")
    assert refusing.calls[-1] == {}  # at last with no set: the reading is never lost
