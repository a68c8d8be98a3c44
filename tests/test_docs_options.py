"""The docs' option tables say what the scorer does (issue 69, one source for every fact): each
game's table in ``docs/choices/`` lists its ``OptionSpec`` names in order, with their values
and defaults, and its presets as ``scorer`` defines them; Remik's openings are the constants of
``scorer/remik.py``. A change to an option that leaves the docs behind fails here."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from scorer import remik
from scorer.games import GAME_MODULES, game_type
from scorer.options import OptionSpec

ROOT = Path(__file__).resolve().parents[1]
# each game's choices page; the gin page's table has no game column (one game)
DOCS: dict[str, str] = {
    "rummikub": "docs/choices/number-tiles.md",
    "remik": "docs/choices/number-tiles.md",
    "remino": "docs/choices/dominoes.md",
    "domino-gin": "docs/choices/dominoes.md",
    "gin": "docs/choices/gin.md",
}


def option_rows(path: str, game: str) -> list[list[str]]:
    """The rows of the first table under the page's options heading, as [option, values,
    default] with backticks taken off, for ``game``."""
    text = (ROOT / path).read_text(encoding="utf-8")
    section = text[text.index("\n## Options") :]
    rows: list[list[str]] = []
    for line in section.splitlines()[1:]:
        if rows and not line.startswith("|"):
            break
        if not line.startswith("|") or set(line) <= {"|", "-"}:
            continue
        cells = [cell.strip().replace("`", "") for cell in line.strip("|").split("|")]
        if cells[0] in {"game", "option"}:  # the header
            continue
        if len(cells) == 4:
            if cells[0] != game:
                continue
            cells = cells[1:]
        rows.append(cells)
    return rows


def shown(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def values_text(spec: OptionSpec) -> str:
    """The "values" cell of an option: its choices, true/false, or its bounds."""
    if spec.choices is not None:
        return ", ".join(shown(choice) for choice in spec.choices)
    if spec.kind is bool:
        return "true/false"
    if spec.minimum is not None and spec.maximum is not None:
        return f"{spec.minimum}-{spec.maximum}"
    if spec.minimum is not None:
        return f">= {spec.minimum}"
    return "any"


@pytest.mark.parametrize("game", list(GAME_MODULES))
def test_each_documented_option_table_is_the_games_options(game: str):
    rows = option_rows(DOCS[game], game)
    specs = game_type(game).options
    assert [row[0] for row in rows] == [spec.name for spec in specs], DOCS[game]
    for (name, values, default), spec in zip(rows, specs, strict=True):
        assert values == values_text(spec), f"{DOCS[game]}: {name}'s values"
        if spec.default is None:  # derived from the other options
            assert default.startswith("derived"), f"{DOCS[game]}: {name}'s default"
        else:
            first = re.split(r" \(", default, maxsplit=1)[0]  # "100 (match end, RULES.md)"
            assert first == shown(spec.default), f"{DOCS[game]}: {name}'s default"


@pytest.mark.parametrize("game", list(GAME_MODULES))
def test_each_documented_preset_is_the_games_preset(game: str):
    """Every preset is named on its game's page; one shown with its values (``extended``
    (``numbers=17, opening=86``)) shows the scorer's."""
    text = " ".join((ROOT / DOCS[game]).read_text(encoding="utf-8").split())
    for name, values in game_type(game).presets.items():
        assert f"`{name}`" in text, f"{DOCS[game]} does not name {game}'s preset {name}"
        written = re.search(rf"`{re.escape(name)}` \(`([^`]*)`\)", text)
        if written:
            assert written.group(1) == ", ".join(f"{k}={shown(v)}" for k, v in values.items())


def test_remiks_openings_are_written_once():
    """The docs give the scorer's constants, and the option's help is made from them."""
    (_name, _values, default) = next(
        row for row in option_rows(DOCS["remik"], "remik") if row[0] == "opening"
    )
    basic, extended = remik.BASIC_OPENING, remik.EXTENDED_OPENING
    assert default.startswith(f"derived: {basic} with 13 numbers, {extended} ")
    spec = next(spec for spec in remik.OPTIONS if spec.name == "opening")
    assert f"default {basic} with 13 numbers, {extended} with 17" in spec.help
    assert remik.PRESETS["extended"]["opening"] == extended
    source = (ROOT / "scorer" / "remik.py").read_text(encoding="utf-8")
    assert len(re.findall(rf"\b{extended}\b", source)) == 0  # 36 + 50, written as such
    assert len(re.findall(rf"\b{basic}\b", source)) == 1
