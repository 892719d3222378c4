#!/usr/bin/env bash
# The benchmark (bench/run.py): ratios against the floor, scaling, dbt's own snapshot and a
# hand-written incremental model, late events; on DuckDB and on a throwaway Postgres it starts itself.
# Extra arguments go to bench/run.py, e.g. `bash scripts/bench.sh --size large --engines duckdb`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/bootstrap.sh
export DO_NOT_TRACK=1
exec .venv/bin/python bench/run.py "$@"
