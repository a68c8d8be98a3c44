#!/usr/bin/env python3
"""The translation catalogs (see ``webapp/catalogs.py``):

python scripts/i18n.py extract   # sources -> messages.pot, js.pot; update each language's .po
python scripts/i18n.py compile   # .po -> .mo (scripts/setup.sh runs this)
python scripts/i18n.py stats     # how complete each language is
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from webapp import catalogs


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else "stats"
    if command == "extract":
        catalogs.extract()
    elif command == "compile":
        catalogs.compile_catalogs()
    elif command == "stats":
        for language, domains in catalogs.completeness().items():
            for domain, (done, total) in domains.items():
                print(f"{language} {domain}: {done}/{total} ({100 * done / max(total, 1):.1f} %)")
    else:
        sys.exit(f"unknown command {command!r}: use extract, compile or stats")


if __name__ == "__main__":
    main()
