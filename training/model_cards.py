"""The model cards' metrics tables, rendered from the kinds' metrics files
(``models/<kind>.json``, ``vision/metrics.py``): ``python -m training.model_cards`` rewrites
every table between its markers; ``--check`` exits 1 where one differs (the test does too).

A table is marked in a card (or any doc in ``DOCS``) by::

    <!-- metrics:start NAME [KIND,KIND...] -->
    ...generated...
    <!-- metrics:end -->

NAME ``thresholds``: the thresholds of each KIND (default: the card's own kind, its file's
name); any other NAME: that figures entry of the kind (``meldcam eval --record NAME``), one row
a group of photos. Nothing else in the card is generated: its prose names the JSON keys.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from vision.metrics import MODELS_DIR, load_metrics, metrics_path

ROOT = MODELS_DIR.parent
DOCS = (
    MODELS_DIR / "tiles.md",
    MODELS_DIR / "dominoes.md",
    MODELS_DIR / "cards.md",
    ROOT / "docs" / "choices" / "vision.md",
)
BLOCK = re.compile(
    r"(?P<start><!-- metrics:start (?P<name>[\w.-]+)(?: (?P<kinds>[\w,]+))? -->\n)"
    r"(?P<body>.*?)"
    r"(?P<end><!-- metrics:end -->)",
    re.S,
)
# eval's group names as a card's rows say them (a figures entry's "labels" come first)
GROUP_LABELS = {
    "all": "all labelled",
    "held_out": "held out (never trained on)",
    "trained_on": "trained on",
    "measurement_only": "measurement only (never trained on)",
    "crops": "single-piece crops",
    "synthetic_test": "generated scenes",
}


def _number(value: float | None, places: int = 3) -> str:
    return "-" if value is None else f"{value:.{places}f}"


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def figures_table(kind: str, name: str, entry: dict[str, Any]) -> str:
    """A figures entry as a table, one row a group; a group whose figures equal a row's above
    (every photo measurement-only: the same as all) is left out, and so are the seconds a photo
    (the JSON keeps them: they move with the machine's load, the cards' "Speed" measures)."""
    labels = entry.get("labels", {})
    groups = entry["groups"]
    free = any(g.get("f1_partly_shown_free") is not None for g in groups.values())
    head = ["photos", "n", "precision", "recall", "F1"]
    head += ["F1 (partly shown free)"] * free + ["read exactly", "sure precision", "sure share"]
    lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 1) + "|"]
    shown: list[dict[str, Any]] = []
    for group, g in groups.items():
        figures = {key: value for key, value in g.items() if key != "seconds_per_photo"}
        if figures in shown:
            continue
        shown.append(figures)
        label = labels.get(group) or GROUP_LABELS.get(group) or group.replace("source ", "... ")
        exact = g.get("exact_photos")
        cells = [label, str(g["photos"]), _number(g["precision"]), _number(g["recall"])]
        bold = group == entry.get("highlight", "all")
        cells.append(f"**{_number(g['f1'])}**" if bold else _number(g["f1"]))
        if free:
            cells.append(_number(g.get("f1_partly_shown_free")))
        cells.append("-" if exact is None else f"{exact} ({_share(exact / g['photos'])})")
        cells += [_number(g.get("sure_precision")), _share(g.get("sure_share"))]
        lines.append("| " + " | ".join(cells) + " |")
    source = f"`models/{kind}.json`, figures `{name}`: `{entry['command']}`, {entry['date']}"
    if entry.get("note"):
        source += f"; {entry['note']}"
    return "\n".join(lines) + f"\n\n({source}.)\n"


def thresholds_table(kinds: list[str], metrics: dict[str, dict[str, Any]]) -> str:
    """The thresholds of ``kinds``: name, score, value, what chose it."""
    lines = [
        "| kind | threshold (JSON key) | score | value | chosen by | calibration |",
        "|---|---|---|---:|---|---|",
    ]
    for kind in kinds:
        for name, record in metrics[kind]["thresholds"].items():
            calibration = record.get("calibration", {})
            said = []
            if "share" in calibration:
                said.append(f"{_share(calibration['share'])} sure")
            if "errors" in calibration and "accepted" in calibration:
                said.append(f"{calibration['errors']} wrong of {calibration['accepted']:,}")
            if calibration.get("precision") is not None:
                said.append(f"precision {calibration['precision']:.4f}")
            if "bound" in calibration:
                said.append(f"bound {calibration['bound']:.4f}")
            if record.get("note"):
                said.append(record["note"])
            if record.get("checks"):
                said.append(f"checked: {record['checks']}")
            lines.append(
                f"| {kind} | `thresholds.{name}` | {record.get('score', '-')} "
                f"| **{record['value']}** | `{record['command']}`, {record['date']} "
                f"| {'; '.join(said) or '-'} |"
            )
    return "\n".join(lines) + "\n"


def render(text: str, own_kind: str | None, models_dir: Path = MODELS_DIR) -> str:
    """``text`` with every marked table rendered again from the metrics files."""
    cache: dict[str, dict[str, Any]] = {}

    def metrics_of(kind: str) -> dict[str, Any]:
        if kind not in cache:
            cache[kind] = load_metrics(metrics_path(kind, models_dir))
        return cache[kind]

    def block(match: re.Match[str]) -> str:
        if match["kinds"]:
            kinds = match["kinds"].split(",")
        elif own_kind is not None:
            kinds = [own_kind]
        else:
            raise ValueError(f"a metrics table outside a model card names no kind: {match[0]}")
        if match["name"] == "thresholds":
            body = thresholds_table(kinds, {k: metrics_of(k) for k in kinds})
        else:
            (kind,) = kinds
            entry = metrics_of(kind)["figures"].get(match["name"])
            if entry is None:
                raise ValueError(f"models/{kind}.json has no figures {match['name']!r}")
            body = figures_table(kind, match["name"], entry)
        return match["start"] + body + match["end"]

    return BLOCK.sub(block, text)


def card_kind(path: Path) -> str | None:
    """A model card's kind (``models/cards.md``: cards); None for another doc."""
    return path.stem if path.parent == MODELS_DIR else None


def stale(paths: tuple[Path, ...] = DOCS) -> list[Path]:
    """The docs whose marked tables differ from their rendering."""
    return [path for path in paths if render(text := path.read_text(), card_kind(path)) != text]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.model_cards", description=__doc__)
    parser.add_argument("--check", action="store_true", help="only say which tables are stale")
    args = parser.parse_args(argv)
    if args.check:
        for path in (found := stale()):
            print(f"{path.relative_to(ROOT)}: its metrics tables differ from models/*.json")
        return 1 if found else 0
    for path in DOCS:
        text = path.read_text()
        rendered = render(text, card_kind(path))
        if rendered != text:
            path.write_text(rendered)
            print(f"rendered {path.relative_to(ROOT)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
