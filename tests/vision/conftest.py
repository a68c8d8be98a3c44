"""Shared fixtures for the vision tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiles():
    """The shipped tile recogniser (loaded once for the whole session)."""
    from vision.api import get_recogniser

    return get_recogniser("tiles")


@pytest.fixture(scope="session")
def dominoes():
    """The shipped domino recogniser."""
    from vision.api import get_recogniser

    return get_recogniser("dominoes")


@pytest.fixture(scope="session")
def cards():
    """The shipped card recogniser."""
    from vision.api import get_recogniser

    return get_recogniser("cards")
