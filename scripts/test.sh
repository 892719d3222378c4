#!/usr/bin/env bash
# The whole test suite:
#   1. unit, functional and property tests on DuckDB and on a throwaway Postgres server that the tests
#      start themselves (auto_cdc_testkit/testing/postgres.py);
#   2. the Spark tier, tests/functional/test_spark.py, on a loopback Spark cluster that the test starts
#      itself (auto_cdc_testkit/testing/spark.py), after installing the `spark` extra.
# Extra arguments go to pytest (e.g. `bash scripts/test.sh -q`). With test paths among them, or with
# AUTO_CDC_ENGINES set, pytest runs once, on just that:
#   bash scripts/test.sh tests/unit
#   AUTO_CDC_ENGINES=duckdb bash scripts/test.sh
#   AUTO_CDC_ENGINES=spark bash scripts/test.sh tests/functional/test_spark.py
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export DO_NOT_TRACK=1
paths=0
for arg in "$@"; do
    if [ -e "${arg%%::*}" ]; then paths=1; fi
done
bash scripts/bootstrap.sh
if [ -n "${AUTO_CDC_ENGINES:-}" ] || [ "$paths" = 1 ]; then
    exec .venv/bin/python -m pytest "$@"
fi
.venv/bin/python -m pytest "$@"
echo "test.sh: the Spark tier (tests/functional/test_spark.py; README \"Running the Spark tier\")" >&2
export AUTO_CDC_ENGINES=spark
bash scripts/bootstrap.sh
rc=0
.venv/bin/python -m pytest "$@" tests/functional/test_spark.py || rc=$?
# exit status 5: the arguments (say -k) selected no Spark test
if [ "$rc" -ne 0 ] && [ "$rc" -ne 5 ]; then exit "$rc"; fi
