"""Spark (Delta Lake and parquet) vs DuckDB on the same auto_cdc job, and each one's scaling with the
target's size.

The job: an SCD2 target of N keys (one event each), then a batch of B updates to B keys spread over
the key space, read through cursor_column. The cursor reads rows at or above the last run's
greatest value (rows with that value may still arrive), so the first run's greatest value is one
row's (key 0, loaded = 1) and the batch's is above it (loaded = 2): the incremental run reads the batch
and that one row (an event already logged, a duplicate), not the N rows again. We time the
incremental run's model (dbt's own execution time in run_results.json, without the driver's start)
at N and at 10 N with the same batch, and on Spark the jobs the incremental run started. On Delta
the run MERGEs into the target; on parquet the target is bucketed with spark_buckets = N /
ROWS_PER_BUCKET, the sizing docs/spark.md recommends, so a bucket holds about the same number of
rows at both sizes and the batch's B keys touch at most B buckets. Either way the rows the run
rewrites, and so its time, should stay about flat (ratio near 1), where a full rewrite grows 10x.

    .venv/bin/python bench/spark_scaling.py [N] [B] [--rows-per-bucket R] [--engines duckdb,delta,parquet,least,checked,inline]
                                            [--json PATH] [--conf KEY=VALUE ...] [--only-n]

N defaults to 100000 and B to 1% of N; R (rows per bucket) to 5000. At large N a larger R keeps the
number of partitions in the embedded Derby metastore down (R=50000: 200 buckets at 10 M). --engines
runs only the engines listed, in that order (default all three; delta and parquet are Spark with that
file_format); a Spark format listed twice runs twice. The first runs in a Spark driver are its slowest (the JVM
has not compiled its code yet): `--engines delta,delta` times the second against a warm driver.
--json writes the result rows to PATH (after each row, so a run stopped part way keeps what it
measured). --conf adds or overrides a Spark setting of the driver (e.g. spark.driver.memory=4g); an
executor can have at most its worker's memory, 1g unless AUTO_CDC_SPARK_WORKER_MEMORY says otherwise
(e.g. AUTO_CDC_SPARK_WORKER_MEMORY=5g with --conf spark.executor.memory=4g). --only-n runs the N-row
target alone (a 1% batch of a large target, without its 10x).

--engines least runs the job through `least_scd2_delta` instead (LEAST below), the least an SCD2 apply that
keeps an event log sends on Delta, and checks its target's row counts: a lower bound for the package's run.
--engines checked and --engines inline run it through `least_checked_scd2_delta` and `least_inline_scd2_delta`
(LEAST_CHECKED, LEAST_INLINE): the least plus the package's checks, a lock and a run log, in their leanest forms.

It starts its own loopback Spark cluster (auto_cdc_testkit.testing.spark), like the tests, and runs
dbt in this process, so every Spark run shares one driver (its start is not in any timing).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auto_cdc_testkit.harness import Project  # noqa: E402
from run import least_materialization  # noqa: E402

ROWS_PER_BUCKET = 5000

FEED = """
{{ config(materialized='table') }}
{%- set n = var('n') | int -%}{%- set b = var('b') | int -%}{%- set step = var('step') | int -%}
select k, 1 as seq, 'v0' as val, case when k = 0 then 1 else 0 end as loaded from {{ range_sql(n) }}
{% if step > 0 %}
union all
select k * {{ (n // b) }} as k, 2 as seq, 'v1' as val, 2 as loaded from {{ range_sql(b) }}
{% endif %}
"""

RANGE = """
{% macro range_sql(n) %}{{ return(adapter.dispatch('range_sql')(n)) }}{% endmacro %}
{% macro default__range_sql(n) %}(select range as k from range({{ n }})) r{% endmacro %}
{% macro spark__range_sql(n) %}(select id as k from range({{ n }})) r{% endmacro %}
"""


# The least an SCD2 apply that keeps an event log must send on Delta for this job's batch, as a
# materialization of its own: the batch's events the log lacks (read through the cursor, which the log
# keeps), their append to the log, and one MERGE that closes each touched key's open version at its first
# new event and inserts the new versions (one commit of the target, as the package's run). No lease, no
# run log, no check for late events, hand edits or conflicts: a lower bound for the package's run.
LEAST = least_materialization(
    "least_scd2_delta", adapter="spark", commit=False,
    setup="""  {%- set new = this.incorporate(path={'identifier': this.identifier ~ '_new'}) -%}
  {% do auto_cdc._spark_session_settings() %}""",
    first="""[
          'create table ' ~ log ~ ' using delta as select * from (' ~ sql ~ ') b',
          'create table ' ~ this ~ ' using delta as select k, seq, val, seq as start_at, cast(null as bigint) as end_at from ' ~ log]""",
    then="""[
          'drop table if exists ' ~ new,
          'create table ' ~ new ~ ' using parquet as select b.* from (' ~ sql ~ ') b left anti join ' ~ log
            ~ ' l on l.k = b.k and l.seq = b.seq where b.loaded >= (select max(loaded) from ' ~ log ~ ')',
          'insert into ' ~ log ~ ' select * from ' ~ new,
          'merge into ' ~ this ~ ' t using (with v as (select k, seq, val, seq as start_at, '
            ~ 'lead(seq) over (partition by k order by seq) as end_at, min(seq) over (partition by k) as first_seq from ' ~ new ~ ') '
            ~ 'select k as mk, v.* from v where seq = first_seq union all select cast(null as bigint) as mk, v.* from v) s '
            ~ 'on t.k = s.mk and t.end_at is null when matched then update set end_at = s.first_seq '
            ~ 'when not matched and s.mk is null then insert (k, seq, val, start_at, end_at) values (s.k, s.seq, s.val, s.start_at, s.end_at)',
          'drop table ' ~ new]""")


# Each batch key's rows in the target, as the checks of LEAST_CHECKED and LEAST_INLINE read them (the batch's
# keys in a CTE `keys`): its open versions, its versions, its last start and end, its open version's fingerprint.
TARGET_FACTS = """tg as (
        select /*+ BROADCAST(keys) */ t.k, count(case when t.end_at is null then 1 end) as open_rows, count(*) as versions,
          max(t.start_at) as last_start, max(t.end_at) as last_end,
          min(case when t.end_at is null then xxhash64(t.k, t.seq, t.val) end) as fp
        from {{ this }} t join keys on t.k = keys.k group by t.k),"""


# The least above plus what the package's run must also do on Delta, each in its leanest form measured so
# far: the model's lock (a table of the catalog, its holder in its properties), the run's checks in one query
# that reads the log and the target once each for the batch's keys (null keys or sequences; R7 conflicts, in
# the batch and against the log; late events, a key's first new event at or before its last logged one; hand
# edits, a key's open version, versions and fingerprint against its logged events), a run log's row, and the
# lock's release. A run whose checks find anything fails (the package would replay those keys instead): on
# this job's in-order batch they find nothing, so what it costs is what deciding costs an apply this lean.
LEAST_CHECKED = """{%- materialization least_checked_scd2_delta, adapter='spark' -%}
  {%- set log = this.incorporate(path={'identifier': this.identifier ~ '_log'}) -%}
  {%- set runs = this.incorporate(path={'identifier': this.identifier ~ '_runs'}) -%}
  {%- set new = this.incorporate(path={'identifier': this.identifier ~ '_new'}) -%}
  {%- set lock = this.incorporate(path={'identifier': this.identifier ~ '_lock'}) -%}
  {%- set existing = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
  {%- if existing is none -%}
    {%- set steps = [
          'create table ' ~ log ~ ' using delta as select * from (' ~ sql ~ ') b',
          'create table ' ~ this ~ ' using delta as select k, seq, val, seq as start_at, cast(null as bigint) as end_at from ' ~ log,
          'create table ' ~ runs ~ ' using delta as select 1 as run_id, current_timestamp() as at, count(*) as events from ' ~ log] -%}
    {%- for step in steps -%}
      {%- call statement('main' if loop.last else 'step_' ~ loop.index) -%}{{ step }}{%- endcall -%}
    {%- endfor -%}
  {%- else -%}
    {% do auto_cdc._spark_session_settings() %}
    {%- call statement('lock') -%}
      create table if not exists {{ lock }} (holder string) using parquet tblproperties ('holder' = '{{ invocation_id }}')
    {%- endcall -%}
    {%- call statement('held', fetch_result=True) -%}show tblproperties {{ lock }}{%- endcall -%}
    {%- set holder = [] -%}
    {%- for row in load_result('held')['data'] if row[0] == 'holder' -%}{%- do holder.append(row[1]) -%}{%- endfor -%}
    {%- if holder != [invocation_id] -%}{{ exceptions.raise_compiler_error('locked by ' ~ holder) }}{%- endif -%}
    {%- call statement('step_drop') -%}drop table if exists {{ new }}{%- endcall -%}
    {%- call statement('step_stage') -%}
      create table {{ new }} using parquet as
      select b.*, l.val as logged_val, l.k is not null as logged
      from ({{ sql }}) b left join {{ log }} l on l.k = b.k and l.seq = b.seq
      where b.loaded >= (select max(loaded) from {{ log }})
    {%- endcall -%}
    {%- call statement('checks', fetch_result=True) -%}
      with fresh as (select * from {{ new }} where not logged),
      keys as (select k, min(seq) as first_new from fresh where k is not null group by k),
      lg as (
        select /*+ BROADCAST(keys) */ l.k, max(l.seq) as last_seq, max_by(xxhash64(l.k, l.seq, l.val), l.seq) as last_fp,
          count(*) as events
        from {{ log }} l join keys on l.k = keys.k group by l.k),
      @@TARGET_FACTS@@
      batch as (
        select count(case when k is null or seq is null then 1 end) as nulls,
          count(case when logged and logged_val is distinct from val then 1 end) as logged_conflicts
        from {{ new }}),
      twins as (select count(*) as conflicts from (select k, seq from fresh group by k, seq having count(distinct val) > 1))
      select batch.nulls, batch.logged_conflicts + twins.conflicts, c.late, c.edited
      from batch cross join twins cross join (
        select count(case when lg.last_seq >= keys.first_new then 1 end) as late,
          count(case when coalesce(tg.open_rows, 0) <> case when lg.k is null then 0 else 1 end
                       or coalesce(tg.versions, 0) <> coalesce(lg.events, 0)
                       or tg.fp is distinct from lg.last_fp
                       or tg.last_start >= keys.first_new or tg.last_end > keys.first_new then 1 end) as edited
        from keys left join lg on lg.k = keys.k left join tg on tg.k = keys.k) c
    {%- endcall -%}
    {%- set found = load_result('checks')['data'][0] -%}
    {%- if found | map('int') | sum > 0 -%}
      {{ exceptions.raise_compiler_error('checks found (nulls, conflicts, late keys, edited keys) ' ~ found) }}
    {%- endif -%}
    {%- call statement('step_log') -%}insert into {{ log }} select k, seq, val, loaded from {{ new }} where not logged{%- endcall -%}
    {%- call statement('step_merge') -%}
      merge into {{ this }} t using (
        with v as (select k, seq, val, seq as start_at, lead(seq) over (partition by k order by seq) as end_at,
                     min(seq) over (partition by k) as first_seq from {{ new }} where not logged)
        select k as mk, v.* from v where seq = first_seq union all select cast(null as bigint) as mk, v.* from v) s
      on t.k = s.mk and t.end_at is null
      when matched then update set end_at = s.first_seq
      when not matched and s.mk is null then insert (k, seq, val, start_at, end_at) values (s.k, s.seq, s.val, s.start_at, s.end_at)
    {%- endcall -%}
    {%- call statement('step_runs') -%}
      insert into {{ runs }} select max(run_id) + 1, current_timestamp(), {{ found | join(' + ') }} from {{ runs }}
    {%- endcall -%}
    {%- call statement('step_drop_new') -%}drop table {{ new }}{%- endcall -%}
    {%- call statement('main') -%}drop table {{ lock }}{%- endcall -%}
  {%- endif -%}
  {{ return({'relations': [this]}) }}
{%- endmaterialization -%}
"""


LEAST_CHECKED = LEAST_CHECKED.replace("@@TARGET_FACTS@@", TARGET_FACTS)


# The checks of LEAST_CHECKED riding inside the statements that remain instead of a query of their own: the
# staging copies each batch key's log facts (last sequence, last event's fingerprint, events) beside the
# batch's rows, and the MERGE's source reads the target for the batch's keys and leaves out every key a check
# finds (late, edited, conflicting), so the MERGE applies the keys that pass. The MERGE's own result row
# (rows inserted) against the batch's count of new events says whether it left a key out; the package would
# then replay those keys in a second write, which this job's in-order batch never needs (a key left out fails
# the run here). What it costs is what an apply with its checks inside the staging and the MERGE's source
# costs on this job.
LEAST_INLINE = LEAST_CHECKED.replace("least_checked_scd2_delta", "least_inline_scd2_delta")
LEAST_INLINE = LEAST_INLINE[:LEAST_INLINE.index("    {%- call statement('step_stage') -%}")] + """    {%- call statement('step_stage') -%}
      create table {{ new }} using parquet as
      with b as (select * from ({{ sql }}) b where b.loaded >= (select max(loaded) from {{ log }})),
      keys as (select distinct k from b),
      l as (select /*+ BROADCAST(keys) */ l.k, l.seq, l.val from {{ log }} l join keys on l.k = keys.k),
      per_key as (select k, max(seq) as last_seq, max_by(xxhash64(k, seq, val), seq) as last_fp, count(*) as events
                  from l group by k)
      select b.*, x.k is not null as logged,
        (x.k is not null and x.val is distinct from b.val)
          or min(b.val) over (partition by b.k, b.seq) is distinct from max(b.val) over (partition by b.k, b.seq) as conflict,
        pk.last_seq, pk.last_fp, pk.events
      from b left join l x on x.k = b.k and x.seq = b.seq left join per_key pk on pk.k = b.k
    {%- endcall -%}
    {%- call statement('fresh', fetch_result=True) -%}
      select count(case when not logged then 1 end), count(case when k is null or seq is null then 1 end),
        count(case when logged and conflict then 1 end)
      from {{ new }}
    {%- endcall -%}
    {%- set fresh = load_result('fresh')['data'][0] -%}
    {%- if fresh[1] | int + fresh[2] | int > 0 -%}
      {{ exceptions.raise_compiler_error('null keys or sequences, conflicts with the log: ' ~ fresh) }}
    {%- endif -%}
    {%- call statement('step_log') -%}insert into {{ log }} select k, seq, val, loaded from {{ new }} where not logged{%- endcall -%}
    {%- call statement('merged', fetch_result=True) -%}
      merge into {{ this }} t using (
        with fresh as (select * from {{ new }} where not logged),
        keys as (select k, min(seq) as first_new, max(last_seq) as last_seq, max(last_fp) as last_fp,
                   max(events) as events, max(case when conflict then 1 else 0 end) as conflicted
                 from fresh group by k),
        @@TARGET_FACTS@@
        passed as (
          select keys.k from keys left join tg on tg.k = keys.k
          where keys.conflicted = 0 and not coalesce(keys.last_seq >= keys.first_new, false)
            and coalesce(tg.open_rows, 0) = case when keys.last_seq is null then 0 else 1 end
            and coalesce(tg.versions, 0) = coalesce(keys.events, 0)
            and not (tg.fp is distinct from keys.last_fp)
            and not coalesce(tg.last_start >= keys.first_new or tg.last_end > keys.first_new, false)),
        v as (select f.k, f.seq, f.val, f.seq as start_at, lead(f.seq) over (partition by f.k order by f.seq) as end_at,
                min(f.seq) over (partition by f.k) as first_seq from fresh f join passed p on p.k = f.k)
        select k as mk, v.* from v where seq = first_seq union all select cast(null as bigint) as mk, v.* from v) s
      on t.k = s.mk and t.end_at is null
      when matched then update set end_at = s.first_seq
      when not matched and s.mk is null then insert (k, seq, val, start_at, end_at) values (s.k, s.seq, s.val, s.start_at, s.end_at)
    {%- endcall -%}
    {%- set merged = load_result('merged')['data'][0] -%}
    {%- if merged[3] | int != fresh[0] | int -%}
      {{ exceptions.raise_compiler_error('the MERGE left out keys a check found: ' ~ merged ~ ' for ' ~ fresh[0] ~ ' new events') }}
    {%- endif -%}
    {%- call statement('step_runs') -%}
      insert into {{ runs }} select max(run_id) + 1, current_timestamp(), {{ fresh[0] }} from {{ runs }}
    {%- endcall -%}
""" + LEAST_CHECKED[LEAST_CHECKED.index("    {%- call statement('step_drop_new')"):]

LEAST_INLINE = LEAST_INLINE.replace("@@TARGET_FACTS@@", TARGET_FACTS)


# --engines NAME: each benchmark materialization on Delta, and what it is
LEASTS = {"least": (LEAST, "the least an apply with a log sends"),
          "checked": (LEAST_CHECKED, "the least with a lock, the checks and a run log"),
          "inline": (LEAST_INLINE, "the checks inside the staging and the MERGE's source")}


def model_time(project: Project, name: str) -> float:
    results = json.loads((project.path / "target" / "run_results.json").read_text())
    return next(r["execution_time"] for r in results["results"] if r["unique_id"].endswith("." + name))


def spark_jobs_so_far() -> int:
    """The number of Spark jobs this process's driver has started (its next job id). Read from the
    process's SparkContext (a thread that has not run a query yet has no active session), in one call to
    the driver: the status tracker's list of job ids comes back one element per call, which took about
    2 s of the driver's Python time in a profiled run of some 40 statements (bench/profile_spark.py
    reads it before and after each statement)."""
    from pyspark import SparkContext
    return SparkContext._active_spark_context._jsc.sc().dagScheduler().numTotalJobs()


def add_model(project: Project, n: int, rows_per_bucket: int = ROWS_PER_BUCKET, least: str | None = None) -> int:
    """The job's model, target_scd2, in the project: the package's auto_cdc (a parquet target in n /
    rows_per_bucket buckets), or with least "least" (LEAST), "checked" (LEAST_CHECKED) or "inline"
    (LEAST_INLINE) that materialization. Returns the number of buckets."""
    buckets = max(1, n // rows_per_bucket)
    if least:
        text = LEASTS[least][0]
        (project.path / "macros" / "least.sql").write_text(text)
        project.model("target_scd2", "select * from {{ ref('feed') }}",
                      materialized=re.search(r"materialization (\w+)", text).group(1))
    else:
        project.model("target_scd2", "select * from {{ ref('feed') }}", materialized="auto_cdc", keys=["k"],
                      sequence_by="seq", stored_as_scd_type=2, cursor_column="loaded",
                      except_column_list=["loaded"], spark_buckets=buckets)
    return buckets


def job(project: Project, n: int, b: int, rows_per_bucket: int = ROWS_PER_BUCKET, least: str | None = None) -> dict:
    buckets = add_model(project, n, rows_per_bucket, least)
    vars_ = {"n": n, "b": b}
    t = time.time()
    project.run(extra=["--vars", json.dumps({**vars_, "step": 0})])
    first = model_time(project, "target_scd2")
    # the feed first, on its own, so that the jobs counted are the incremental run's
    project.run("feed", extra=["--vars", json.dumps({**vars_, "step": 1})])
    jobs = spark_jobs_so_far() if project.engine == "spark" else None
    project.run("target_scd2", extra=["--vars", json.dumps({**vars_, "step": 1})])
    incremental = model_time(project, "target_scd2")
    jobs = spark_jobs_so_far() - jobs if jobs is not None else None
    return {"n": n, "batch": b, "buckets": buckets, "first_run_s": round(first, 1),
            "incremental_s": round(incremental, 2), "incremental_jobs": jobs, "wall_s": round(time.time() - t, 1)}


def new_project(engine: str, conf: dict | None = None, file_format: str | None = None) -> Project:
    p = Project(Path(tempfile.mkdtemp(prefix=f"bench_{file_format or engine}_")), engine, spark_conf=conf,
                in_process=engine == "spark", models_config={"+file_format": file_format} if file_format else None)
    (p.path / "macros" / "range.sql").write_text(RANGE)
    (p.path / "models" / "feed.sql").write_text(FEED)
    return p


def main() -> None:
    ap = argparse.ArgumentParser(description="Spark (Delta, parquet) vs DuckDB on an SCD2 auto_cdc job, at N and 10 N target rows.")
    ap.add_argument("n", nargs="?", type=int, default=100_000)
    ap.add_argument("b", nargs="?", type=int, default=None)
    ap.add_argument("--rows-per-bucket", type=int, default=ROWS_PER_BUCKET)
    ap.add_argument("--engines", default="duckdb,delta,parquet",
                    help="comma-separated: duckdb, delta, parquet, and on Delta "
                         + ", ".join(f"{name} ({what})" for name, (_, what) in LEASTS.items()))
    ap.add_argument("--json", type=Path, help="write the result rows to this file")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="a Spark setting (repeatable)")
    ap.add_argument("--only-n", action="store_true", help="the target of N rows only, not 10 N as well")
    args = ap.parse_args()
    n, engines = args.n, args.engines.split(",")
    sizes = (n,) if args.only_n else (n, 10 * n)
    b = args.b or max(1, n // 100)
    extra_conf = dict(c.split("=", 1) for c in args.conf)
    from auto_cdc_testkit.testing import spark
    rows = []

    def keep(row: dict) -> None:
        rows.append(row)
        print(row, flush=True)
        if args.json:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(rows, indent=2) + "\n")

    for size in sizes if "duckdb" in engines else ():
        d = new_project("duckdb")
        keep(dict(engine="duckdb", **job(d, size, b, args.rows_per_bucket)))
        d.clean()
    formats = [e for e in engines if e in ("delta", "parquet", *LEASTS)]
    with spark.start() if formats else nullcontext() as cluster:
        for file_format in formats:
            for size in sizes:
                least = file_format if file_format in LEASTS else None
                p = new_project("spark", {**cluster.spark_conf(), **extra_conf}, "delta" if least else file_format)
                row = job(p, size, b, args.rows_per_bucket, least=least)
                if least:  # a lower bound only if it writes the rows an SCD2 apply writes
                    got = p.fetch(f"select count(*), count(end_at), sum(case when end_at = 2 then 1 else 0 end) "
                                  f"from {p.relation('target_scd2')}")[0]
                    assert tuple(int(x) for x in got) == (size + b, b, b), got
                label = f"{least} (Delta, {LEASTS[least][1]})" if least else file_format
                keep(dict(engine=f"{label} (Spark, {cluster.mode})", **row))
                p.clean()
    print("\n| engine | target rows | batch | buckets | first run (s) | incremental run (s) | Spark jobs of the incremental run |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['engine']} | {r['n']:,} | {r['batch']:,} | {r['buckets'] if 'parquet' in r['engine'] else '-'} "
              f"| {r['first_run_s']} | {r['incremental_s']} | {r['incremental_jobs'] if r['incremental_jobs'] is not None else '-'} |")
    # an engine listed twice ran twice, each time at N then 10 N: one ratio per time, in order
    for eng in dict.fromkeys(engines) if not args.only_n else ():
        mine = [r for r in rows if r["engine"].split(" ")[0] == eng]
        for small, big in zip(mine[::2], mine[1::2]):
            print(f"{eng}: incremental run at 10x target / at 1x = {big['incremental_s'] / max(small['incremental_s'], 0.01):.2f}")
    by = {(r["engine"].split(" ")[0], r["n"]): r["incremental_s"] for r in rows}  # an engine's last time
    for size in sizes:
        for other in ("delta", *LEASTS):
            if (other, size) in by and ("parquet", size) in by:
                print(f"at {size:,} rows: parquet / {other} incremental time = "
                      f"{by[('parquet', size)] / max(by[(other, size)], 0.01):.2f}")


if __name__ == "__main__":
    main()
