"""The translation catalogs in ``webapp/translations``: extract, update, compile, measure, and a
pseudo-translation for tests (``scripts/i18n.py`` is the command line).

Two gettext domains: ``messages`` (templates, the app's and the scorer's Python, the games'
catalogue; keywords ``gettext``, ``lazy_gettext``, ``ngettext`` and the scorer's ``say`` /
``say_n``) and ``js`` (the page scripts' ``t()`` / ``tn()``). The ``.po`` files are committed;
the ``.mo`` files are built by ``compile_catalogs`` (``scripts/setup.sh`` runs it).
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterable
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.frontend import CommandLineInterface
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
TRANSLATIONS = Path(__file__).resolve().parent / "translations"
DOMAINS: dict[str, dict[str, list[str] | str]] = {
    "messages": {
        "mapping": "babel.cfg",
        "keywords": ["lazy_gettext", "gettext", "ngettext:1,2", "say:2", "say_n:2,3"],
        "paths": ["webapp", "scorer"],
    },
    "js": {"mapping": "babel-js.cfg", "keywords": ["t", "tn:1,2"], "paths": ["webapp/static"]},
}
# pseudo-translation markers: every translated text is shown between them
PSEUDO_OPEN = "⟦"
PSEUDO_CLOSE = "⟧"


def languages() -> list[str]:
    from webapp.i18n import DEFAULT_LANGUAGE, LANGUAGES

    return [code for code in LANGUAGES if code != DEFAULT_LANGUAGE]


def _babel(*arguments: str) -> None:
    with contextlib.redirect_stdout(io.StringIO()):
        CommandLineInterface().run(["pybabel", "-q", *arguments])


def extract_templates(out: Path = TRANSLATIONS) -> dict[str, Path]:
    """Read every text from the sources into ``<out>/<domain>.pot``."""
    templates = {}
    for domain, spec in DOMAINS.items():
        template = out / f"{domain}.pot"
        _babel(
            "extract",
            f"--mapping={TRANSLATIONS / str(spec['mapping'])}",
            *(["--no-default-keywords"] if domain == "js" else []),
            *[f"--keyword={keyword}" for keyword in spec["keywords"]],
            "--sort-by-file",
            "--no-wrap",
            "--omit-header" if out != TRANSLATIONS else "--project=meldcam",
            f"--output-file={template}",
            *[str(ROOT / path) for path in spec["paths"]],
        )
        # source locations relative to the repository, not this machine's paths
        text = template.read_text(encoding="utf-8").replace(f"{ROOT}/", "")
        template.write_text(text, encoding="utf-8")
        templates[domain] = template
    return templates


def extract() -> None:
    """Extract the templates and bring every language's catalogs up to date with them."""
    for domain, template in extract_templates().items():
        for language in languages():
            po = TRANSLATIONS / language / "LC_MESSAGES" / f"{domain}.po"
            command = "update" if po.exists() else "init"
            extra = ["--ignore-obsolete"] if command == "update" else []
            _babel(
                command,
                f"--domain={domain}",
                f"--input-file={template}",
                f"--output-dir={TRANSLATIONS}",
                f"--locale={language}",
                "--no-wrap",
                *extra,
            )


def compile_catalogs(directory: Path = TRANSLATIONS) -> None:
    for domain in DOMAINS:
        _babel("compile", f"--domain={domain}", f"--directory={directory}")


def _translated(message: object) -> bool:
    string = getattr(message, "string", None)
    done = all(string) if isinstance(string, tuple) else bool(string)
    return done and not getattr(message, "fuzzy", False)


def completeness() -> dict[str, dict[str, tuple[int, int]]]:
    """language -> domain -> (translated, total); a fuzzy message does not count."""
    found: dict[str, dict[str, tuple[int, int]]] = {}
    for language in languages():
        for domain in DOMAINS:
            po = TRANSLATIONS / language / "LC_MESSAGES" / f"{domain}.po"
            with po.open("rb") as handle:
                catalog = read_po(handle, locale=language)
            messages = [m for m in catalog if m.id]
            done = sum(1 for m in messages if _translated(m))
            found.setdefault(language, {})[domain] = (done, len(messages))
    return found


def pseudo_catalogs(out: Path, language: str) -> None:
    """A pseudo-translation of today's sources into ``<out>/<language>/LC_MESSAGES``: every
    text between the markers (placeholders kept), compiled. A page shown in it with any text
    outside the markers has a text that skipped the catalog."""
    templates = extract_templates(out)
    folder = out / language / "LC_MESSAGES"
    folder.mkdir(parents=True, exist_ok=True)
    for domain, template in templates.items():
        with template.open("rb") as handle:
            source = read_po(handle)
        catalog = Catalog(locale=language, domain=domain)
        for message in source:
            if not message.id:
                continue
            if isinstance(message.id, tuple | list):
                forms = [message.id[0]] + [message.id[1]] * (catalog.num_plurals - 1)
                string: str | tuple[str, ...] = tuple(_wrap(form) for form in forms)
            else:
                string = _wrap(message.id)
            catalog.add(message.id, string, flags=message.flags)
        with (folder / f"{domain}.po").open("wb") as handle:
            write_po(handle, catalog)
        with (folder / f"{domain}.mo").open("wb") as handle:
            write_mo(handle, catalog)


def _wrap(text: str) -> str:
    return f"{PSEUDO_OPEN}{text}{PSEUDO_CLOSE}"


_BRACKETED = re.compile(f"{PSEUDO_OPEN}[^{PSEUDO_OPEN}{PSEUDO_CLOSE}]*{PSEUDO_CLOSE}")
# what a text may show outside the catalog: piece names (codes, the same in every language) and
# links; the words a caller allows (player names, the brand, the languages' own names)
_PIECE = re.compile(r"\b(?:(?:red|orange|blue|black)-\d+|joker|\d+-\d+|(?:10|[2-9AJQK])[CDHS])\b")
_LINK = re.compile(r"https?://\S+|/[\w/.?=&-]+")


def outside_catalog(text: str, allowed: Iterable[str] = ()) -> str:
    """The words of ``text`` (shown under the pseudo-translation) that no catalog text gave:
    the bracketed parts, piece names, links, numbers and the ``allowed`` words taken out."""
    while True:
        shorter = _BRACKETED.sub(" ", text)
        if shorter == text:
            break
        text = shorter
    text = _LINK.sub(" ", _PIECE.sub(" ", text))
    words = set(allowed)
    return " ".join(w for w in re.findall(r"[^\W\d_]+", text) if w not in words)
