"""Shared fixtures for the vision tests."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiles():
    """The shipped tile recogniser (loaded once for the whole session)."""
    from vision.api import get_recogniser

    return get_recogniser("tiles")
