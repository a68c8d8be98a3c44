#!/usr/bin/env bash
# Sets up what serving needs from nothing (setup.sh --runtime: no training or test packages),
# then serves the web app.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --runtime
# Two server processes on one port (one per core of a small machine): a request never waits for
# another process that is busy reading a photo (docs/choices/webapp.md, "Every phone at the
# table"). A --processes among the arguments wins. --tls (HTTPS for the phones' cameras, the
# live view: README) is passed through and serves with one process.
processes=(--processes 2)
for argument in "$@"; do
  if [[ $argument == --tls ]]; then processes=(); fi
done
exec .venv/bin/meldcam serve "${processes[@]}" "$@"
