#!/usr/bin/env bash
# The whole test suite: unit tests, then functional and property tests on DuckDB and on a throwaway
# Postgres server that the tests start themselves (see dbt_auto_cdc/testing/postgres.py).
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -k duckdb`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/bootstrap.sh
export DO_NOT_TRACK=1
exec .venv/bin/python -m pytest "$@"
