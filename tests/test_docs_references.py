"""References into the model cards and the experiment digests stay true (issue 69).

Code comments, docstrings and docs point into a card's or digest's sections by title:
``models/cards.md, "Tight fans"``, ``docs/experiments/dominoes.md ("Large pips")``. When a
section moves (the cards were cut to short cards, their history moved to
``docs/experiments/``), every such reference must follow it. This test reads every text file of
the project, joins comment lines so that a title wrapped across two lines reads whole, and
checks that each quoted title names a heading of the file the reference names (the heading
itself or its start: ``"Real photos"`` names ``### Real photos (never trained on)``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = (
    "vision",
    "training",
    "datasets",
    "benchmarks",
    "docs",
    "tests",
    "webapp",
    "scripts",
    "scorer",
    "meldcam",
    "models",
)
SUFFIXES = {".py", ".md", ".sh", ".js", ".html", ".css", ".toml", ".txt"}
SKIP_PARTS = {"generated", "__pycache__", "node_modules"}

# a model card or digest named by path, then one or more quoted titles: 'models/cards.md, "A"',
# 'models/cards.md ("A", "B")', 'models/cards.md, "A" and "B"'
REFERENCE = re.compile(
    r"(?P<file>(?:models|docs/experiments)/[\w-]+\.md)(?:,\s*|\s*\(\s*)"
    r"(?P<titles>\"[^\"\n]{1,80}\"(?:(?:,\s*|\s+and\s+)\"[^\"\n]{1,80}\")*)"
)
TITLE = re.compile(r"\"([^\"]+)\"")
# a line break inside a comment or docstring, with the next line's comment marker
WRAP = re.compile(r"\s*\n\s*(?:#+|//|\*)?[ \t]*")


def project_files() -> list[Path]:
    files = [ROOT / "README.md"]
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*")):
            if (
                path.is_file()
                and path.suffix in SUFFIXES
                and path != Path(__file__).resolve()
                and not SKIP_PARTS & set(path.relative_to(ROOT).parts)
            ):
                files.append(path)
    return files


def headings(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # a shell comment in a block is no heading
    return [line.lstrip("#").strip() for line in text.splitlines() if line.startswith("#")]


def references(text: str) -> list[tuple[str, str]]:
    joined = WRAP.sub(" ", text)
    found = []
    for match in REFERENCE.finditer(joined):
        for title in TITLE.findall(match["titles"]):
            found.append((match["file"], title))
    return found


def names_heading(title: str, heads: list[str]) -> bool:
    return any(head == title or head.startswith(title + " ") for head in heads)


def broken_references() -> list[str]:
    broken = []
    cache: dict[str, list[str] | None] = {}
    for path in project_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for target, title in references(text):
            if target not in cache:
                target_path = ROOT / target
                cache[target] = headings(target_path) if target_path.is_file() else None
            heads = cache[target]
            where = path.relative_to(ROOT)
            if heads is None:
                broken.append(f"{where}: {target} does not exist")
            elif not names_heading(title, heads):
                broken.append(f'{where}: {target} has no section "{title}"')
    return broken


def test_reference_parser_reads_wrapped_titles():
    text = '# the reader (models/cards.md, "Crossed Q", "Stacked\n    # pips").\n'
    assert references(text) == [
        ("models/cards.md", "Crossed Q"),
        ("models/cards.md", "Stacked pips"),
    ]


def test_every_section_reference_names_a_heading():
    assert broken_references() == []


def card_section_references() -> list[str]:
    """References from outside ``models/`` into a model card's sections: code and docs name a
    setting or a metrics file's key (``models/tiles.json``, ``thresholds.sure``) or a digest's
    section (``docs/experiments/tiles.md, "The sure flag"``), never a card's section, so a card
    can be cut and regenerated without breaking them."""
    found = []
    for path in project_files():
        if path.parent == ROOT / "models":
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for target, title in references(text):
            if target.startswith("models/"):
                found.append(f'{path.relative_to(ROOT)}: {target}, "{title}"')
    return found


def test_nothing_outside_the_cards_points_into_a_cards_sections():
    assert card_section_references() == []


if __name__ == "__main__":
    print("\n".join(broken_references()) or "every reference names a heading")
