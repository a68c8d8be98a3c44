"""``vision.jobs.read``: which arguments reach the recogniser, and what a set it refuses costs
(never the reading)."""

from __future__ import annotations

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

    def recognise(self, image: bytes, set_name: str | None = None, untold: str | None = None):
        arguments = {"set_name": set_name, "untold": untold}
        self.calls.append({k: v for k, v in arguments.items() if v is not None})
        if set_name in self.unknown or untold in self.unknown:
            raise UnknownSet(f"unknown set {set_name!r} / {untold!r}")
        return {"pieces": [], "set": untold}


class SetOnlyReader:
    """A reader from before ``untold``: takes a set only."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []

    def recognise(self, image: bytes, set_name: str | None = None):
        self.calls.append({"set_name": set_name})
        return {"pieces": []}


def test_untold_reaches_a_reader_that_tells_the_set_from_the_photo():
    reader = Reader()
    assert read(reader, "cards", b"jpeg", AUTO_SET, "pl")["set"] == "pl"
    assert reader.calls == [{"set_name": AUTO_SET, "untold": "pl"}]


@pytest.mark.parametrize(("kind", "set_name"), [("cards", "pl"), ("dominoes", "double-six")])
def test_untold_is_only_for_a_set_told_from_the_photo(kind: str, set_name: str):
    reader = Reader()
    read(reader, kind, b"jpeg", set_name, "de")
    assert reader.calls == [{"set_name": set_name}]


def test_a_reader_without_untold_still_reads_for_the_set():
    reader = SetOnlyReader()
    read(reader, "cards", b"jpeg", AUTO_SET, "pl")
    assert reader.calls == [{"set_name": AUTO_SET}]


def test_an_untold_set_refused_is_read_as_if_not_given_then_with_no_set():
    reader = Reader(unknown=("xx",))
    assert read(reader, "cards", b"jpeg", AUTO_SET, "xx")["set"] is None
    assert reader.calls == [{"set_name": AUTO_SET, "untold": "xx"}, {"set_name": AUTO_SET}]
    refusing = Reader(unknown=("xx", AUTO_SET))
    read(refusing, "cards", b"jpeg", AUTO_SET, "xx")
    assert refusing.calls[-1] == {}  # at last with no set: the reading is never lost
