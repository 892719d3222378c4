#!/usr/bin/env bash
# The main job: builds the SPEC's documentation examples on embedded DuckDB and prints their tables.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/bootstrap.sh
export DO_NOT_TRACK=1
exec .venv/bin/python -m auto_cdc_testkit.examples
