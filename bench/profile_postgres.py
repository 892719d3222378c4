"""Plans of the two slowest SCD1 statements on Postgres (the profile behind a missed target).

    .venv/bin/python bench/profile_postgres.py 2000000 100000     # target rows, batch size

It starts a throwaway Postgres, builds an SCD1 target of T rows with the package (first dbt run), stages a batch
of B events like the benchmark's, then runs EXPLAIN ANALYZE of hand-written equivalents of the package's
"stale rows" (target join touched keys, not in the recomputed rows) and "desired rows" (the touched keys' events
from the log, latest per key) statements: first as the package runs them (its temp tables are never analyzed:
autovacuum skips temp tables, and the target's statistics date from its first load), then after ANALYZE of the
temp tables, then after ANALYZE of the target and the log too.
"""
from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import run as bench  # noqa: E402

from auto_cdc_testkit.harness import Project  # noqa: E402
from auto_cdc_testkit.testing import postgres  # noqa: E402

COLS = ["id", "seq", "c1", "c2", "c3", "c4", "c5"]


def main(argv: list[str]) -> int:
    T, B = (int(argv[0]), int(argv[1])) if len(argv) >= 2 else (2_000_000, 100_000)
    tmp = Path(tempfile.mkdtemp(prefix="auto_cdc_pgprof_"))
    srv = postgres.start()
    try:
        p = Project(tmp / "project", "postgres", srv.env(), name="pgprof")
        bench.replace_table(p, "feed", bench.initial_feed_sql("postgres", T, 1, 5))
        bench.auto_cdc_model(p, "scd1_t", "feed", 1)
        p.run()
        bench.replace_table(p, "feed", bench.batch_sql("postgres", B, T, 1, 1, 5, late=0.0))
        con = p._connect()
        cur = con.cursor()
        tgt, log, feed = p.relation("scd1_t"), p.relation("scd1_t__auto_cdc_log"), p.relation("feed")
        same = " and ".join(f'd."{c}" is not distinct from t."{c}"' for c in COLS)
        cur.execute(f"create temp table affected as select distinct id from {feed}")
        cur.execute(f"create temp table desired as select {', '.join('f.' + c for c in COLS)} from {feed} f "
                    f"where op = 'UPSERT'")
        queries = {
            "stale rows": f"select t.* from {tgt} t join affected a on t.id = a.id where not exists "
                          f"(select 1 from desired d where d.id = t.id and {same})",
            "desired rows": f"select * from (select l.*, row_number() over (partition by l.id order by l.seq desc) rn "
                            f"from {log} l join affected a on l.id = a.id) r where rn = 1",
        }
        print(f"# SCD1 target of {T:,} rows, batch of {B:,} events\n")

        def measure(label: str) -> None:
            for name, q in queries.items():
                cur.execute("explain (analyze, format text) " + q)
                plan = [r[0] for r in cur.fetchall()]
                print(f"{label:48s} {name:13s} {plan[-1].strip()}")
                print("    " + "\n    ".join(line.rstrip() for line in plan[:12]))

        measure("as the package runs (temp tables not analyzed)")
        cur.execute("analyze affected")
        cur.execute("analyze desired")
        measure("temp tables analyzed")
        cur.execute(f"analyze {tgt}")
        cur.execute(f"analyze {log}")
        measure("temp tables, target and log analyzed")
        p.close()
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
