#!/usr/bin/env bash
# The examples job (about a minute): builds the documentation examples E1-E4 (models/examples) through integration_tests/ on
# embedded DuckDB and prints, per example, the input events, the expected table, the table the package
# built and `matches` or the difference; exits non-zero on a mismatch. Arguments go to
# auto_cdc_testkit/examples.py (e.g. --expected MODEL=FILE.csv).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/bootstrap.sh >&2
export DO_NOT_TRACK=1
exec .venv/bin/python -m auto_cdc_testkit.examples "$@"
