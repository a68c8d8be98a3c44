#!/usr/bin/env bash
# Sets up what serving needs from nothing (setup.sh --runtime: no training or test packages),
# then serves the web app.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --runtime
exec .venv/bin/meldcam serve "$@"
