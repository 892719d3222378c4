#!/usr/bin/env bash
# The test suite (docs/testing.md describes the tiers and their durations):
#
#   bash scripts/test.sh            everything CI runs:
#                                   1. unit, functional and property tests on DuckDB and on one throwaway
#                                      Postgres server (started once for the session), on AUTO_CDC_WORKERS
#                                      pytest-xdist workers (default 2; 0 runs them in this process);
#                                   2. the quick tier on DuckDB with the oldest dbt-core the package supports (1.8,
#                                      requirements-oldest.txt, in a venv of its own: .venv-oldest);
#                                   3. the Spark tier, tests/functional/test_spark.py, on a loopback Spark
#                                      cluster that the test starts itself, after installing the `spark` extra.
#   bash scripts/test.sh --quick    the edit-run loop: unit tests and the DuckDB core fixtures (marker `quick`).
#   AUTO_CDC_DBT=oldest bash scripts/test.sh --quick    the same on the oldest dbt-core
#
# Extra arguments go to pytest (e.g. `bash scripts/test.sh -x`). With test paths among them, or with
# AUTO_CDC_ENGINES set, pytest runs once, on just that:
#   bash scripts/test.sh tests/unit
#   AUTO_CDC_ENGINES=duckdb bash scripts/test.sh
#   AUTO_CDC_ENGINES=spark bash scripts/test.sh tests/functional/test_spark.py
# Each run prints the property-test seed (AUTO_CDC_PROPERTY_SEED repeats it), the slowest tests and the
# time per module at the end.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export DO_NOT_TRACK=1
quick=0
paths=0
args=()
for arg in "$@"; do
    if [ "$arg" = "--quick" ]; then quick=1; continue; fi
    if [ -e "${arg%%::*}" ]; then paths=1; fi
    args+=("$arg")
done
workers="${AUTO_CDC_WORKERS:-2}"
xdist=()
if [ "$workers" != 0 ]; then xdist=(-n "$workers" --dist worksteal); fi
report=(--durations=15)
bash scripts/bootstrap.sh
if [ "$quick" = 1 ]; then
    export AUTO_CDC_ENGINES="${AUTO_CDC_ENGINES:-duckdb}"
    venv=.venv
    if [ "${AUTO_CDC_DBT:-}" = oldest ]; then venv=.venv-oldest; bash scripts/bootstrap.sh; fi
    exec "$venv/bin/python" -m pytest "${xdist[@]}" "${report[@]}" -m quick "${args[@]}"
fi
if [ -n "${AUTO_CDC_ENGINES:-}" ] || [ "$paths" = 1 ]; then
    if [ "${AUTO_CDC_ENGINES:-}" = spark ]; then xdist=(); fi
    exec .venv/bin/python -m pytest "${xdist[@]}" "${report[@]}" "${args[@]}"
fi
.venv/bin/python -m pytest "${xdist[@]}" "${report[@]}" "${args[@]}"
echo "test.sh: the DuckDB quick tier on the oldest supported dbt-core (requirements-oldest.txt, in .venv-oldest)" >&2
AUTO_CDC_DBT=oldest bash scripts/bootstrap.sh
AUTO_CDC_ENGINES=duckdb .venv-oldest/bin/python -m pytest "${xdist[@]}" "${report[@]}" -m quick "${args[@]}"
echo "test.sh: the Spark tier (tests/functional/test_spark.py; docs/spark.md, \"Running the Spark tier\")" >&2
export AUTO_CDC_ENGINES=spark
bash scripts/bootstrap.sh
rc=0
.venv/bin/python -m pytest "${report[@]}" "${args[@]}" tests/functional/test_spark.py || rc=$?
# exit status 5: the arguments (say -k) selected no Spark test
if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ]; then exit "$rc"; fi
