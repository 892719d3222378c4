"""The two snapshot diffs side by side on DuckDB: one ordered pass (a window per key over the snapshot and the
current rows, used for several versions in one run) and a left join plus an anti-join on the keys (one new
version). Hand-written equivalents of macros/builders/snapshot.sql on the benchmark's snapshot data (1% of rows
changed, 0.1% deleted), in one in-memory DuckDB: best of three times, the same events from both, and the
operators of EXPLAIN ANALYZE.

    .venv/bin/python bench/profile_snapshot_diff.py 200000
    .venv/bin/python bench/profile_snapshot_diff.py 100000 --postgres   # on a throwaway Postgres it starts
"""
import sys
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import run as bench  # noqa: E402

P = ["c1", "c2", "c3", "c4", "c5"]
WINDOW = f"""
with r as (select id, {', '.join(P)}, v, 0 as cur from snap union all select id, {', '.join(P)}, 0, 1 from cur),
vs as (select v, lag(v) over (order by v) pv, lead(v) over (order by v) nv from (select distinct v from r) d),
k as (select r.*, x.pv, x.nv, {', '.join(f'lag({c}) over w as p_{c}' for c in P)}, lag(r.v) over w kpv,
        lead(r.v) over w knv
      from r join vs x on r.v = x.v window w as (partition by id order by r.v))
select id, v, 'upsert' from k
where cur = 0 and (kpv is null or kpv <> pv or {' or '.join(f'{c} is distinct from p_{c}' for c in P)})
union all select id, nv, 'delete' from k where nv is not null and (knv is null or knv <> nv)"""
JOIN = f"""
select s.id, s.v, 'upsert' from snap s left join cur c on c.id = s.id
where c.id is null or {' or '.join(f's.{c} is distinct from c.{c}' for c in P)}
union all select c.id, 1, 'delete' from cur c where not exists (select 1 from snap s where s.id = c.id)"""
PLAN_WORDS = ("WINDOW", "HASH_JOIN", "ORDER", "Total Time", "WindowAgg", "Sort", "Hash", "Execution Time")


def profile(execute, fetch, engine: str, n: int) -> None:
    execute(f"create table cur as {bench.snapshot_sql(engine, n, 0, 5)}")
    execute(f"create temp table snap as {bench.snapshot_sql(engine, n, 1, 5)}")
    if engine == "postgres":
        execute("create index on cur (id)")
        execute("analyze cur")
        execute("analyze snap")
    for name, q in (("window", WINDOW), ("join", JOIN)):
        times = []
        for _ in range(3):
            execute(f"drop table if exists out_{name}")
            t0 = time.perf_counter()
            execute(f"create temp table out_{name} as {q}")
            times.append(time.perf_counter() - t0)
        print(f"{name}: {min(times):.3f}s, {fetch(f'select count(*) from out_{name}')[0][0]} events")
    assert sorted(fetch("select * from out_window")) == sorted(fetch("select * from out_join"))
    for name, q in (("window", WINDOW), ("join", JOIN)):
        rows = fetch(("explain analyze " if engine == "duckdb" else "explain (analyze, costs off) ") + q)
        plan = rows[0][1] if engine == "duckdb" else "\n".join(r[0] for r in rows)
        print(f"--- {name}\n" + "\n".join(line for line in plan.splitlines() if any(w in line for w in PLAN_WORDS)))


def main(argv: list[str]) -> int:
    n = int(argv[0]) if argv and argv[0].isdigit() else 200_000
    if "--postgres" not in argv:
        con = duckdb.connect()
        profile(con.execute, lambda q: con.execute(q).fetchall(), "duckdb", n)
        return 0
    import psycopg2
    from auto_cdc_testkit.testing import postgres
    server = postgres.start()
    try:
        e = server.env()
        con = psycopg2.connect(host=e["DBT_PG_HOST"], port=int(e["DBT_PG_PORT"]), user=e["DBT_PG_USER"],
                               password=e["DBT_PG_PASSWORD"], dbname=e["DBT_PG_DBNAME"])
        con.autocommit = True
        cur = con.cursor()

        def fetch(q):
            cur.execute(q)
            return cur.fetchall()
        profile(cur.execute, fetch, "postgres", n)
        con.close()
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
