"""The two snapshot diffs side by side on DuckDB: one ordered pass (a window per key over the snapshot and the
current rows, used for several versions in one run) and a left join plus an anti-join on the keys (one new
version). Hand-written equivalents of macros/builders/snapshot.sql on the benchmark's snapshot data (1% of rows
changed, 0.1% deleted), in one in-memory DuckDB: best of three times, the same events from both, and the
operators of EXPLAIN ANALYZE.

    .venv/bin/python bench/profile_snapshot_diff.py 200000
"""
import sys
import time
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # noqa: E402

N = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
con = duckdb.connect()
con.execute(f"create table cur as {bench.snapshot_sql('duckdb', N, 0, 5)}")
con.execute(f"create table snap as {bench.snapshot_sql('duckdb', N, 1, 5)}")
P = ["c1", "c2", "c3", "c4", "c5"]
window = f"""
with r as (select id, {', '.join(P)}, v, 0 as cur from snap union all select id, {', '.join(P)}, 0, 1 from cur),
vs as (select v, lag(v) over (order by v) pv, lead(v) over (order by v) nv from (select distinct v from r) d),
k as (select r.*, x.pv, x.nv, {', '.join(f'lag({c}) over w as p_{c}' for c in P)}, lag(r.v) over w kpv, lead(r.v) over w knv
      from r join vs x on r.v = x.v window w as (partition by id order by r.v))
select id, v, 'upsert' from k where cur = 0 and (kpv is null or kpv <> pv or {' or '.join(f'{c} is distinct from p_{c}' for c in P)})
union all select id, nv, 'delete' from k where nv is not null and (knv is null or knv <> nv)"""
join = f"""
select s.id, s.v, 'upsert' from snap s left join cur c on c.id = s.id
where c.id is null or {' or '.join(f's.{c} is distinct from c.{c}' for c in P)}
union all select c.id, 1, 'delete' from cur c where not exists (select 1 from snap s where s.id = c.id)"""
for name, q in (("window", window), ("join", join)):
    best = min((lambda: (t := time.perf_counter(), con.execute(f"create or replace temp table out_{name} as {q}"), time.perf_counter() - t)[2])() for _ in range(3))
    print(f"{name}: {best:.3f}s, {con.execute(f'select count(*) from out_{name}').fetchone()[0]} events")
assert sorted(con.execute("select * from out_window").fetchall()) == sorted(con.execute("select * from out_join").fetchall())
for name, q in (("window", window), ("join", join)):
    plan = con.execute("explain analyze " + q).fetchall()[0][1]
    print(f"--- {name}\n" + "\n".join(l for l in plan.splitlines() if any(w in l for w in ("WINDOW", "HASH_JOIN", "ORDER", "Total Time", "SEQ_SCAN"))))
