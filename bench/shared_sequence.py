"""A feed that starts with a snapshot load: N keys whose events all share one sequence value, then one more
event. The second run re-reads the N events (no cursor_column) and must find them applied: its cost should
follow N, whatever the number of sequence columns. Times the second run's node (dbt's run_results.json) of
an SCD1 model with a one-column `sequence_by` and one with two columns (`['seq', 'ord']`) on the same feed,
at each N, and prints their ratio (the two-column model should stay within 2x the one-column one).

    .venv/bin/python bench/shared_sequence.py                          # Postgres, N = 20,000 and 40,000
    .venv/bin/python bench/shared_sequence.py --engine duckdb --keys 20000 40000
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import run as bench  # noqa: E402

from auto_cdc_testkit.harness import Project  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", choices=("postgres", "duckdb"), default="postgres")
    ap.add_argument("--keys", type=int, nargs="+", default=[20_000, 40_000])
    args = ap.parse_args()
    server = None
    try:
        env = None
        if args.engine == "postgres":
            from auto_cdc_testkit.testing import postgres
            server = postgres.start()
            env = server.env()
        results = []
        for n in args.keys:
            p = Project(Path(tempfile.mkdtemp(prefix="auto_cdc_shared_seq_")) / "project", args.engine, env,
                        name="auto_cdc_bench")
            series = bench._series(args.engine, n)
            p.execute(f"create table {p.relation('feed')} as select cast(i as bigint) as id, 1 as seq, 0 as ord, "
                      f"'v' || cast(i as varchar) as v from {series}")
            for name, seq in (("one", "seq"), ("two", ["seq", "ord"])):
                p.model(name, f"select * from {p.relation('feed')}", materialized="auto_cdc", keys=["id"],
                        sequence_by=seq, stored_as_scd_type=1)
            p.run()
            p.execute(f"insert into {p.relation('feed')} values ({n}, 2, 0, 'new')")
            node = {name: bench.dbt_timed(p, "run", name)["apply_s"] for name in ("one", "two")}
            results.append({"keys": n, "one_column_s": node["one"], "two_columns_s": node["two"],
                            "two_over_one": round(node["two"] / node["one"], 2)})
            print(json.dumps(results[-1]), flush=True)
            p.close()
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    main()
