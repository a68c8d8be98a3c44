"""Every web setting is declared once, in ``webapp.settings``, with its default, and documented:
the table in docs/deploy.md is the declared one, and no module keeps a default of its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from webapp import create_app
from webapp.i18n import LANGUAGES, TRANSLATIONS
from webapp.settings import BY_NAME, SETTINGS, markdown_table

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "deploy.md"
WEBAPP = ROOT / "webapp"
# read or written by the app, Flask's own and not a setting of meldcam's
FLASK_OWN = {"PREFERRED_URL_SCHEME"}  # written by create_app when HTTPS is set


def test_the_docs_table_is_the_declared_one():
    text = DOCS.read_text()
    found = re.search(r"<!-- settings: begin[^>]*-->\n(.*?)\n<!-- settings: end -->", text, re.S)
    assert found, "docs/deploy.md has lost its settings table"
    assert found.group(1) == markdown_table(), (
        "docs/deploy.md's settings table differs from webapp.settings; paste this one:\n"
        + markdown_table()
    )
    names = re.findall(r"^\| `([A-Z_0-9]+)` \|", found.group(1), re.M)
    assert names == [setting.name for setting in SETTINGS]
    assert len(set(names)) == len(names)


def test_every_default_is_in_a_new_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    for name in BY_NAME:
        monkeypatch.delenv(f"MELDCAM_{name}", raising=False)
    app = create_app({"INSTANCE_PATH": str(tmp_path), "SECRET_KEY": "k"})
    for setting in SETTINGS:
        if setting.name == "SECRET_KEY":
            continue
        assert app.config[setting.name] == setting.value(tmp_path), setting.name
    assert app.config["DATABASE_URL"] == f"sqlite:///{tmp_path / 'meldcam.sqlite3'}"


def test_the_docs_write_each_default_as_it_is(tmp_path: Path):
    """Where the table writes a default in words (``shown``), the words are the value's."""
    for setting in SETTINGS:
        value = setting.value(tmp_path)
        shown = setting.shown_default()
        if setting.name == "DATABASE_URL":
            assert shown.replace("<instance>", str(tmp_path)) == value
        elif setting.name == "LANGUAGES":
            assert value == LANGUAGES and shown == ", ".join(LANGUAGES)
        elif setting.shown is not None:
            assert Path(value) == TRANSLATIONS and ROOT / shown == TRANSLATIONS, setting.name
        elif isinstance(value, str):
            assert shown == f'"{value}"'
        else:
            assert shown == repr(value)


@pytest.mark.parametrize("overridden", ["config", "environment"])
def test_overrides_still_win(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, overridden: str):
    if overridden == "environment":
        monkeypatch.setenv("MELDCAM_RECOGNISE_QUEUE", "9")
        monkeypatch.setenv("MELDCAM_PUBLIC_URL", "https://scores.example.org")
        config = {}
    else:
        config = {"RECOGNISE_QUEUE": 9, "PUBLIC_URL": "https://scores.example.org"}
    (tmp_path / "config.py").write_text("EVENTS_STREAM_S = 12.0\nRECOGNISE_QUEUE = 3\n")
    app = create_app({"INSTANCE_PATH": str(tmp_path), **config})
    assert app.config["RECOGNISE_QUEUE"] == 9  # over the instance's config.py
    assert app.config["EVENTS_STREAM_S"] == 12.0  # over the default
    assert app.config["PUBLIC_URL"] == "https://scores.example.org"


def test_no_module_keeps_a_default_of_its_own():
    """Modules read ``config[NAME]`` of a declared setting: no ``setdefault``, no
    ``.get(NAME, default)``, no name that ``webapp.settings`` does not declare."""
    read = re.compile(r"config(?:\[|\.get\(|\.setdefault\()\s*\"([A-Z][A-Z0-9_]*)\"")
    for path in sorted(WEBAPP.glob("*.py")):
        if path.name == "settings.py":
            continue
        source = path.read_text()
        assert "config.setdefault(" not in source, path.name
        assert not re.search(r"config\.get\(\s*\"[A-Z0-9_]+\"\s*,", source), path.name
        for name in read.findall(source):
            assert name in BY_NAME or name in FLASK_OWN, f"{path.name} reads {name}"
