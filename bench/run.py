"""Benchmark of dbt-auto-cdc: ratios measured in one run, on DuckDB and Postgres.

    bash scripts/bench.sh                      # default size, both engines (minutes per engine on 2 cores)
    bash scripts/bench.sh --size large         # the target sizes (long)
    bash scripts/bench.sh --engines duckdb     # one engine
    bash scripts/bench.sh --parts scaling --repeat 1 --keep   # one part, one run per timing, keep the project

Each timing is the best of --repeat runs (default 2) on successive batches.

Every number it reports is a ratio of two timings taken in the same process, on the same engine, a
few seconds apart (absolute times on a shared machine mean little):

1. floor      apply of B new events into a T-row target / `insert into t select <B rows>` into a T-row
              table (with the same key index the package gives its target on Postgres).
2. scaling    apply of the same B into a target 10x larger (Postgres: 5x) / into the smaller one; the
              same for the hand-written incremental model of part 3, run alternately with SCD1.
3. peers      auto_cdc_snapshot SCD2 vs dbt's `snapshot` (check strategy, hard_deletes: invalidate) on a
              new snapshot with 1% of rows changed and 0.1% deleted; auto_cdc SCD1 vs a hand-written
              incremental model (latest row per key, delete+insert) on the same batch. Each peer's
              correctness is shown on small late-event cases against the Python reference model.
4. late       SCD2 batch with 20% late events / a batch of the same size with none; and with 20% late,
              a history 10x larger / the smaller one.

Beside the ratios: the SQL statements each timed dbt run executed for its model (from dbt's JSON log,
auto_cdc_testkit/statements.py), including a run with nothing new; the bookkeeping bytes per target
byte (the event log, run log and any other `<target>__auto_cdc_*` table against the target); and the
event log's rows and bytes before and after `auto_cdc.compact` at its greatest sequence.

"apply" is the model's execution time from dbt's run_results.json (staging, checks, log append,
recomputation, writes; no dbt start-up); "run" is the wall time of the whole `dbt` invocation.
The data is generated inside the engine (range / generate_series), no CSVs. Results: a table on
stdout, JSON in bench/results/<size>.json (or --out; bench/report.py renders it into docs/benchmarks.md),
and SVG charts in docs/img (or --plots).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from auto_cdc_testkit import reference as ref  # noqa: E402
from auto_cdc_testkit.harness import Project  # noqa: E402
from auto_cdc_testkit.names import NAMES  # noqa: E402
from auto_cdc_testkit.statements import apply_statement_counts, statement_counts  # noqa: E402

# B: batch of the floor/scaling runs; T: the two target sizes (rows); floor_b: batch of the floor run
# (a third run on the larger target when it differs from B); snap: rows of the snapshot job; late_keys and
# late_e: keys and events per key of the late-event histories (the larger history has 10x the keys).
SIZES = {
    "tiny": {"duckdb": dict(B=500, T=(5_000, 50_000), floor_b=500, snap=5_000, late_keys=1_000, late_e=5, W=5),
             "postgres": dict(B=500, T=(5_000, 25_000), floor_b=500, snap=5_000, late_keys=1_000, late_e=5, W=5)},
    "small": {"duckdb": dict(B=20_000, T=(200_000, 2_000_000), floor_b=20_000, snap=200_000, late_keys=20_000,
                             late_e=5, W=5),
              "postgres": dict(B=10_000, T=(100_000, 500_000), floor_b=10_000, snap=100_000, late_keys=10_000,
                               late_e=5, W=5)},
    "large": {"duckdb": dict(B=100_000, T=(1_000_000, 10_000_000), floor_b=1_000_000, snap=1_000_000,
                             late_keys=200_000, late_e=5, W=5),
              "postgres": dict(B=100_000, T=(1_000_000, 5_000_000), floor_b=100_000, snap=1_000_000,
                               late_keys=100_000, late_e=5, W=5)},
}
LATE_SHARE = 0.20
# The floor's targets (SCD1, SCD2 apply / plain insert) per engine.
FLOOR_TARGETS = {"duckdb": (3.0, 5.0), "postgres": (4.0, 6.0)}
DELETE_SHARE = 0.01
SNAP_CHANGED, SNAP_DELETED = 0.01, 0.001


# ---------------------------------------------------------------------------------------------------------------
# Data, generated in the engine
# ---------------------------------------------------------------------------------------------------------------

def _series(engine: str, n: int) -> str:
    return f"range({n}) as g(i)" if engine == "duckdb" else f"generate_series(0, {n - 1}) as g(i)"


def _idiv(engine: str, a: str, b: int) -> str:
    return f"({a} // {b})" if engine == "duckdb" else f"({a} / {b})"


def _payload(width: int, key: str, seq: str) -> str:
    # c1 changes with every event (so SCD2 opens a version); the others are fixed per key.
    cols = [f"'p' || cast({key} as varchar) || '_' || cast({seq} as varchar) as c1"]
    cols += [f"'w{w}_' || cast({key} % 1000 as varchar) as c{w}" for w in range(2, width + 1)]
    return ", ".join(cols)


def initial_feed_sql(engine: str, keys: int, per_key: int, width: int) -> str:
    """`per_key` upserts for each of `keys` keys, at sequences 10, 20, ..."""
    key = f"cast({_idiv(engine, 'i', per_key)} as bigint)"
    seq = f"cast(10 * (1 + i % {per_key}) as bigint)"
    return (f"select {key} as id, {seq} as seq, 'UPSERT' as op, {_payload(width, key, seq)} "
            f"from {_series(engine, keys * per_key)}")


def batch_sql(engine: str, n: int, keys: int, per_key: int, run: int, width: int, late: float,
              deletes: float = DELETE_SHARE) -> str:
    """Batch number `run` (1, 2, ...) of `n` events on distinct keys among `keys` keys already holding
    `per_key` events at 10, 20, ...: a share `late` lands inside the history (sequence 10*j - run), a share
    `deletes` of the others are deletes, the rest upserts after the history (10 * (per_key + run))."""
    assert n <= keys and run < 10
    key = f"cast((i * 7919) % {keys} as bigint)"   # 7919 is prime: distinct keys for i < keys (keys not a multiple)
    is_late = f"(i % 100) < {int(late * 100)}"
    seq = (f"cast(case when {is_late} then 10 * (1 + i % {per_key}) - {run} "
           f"else 10 * ({per_key} + {run}) end as bigint)")
    op = f"case when not ({is_late}) and (i % 100) >= {100 - int(deletes * 100)} then 'DELETE' else 'UPSERT' end"
    return f"select {key} as id, {seq} as seq, {op} as op, {_payload(width, key, seq)} from {_series(engine, n)}"


def snapshot_sql(engine: str, n: int, version: int, width: int) -> str:
    """Snapshot 0: n rows. Each later version: 1% of the rows changed and another 0.1% deleted, against the
    version before it (SNAP_* shares)."""
    if version == 0:
        c1 = "'p' || cast(i as varchar)"
        where = ""
    else:
        c1 = f"case when i % 100 = 1 then 'q{version}_' || cast(i as varchar) else 'p' || cast(i as varchar) end"
        where = f" where i % 1000 < {1000 - version}"
    cols = [f"{c1} as c1"] + [f"'w{w}_' || cast(i % 1000 as varchar) as c{w}" for w in range(2, width + 1)]
    return f"select cast(i as bigint) as id, {version} as v, {', '.join(cols)} from {_series(engine, n)}{where}"


# ---------------------------------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------------------------------

def auto_cdc_model(p: Project, name: str, feed: str, scd: int) -> None:
    p.model(name, f"select * from {p.relation(feed)}", materialized="auto_cdc", keys=["id"], sequence_by="seq",
            apply_as_deletes="op = 'DELETE'", except_column_list=["op"], stored_as_scd_type=scd)


def incremental_peer_model(p: Project, name: str, feed: str, width: int) -> None:
    """The usual hand-written SCD1 in dbt: the latest event per key in the batch, delete+insert on the key.
    Deletes are kept as rows with op = 'DELETE' (a soft delete: the kindest version of the pattern)."""
    cols = ", ".join(["id", "seq", "op"] + [f"c{w}" for w in range(1, width + 1)])
    p.model(name, f"select {cols} from (\n  select *, row_number() over (partition by id order by seq desc) as rn\n"
                  f"  from {p.relation(feed)}\n) latest where rn = 1",
            materialized="incremental", unique_key="id", incremental_strategy="delete+insert")


# The benchmark's "least" models: materializations that send only the statements an apply that keeps an
# event log cannot do without, and check nothing, so that what they cost bounds the package's run from below.
# Each sets its own names and lists the statements of its first run and of a later one (Jinja list
# expressions); `log` is the model's log table. One call a statement, so that dbt's log times each.
LEAST_SKELETON = """{%- materialization @@NAME@@, adapter='@@ADAPTER@@' -%}
  {%- set log = this.incorporate(path={'identifier': this.identifier ~ '_log'}) -%}
  {%- set existing = adapter.get_relation(database=this.database, schema=this.schema, identifier=this.identifier) -%}
@@SETUP@@
  {%- set steps = (@@FIRST@@) if existing is none else (@@THEN@@) -%}
  {%- for step in steps -%}
    {%- call statement('main' if loop.last else 'step_' ~ loop.index) -%}{{ step }}{%- endcall -%}
  {%- endfor -%}
@@COMMIT@@
  {{ return({'relations': [this]}) }}
{%- endmaterialization -%}
"""


def least_materialization(name: str, setup: str, first: str, then: str, adapter: str = "default",
                          commit: bool = True) -> str:
    parts = {"NAME": name, "ADAPTER": adapter, "SETUP": setup, "FIRST": first, "THEN": then,
             "COMMIT": "  {{ adapter.commit() }}" if commit else ""}
    text = LEAST_SKELETON
    for key, value in parts.items():
        text = text.replace(f"@@{key}@@", value)
    return text


# The least an SCD2 apply that keeps an event log must send for an in-order batch: the batch's events the log
# lacks (a rerun applies nothing twice), their append to the log, the close of each touched key's open version
# at its first new event, and an insert of the new versions. It finds no late event, no hand edit and no
# conflict: what it costs is a lower bound for the package's SCD2 run.
LEAST_SCD2 = least_materialization(
    "least_scd2",
    setup="""  {%- set new = this.identifier ~ '_new' -%}
  {%- set cols = COLS -%}""",
    first="""[
          'create table ' ~ log ~ ' as select * from (' ~ sql ~ ') b',
          'create table ' ~ this ~ ' as select ' ~ cols ~ ', seq as start_at, cast(null as bigint) as end_at from '
            ~ log ~ " where op = 'UPSERT'"]
          + (['create index on ' ~ log ~ ' (id, seq)', 'create index on ' ~ this ~ ' (id)'] if target.type == 'postgres' else [])""",
    then="""[
          'create temp table ' ~ new ~ ' as select b.* from (' ~ sql ~ ') b where not exists (select 1 from '
            ~ log ~ ' l where l.id = b.id and l.seq = b.seq)',
          'insert into ' ~ log ~ ' select * from ' ~ new,
          'update ' ~ this ~ ' as t set end_at = n.seq from (select id, min(seq) as seq from ' ~ new
            ~ ' group by id) n where t.id = n.id and t.end_at is null',
          'insert into ' ~ this ~ ' select ' ~ cols ~ ', start_at, end_at from (select *, seq as start_at, '
            ~ 'lead(seq) over (partition by id order by seq) as end_at from ' ~ new ~ " ) v where op = 'UPSERT'",
          'drop table ' ~ new]""")


def least_scd2_model(p: Project, name: str, feed: str, width: int) -> None:
    cols = ", ".join(["id", "seq"] + [f"c{w}" for w in range(1, width + 1)])
    (p.path / "macros" / "least_scd2.sql").write_text(LEAST_SCD2.replace("COLS", repr(cols)))
    p.model(name, f"select * from {p.relation(feed)}", materialized="least_scd2")


# The same for a snapshot: the least an SCD2 apply of one new snapshot version that keeps an event log must
# send. The diff of the snapshot with the current rows by joins (an upsert where a key is new or a column
# differs, a delete where a current key is gone), the events' append to the log, the close of the touched
# keys' open versions at the new version, and an insert of the new versions. No check for hand edits, for
# versions older than the target's or for duplicate keys: a lower bound for `auto_cdc_snapshot`'s run.
LEAST_SNAPSHOT = least_materialization(
    "least_snapshot",
    setup="""  {%- set ev = this.identifier ~ '_ev' -%}
  {%- set cols = COLS -%}
  {%- set same = [] -%}
  {%- for c in cols.split(', ') -%}{%- do same.append('c.' ~ c ~ ' is not distinct from s.' ~ c) -%}{%- endfor -%}""",
    first="""[
          'create table ' ~ log ~ ' as select id, v, ' ~ cols ~ ", 'UPSERT' as op from (" ~ sql ~ ') s',
          'create table ' ~ this ~ ' as select id, ' ~ cols ~ ', v as start_at, cast(null as bigint) as end_at from ' ~ log]
          + (['create index on ' ~ log ~ ' (id, v)', 'create index on ' ~ this ~ ' (id)'] if target.type == 'postgres' else [])""",
    then="""[
          'create temp table ' ~ ev ~ ' as select s.id, s.v, ' ~ ('s.' ~ cols.replace(', ', ', s.')) ~ ", 'UPSERT' as op from ("
            ~ sql ~ ') s left join ' ~ this ~ ' c on c.id = s.id and c.end_at is null where c.id is null or not ('
            ~ same | join(' and ') ~ ') union all select c.id, (select max(v) from (' ~ sql ~ ') m), '
            ~ ('c.' ~ cols.replace(', ', ', c.')) ~ ", 'DELETE' from " ~ this ~ ' c where c.end_at is null and not exists ('
            ~ 'select 1 from (' ~ sql ~ ') s where s.id = c.id)',
          'insert into ' ~ log ~ ' select * from ' ~ ev,
          'update ' ~ this ~ ' as t set end_at = e.v from ' ~ ev ~ ' e where t.id = e.id and t.end_at is null',
          'insert into ' ~ this ~ ' select id, ' ~ cols ~ ", v, cast(null as bigint) from " ~ ev ~ " where op = 'UPSERT'",
          'drop table ' ~ ev]""")


def least_snapshot_model(p: Project, name: str, source: str, width: int) -> None:
    cols = ", ".join(f"c{w}" for w in range(1, width + 1))
    (p.path / "macros" / "least_snapshot.sql").write_text(LEAST_SNAPSHOT.replace("COLS", repr(cols)))
    p.model(name, f"select * from {p.relation(source)}", materialized="least_snapshot")


def snapshot_peer(p: Project, name: str, source: str, width: int) -> None:
    """dbt's own snapshot, check strategy, hard deletes invalidated (dbt >= 1.9)."""
    cols = [f"c{w}" for w in range(1, width + 1)]
    (p.path / "snapshots").mkdir(exist_ok=True)
    (p.path / "snapshots" / f"{name}.sql").write_text(
        f"{{% snapshot {name} %}}\n{{{{ config(unique_key='id', strategy='check', check_cols={cols!r}, "
        f"hard_deletes='invalidate') }}}}\nselect id, {', '.join(cols)} from {p.relation(source)}\n{{% endsnapshot %}}\n")


def auto_cdc_snapshot_model(p: Project, name: str, source: str) -> None:
    p.model(name, f"select * from {p.relation(source)}", materialized="auto_cdc_snapshot", keys=["id"],
            snapshot_version="v", stored_as_scd_type=2)


# ---------------------------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------------------------

def replace_table(p: Project, name: str, sql: str) -> None:
    p.execute(f"drop table if exists {p.relation(name)}")
    p.execute(f"create table {p.relation(name)} as {sql}")
    if p.engine == "postgres":
        p.execute(f"analyze {p.relation(name)}")


def dbt_timed(p: Project, command: str, name: str) -> dict:
    """One whole dbt invocation selecting one node: its wall time, the node's execution time
    (run_results.json) and its slowest statements (dbt's JSON debug log)."""
    log = p.path / "logs" / "dbt.log"
    log.unlink(missing_ok=True)
    t0 = time.perf_counter()
    p.dbt(command, "--select", name, "--log-format-file", "json", "--log-level-file", "debug")
    wall = time.perf_counter() - t0
    results = json.loads((p.path / "target" / "run_results.json").read_text())["results"]
    (node,) = [r for r in results if r["unique_id"].endswith("." + name)]
    execute = [t for t in node["timing"] if t["name"] == "execute"][0]
    from datetime import datetime
    apply_s = (datetime.fromisoformat(execute["completed_at"].replace("Z", "+00:00"))
               - datetime.fromisoformat(execute["started_at"].replace("Z", "+00:00"))).total_seconds()
    statements = _statements(log)
    return {"run_s": round(wall, 3), "apply_s": round(apply_s, 3),
            "sql_s": round(sum(s["s"] for s in statements), 3), "message": node.get("message"),
            "statements": statement_counts(log).get(node["unique_id"], 0),
            "apply_statements": apply_statement_counts(log).get(node["unique_id"], 0),
            "top_statements": sorted(statements, key=lambda s: -s["s"])[:4]}


def _statements(log: Path, model: str | None = None) -> list[dict]:
    """Each statement of the log with its time (`s`) and its SQL without dbt's comment; with `model`, only that
    node's (by name)."""
    statements, last_sql = [], None
    if not log.exists():
        return []
    for line in log.read_text(errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        name = event.get("info", {}).get("name")
        data = event.get("data", {})
        if name == "SQLQuery":
            last_sql = data.get("sql", "") if model is None or data.get("node_info", {}).get("node_name") == model else None
        elif name == "SQLQueryStatus" and last_sql is not None:
            sql = last_sql.split("*/", 1)[-1] if last_sql.lstrip().startswith("/*") else last_sql
            statements.append({"s": round(float(data.get("elapsed", 0)), 3), "sql": " ".join(sql.split())[:160]})
            last_sql = None
    return statements


def _short(t: dict) -> str:
    return (f"run {t['run_s']}s, apply {t['apply_s']}s, SQL {t['sql_s']}s, {t['apply_statements']} statements "
            f"({t['statements']} with BEGIN/COMMIT and the adapter's own) ({t['message']})")


# ---------------------------------------------------------------------------------------------------------------
# Storage: bookkeeping bytes per target byte
# ---------------------------------------------------------------------------------------------------------------

def relation_bytes(p: Project) -> dict[str, int]:
    """Bytes each table of the project's schema holds. Postgres: pg_total_relation_size (heap, indexes,
    TOAST). DuckDB, after a checkpoint: the database's blocks, each shared among the column segments it
    holds by where they start in it (a segment's share runs to the next segment's start, the last one's to
    the block's end), plus the extra blocks of long segments."""
    if p.engine == "postgres":
        return {name: int(size) for name, size in p.fetch(
            "select c.relname, pg_total_relation_size(c.oid) from pg_class c join pg_namespace n on n.oid = c.relnamespace "
            f"where n.nspname = '{p.schema}' and c.relkind = 'r'")}
    import duckdb
    con = duckdb.connect(str(p.db_path))
    try:
        con.execute("checkpoint")
        block = con.execute("select block_size from pragma_database_size()").fetchone()[0]
        tables = [t for (t,) in con.execute(
            f"select table_name from duckdb_tables() where schema_name = '{p.schema}' and not temporary").fetchall()]
        segments = []  # (block_id, offset, table, extra blocks)
        for t in tables:
            segments += [(b, o, t, len(extra or [])) for b, o, extra in con.execute(
                "select block_id, block_offset, additional_block_ids from pragma_storage_info(?) where block_id >= 0",
                [t]).fetchall()]
    finally:
        con.close()
    sizes = dict.fromkeys(tables, 0)
    segments.sort()
    for i, (b, o, t, extra) in enumerate(segments):
        end = segments[i + 1][1] if i + 1 < len(segments) and segments[i + 1][0] == b else block
        sizes[t] += end - o + extra * block
    return sizes


def bookkeeping(sizes: dict[str, int], target: str) -> dict:
    """The side tables of one target (`<target>__auto_cdc_*`: event log, run log, any state) against it."""
    side = {name: size for name, size in sizes.items() if name.startswith(target + NAMES["internal_prefix"])}
    target_bytes = sizes.get(target, 0)
    return {"target_bytes": target_bytes, "side_bytes": side,
            "per_target_byte": round(sum(side.values()) / target_bytes, 2) if target_bytes else None}


def compaction(p: Project, names: list[str], sizes: dict[str, int]) -> dict:
    """`auto_cdc.compact` of each model at the greatest sequence its log holds: the log's rows and bytes
    before and after, and after the engine gives the freed space back (Postgres: VACUUM FULL; DuckDB reuses
    it for later appends, and a checkpoint rewrites row groups with enough deleted rows)."""
    out = {}
    for name in names:
        log = name + NAMES["log_suffix"]
        rows_before, horizon = p.fetch(f"select count(*), max(seq) from {p.relation(log)}")[0]
        t0 = time.perf_counter()
        p.dbt("run-operation", "auto_cdc.compact", "--args", json.dumps({"model": name, "older_than": int(horizon)}))
        run_s = time.perf_counter() - t0
        after = relation_bytes(p)
        if p.engine == "postgres":
            p.execute(f"vacuum full {p.relation(log)}")
        reclaimed = relation_bytes(p)
        out[name] = {"horizon": int(horizon), "run_s": round(run_s, 3),
                     "log_rows_before": int(rows_before),
                     "log_rows_after": int(p.fetch(f"select count(*) from {p.relation(log)}")[0][0]),
                     "log_bytes_before": sizes[log], "log_bytes_after": after[log], "log_bytes_reclaimed": reclaimed[log],
                     "per_target_byte_before": bookkeeping(sizes, name)["per_target_byte"],
                     "per_target_byte_after": bookkeeping(reclaimed, name)["per_target_byte"]}
    return out


def timed_sql(p: Project, sql: str) -> float:
    """The statement alone, on an open connection (opening a DuckDB file is not part of the floor)."""
    if p.engine == "duckdb":
        import duckdb
        con = duckdb.connect(str(p.db_path))
        try:
            t0 = time.perf_counter()
            con.execute(sql)
            return round(time.perf_counter() - t0, 3)
        finally:
            con.close()
    con = p._connect()
    with con.cursor() as cur:
        t0 = time.perf_counter()
        cur.execute(sql)
        return round(time.perf_counter() - t0, 3)


def floor_seconds(p: Project, name: str, target_rows: int, batch_sql_text: str, width: int, repeat: int = 1) -> float:
    """The least any correct tool must do: insert the B batch rows into a table of T rows (best of `repeat`)."""
    replace_table(p, name, initial_feed_sql(p.engine, target_rows, 1, width))
    if p.engine == "postgres":
        p.execute(f"create index on {p.relation(name)} (id)")
    replace_table(p, name + "_batch", batch_sql_text)
    seconds = min(timed_sql(p, f"insert into {p.relation(name)} select * from {p.relation(name + '_batch')}")
                  for _ in range(repeat))
    p.execute(f"drop table {p.relation(name)}")
    p.execute(f"drop table {p.relation(name + '_batch')}")
    return seconds


# ---------------------------------------------------------------------------------------------------------------
# Correctness of the peers on small late-event cases, against the reference model
# ---------------------------------------------------------------------------------------------------------------

CHANGE_RUNS = [  # (id, seq, op, c1) per run; run 3 is late
    [(1, 10, "UPSERT", "a"), (2, 10, "UPSERT", "a"), (3, 10, "UPSERT", "a")],
    [(1, 20, "UPSERT", "b"), (2, 20, "DELETE", None), (3, 20, "UPSERT", "b"), (4, 10, "UPSERT", "a")],
    [(1, 15, "UPSERT", "late"), (2, 15, "UPSERT", "late"), (3, 15, "DELETE", None)],
]


def check_change_feed_peers(p: Project) -> dict:
    cols = [("id", "bigint"), ("seq", "bigint"), ("op", "varchar"), ("c1", "varchar")]
    p.table("cf_feed", cols)
    auto_cdc_model(p, "cf_auto_cdc", "cf_feed", 1)
    incremental_peer_model(p, "cf_incremental", "cf_feed", 1)
    for events in CHANGE_RUNS:  # each run's feed holds only that run's events
        p.table("cf_feed", cols, events)
        p.run("cf_auto_cdc", "cf_incremental")
    events = [ref.Event((i,), s, "delete" if op == "DELETE" else "upsert", {"id": i, "seq": s, "c1": c})
              for run in CHANGE_RUNS for i, s, op, c in run]
    expected = sorted((r["id"], r["seq"], r["c1"]) for r in
                      ref.apply(events, ref.Config(columns=("id", "seq", "c1"), key_columns=("id",), scd_type=1)))
    got_auto = sorted(p.fetch(f"select id, seq, c1 from {p.relation('cf_auto_cdc')}"))
    got_inc = sorted(p.fetch(f"select id, seq, c1 from {p.relation('cf_incremental')} where op <> 'DELETE'"))
    return {"case": "(id, seq, c1) SCD1; run 1: keys 1-3 at 10; run 2: 1 and 3 updated at 20, 2 deleted at 20, 4 new; "
                    "run 3 (late): 1 and 2 updated at 15, 3 deleted at 15",
            "expected": expected,
            "auto_cdc": {"rows": got_auto, "correct": got_auto == expected},
            "incremental": {"rows": got_inc, "correct": got_inc == expected,
                            "wrong": _diff_rows(expected, got_inc)}}


SNAP_VERSIONS = {1: [(1, "a"), (2, "a"), (3, "a")], 2: [(1, "b"), (2, "a")], 3: [(1, "b"), (2, "c"), (3, "d")]}


def check_snapshot_peers(p: Project, orders: dict[str, list[int]]) -> dict:
    """Deliver SNAP_VERSIONS one version per run, in each of `orders` (one pair of models per order, all run
    together), to auto_cdc_snapshot and to dbt snapshot. dbt snapshot stamps versions with the run's time;
    its timestamps are mapped back to the version each run delivered, so both histories read in versions."""
    cols = [("id", "bigint"), ("v", "integer"), ("c1", "varchar")]
    stamps: dict[str, list] = {tag: [] for tag in orders}
    for tag in orders:
        p.table(f"sc_src_{tag}", cols)
        auto_cdc_snapshot_model(p, f"sc_auto_cdc_{tag}", f"sc_src_{tag}")
        snapshot_peer(p, f"sc_dbt_{tag}", f"sc_src_{tag}", 1)
    for step in range(len(next(iter(orders.values())))):
        for tag, order in orders.items():
            p.table(f"sc_src_{tag}", cols, [(i, order[step], c) for i, c in SNAP_VERSIONS[order[step]]])
        p.run(*[f"sc_auto_cdc_{tag}" for tag in orders])
        p.dbt("snapshot", "--select", *[f"sc_dbt_{tag}" for tag in orders])
        for tag in orders:
            stamps[tag].append(p.fetch(f"select max(dbt_updated_at) from {p.relation('sc_dbt_' + tag)}")[0][0])
    out = {}
    for tag, order in orders.items():
        previous, events = None, []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the reference skips an out-of-order version, as the package does
            for v in order:
                snap = [(v, [{"id": i, "c1": c} for i, c in SNAP_VERSIONS[v]])]
                events += ref.snapshot_events(snap, ["id"], ["id", "c1"], previous)
                previous = ref.snapshot_state(snap, ["id"], ["id", "c1"], previous)
        expected = sorted((r["id"], r["c1"], r["__START_AT"], r["__END_AT"]) for r in
                          ref.apply(events, ref.Config(columns=("id", "c1"), key_columns=("id",), scd_type=2)))
        got_auto = sorted(p.fetch(f'select id, c1, "__START_AT", "__END_AT" from {p.relation("sc_auto_cdc_" + tag)}'))
        to_version = dict(zip(stamps[tag], order))
        got_dbt = sorted((i, c, to_version.get(f, f), to_version.get(t, t) if t is not None else None)
                         for i, c, f, t in p.fetch(f"select id, c1, dbt_valid_from, dbt_valid_to "
                                                   f"from {p.relation('sc_dbt_' + tag)}"))
        out[tag] = {"case": f"snapshots {SNAP_VERSIONS} (id, c1) delivered one per run in the order {order}; "
                            "rows are (id, c1, start version, end version)",
                    "expected": expected,
                    "auto_cdc_snapshot": {"rows": got_auto, "correct": got_auto == expected},
                    "dbt_snapshot": {"rows": got_dbt, "correct": got_dbt == expected,
                                     "wrong": _diff_rows(expected, got_dbt)}}
    return out


def _diff_rows(expected: list, got: list) -> dict:
    return {"missing": [r for r in expected if r not in got], "extra": [r for r in got if r not in expected]}


# ---------------------------------------------------------------------------------------------------------------
# The benchmark
# ---------------------------------------------------------------------------------------------------------------

PARTS = ("scaling", "peers", "late", "correctness")


def bench_engine(p: Project, s: dict, parts=PARTS, repeat: int = 1, log=print) -> dict:
    e, W, B = p.engine, s["W"], s["B"]
    T1, T2 = s["T"]
    assert 1 <= repeat <= 4, "batch sequences allow at most 4 repeats"
    out: dict = {"sizes": s, "repeat": repeat, "timings": {}, "ratios": {}, "correctness": {}}
    tm = out["timings"]

    # -- targets built by a first run (untimed), one feed table per model ---------------------------------------
    log(f"[{e}] building targets: T={T1:,} and {T2:,} rows (SCD1, SCD2), late-event histories, snapshot job")
    K = s["late_keys"]
    if "scaling" in parts or "peers" in parts:
        for scd in (1, 2) if "scaling" in parts else (1,):
            for T in (T1, T2) if "scaling" in parts else (T1,):
                name = f"scd{scd}_{T}"
                replace_table(p, f"feed_{name}", initial_feed_sql(e, T, 1, W))
                auto_cdc_model(p, name, f"feed_{name}", scd)
        for T in (T1, T2) if "scaling" in parts else (T1,):
            incremental_peer_model(p, f"incremental_{T}", f"feed_scd1_{T}", W)
        if "scaling" in parts:  # the least SCD2 apply that keeps a log, on the SCD2 model's batches
            least_scd2_model(p, f"least_scd2_{T1}", f"feed_scd2_{T1}", W)
    if "late" in parts:
        for k in (K, 10 * K):
            replace_table(p, f"feed_late_{k}", initial_feed_sql(e, k, s["late_e"], W))
            auto_cdc_model(p, f"late_{k}", f"feed_late_{k}", 2)
        # the same history into an SCD1 target, for the compaction (every event but a key's last can go)
        replace_table(p, f"feed_history_scd1_{10 * K}", initial_feed_sql(e, 10 * K, s["late_e"], W))
        auto_cdc_model(p, f"history_scd1_{10 * K}", f"feed_history_scd1_{10 * K}", 1)
    if "peers" in parts:
        replace_table(p, "snap_src", snapshot_sql(e, s["snap"], 0, W))
        auto_cdc_snapshot_model(p, "snap_auto_cdc", "snap_src")
        snapshot_peer(p, "snap_dbt", "snap_src", W)
        least_snapshot_model(p, "snap_least", "snap_src", W)
    t0 = time.perf_counter()
    if "scaling" in parts or "peers" in parts or "late" in parts:
        p.run()
    if "peers" in parts:
        p.dbt("snapshot")
    out["build_s"] = round(time.perf_counter() - t0, 1)

    # Each timing is the best of `repeat` runs (successive batches; the machine is shared and noisy).
    R = repeat

    def keep_best(key: str, runs: list[dict], label: str | None = None) -> None:
        """The run of least apply time as the timing of `key`, with the least run time and every run's."""
        best = dict(min(runs, key=lambda t: t["apply_s"]))
        best["run_s"] = min(t["run_s"] for t in runs)
        best["apply_all"], best["run_all"] = [t["apply_s"] for t in runs], [t["run_s"] for t in runs]
        tm[key] = best
        log(f"[{e}] {label or key}: {_short(best)}")

    def timed(key: str, command: str, name: str, feed: str | None = None, batches=()) -> None:
        runs = []
        for batch in batches or [None] * R:
            if feed is not None:
                replace_table(p, feed, batch)
            runs.append(dbt_timed(p, command, name))
        keep_best(key, runs)

    # -- 1+2: the same batch B into targets of T1 and T2 rows; the floor next to each ----------------------------
    for T in ((T1, T2) if "scaling" in parts else (T1,) if "peers" in parts else ()):
        batches = [batch_sql(e, B, T, 1, r, W, late=0.0) for r in range(1, R + 1)]
        for scd in (1, 2) if "scaling" in parts else (1,):
            name = f"scd{scd}_{T}"
            # the peer on the very same batches, run alternately: SCD1 the hand-written incremental model,
            # SCD2 (at T1) the least apply that keeps a log
            peer = f"incremental_{T}" if scd == 1 else f"least_scd2_{T}" if T == T1 else None
            if peer is None:
                timed(f"{name}_b{B}", "run", name, f"feed_{name}", batches)
                continue
            runs_a, runs_p = [], []
            for batch in batches:
                replace_table(p, f"feed_{name}", batch)
                runs_a.append(dbt_timed(p, "run", name))
                runs_p.append(dbt_timed(p, "run", peer))
            keep_best(f"{name}_b{B}", runs_a)
            keep_best(f"{peer}_b{B}", runs_p)
        if "scaling" in parts:
            tm[f"floor_{T}_b{B}"] = {"apply_s": floor_seconds(p, f"floor_{T}", T, batches[0], W, R)}
    FB = s["floor_b"]
    if FB != B and "scaling" in parts:  # the floor at size: a bigger batch into the larger target (later runs)
        batches = [batch_sql(e, FB, T2, 1, r, W, late=0.0) for r in range(R + 1, 2 * R + 1)]
        for scd in (1, 2):
            name = f"scd{scd}_{T2}"
            timed(f"{name}_b{FB}", "run", name, f"feed_{name}", batches)
        tm[f"floor_{T2}_b{FB}"] = {"apply_s": floor_seconds(p, f"floor_{T2}", T2, batches[0], W, R)}

    # -- 3: peers: the snapshot job (each repeat a new version against the same previous state) -----------------
    if "peers" in parts:
        for tool, command in (("snap_auto_cdc", "run"), ("snap_dbt", "snapshot"), ("snap_least", "run")):
            runs = []
            for r in range(R):
                replace_table(p, "snap_src", snapshot_sql(e, s["snap"], r + 1, W))
                runs.append(dbt_timed(p, command, tool))
            keep_best(tool, runs, f"snapshot job, {tool}")

    # -- 4: late events: no late events, then 20% late, into histories of K and 10K keys -------------------------
    for k in ((K, 10 * K) if "late" in parts else ()):
        n = B if B <= k else k
        timed(f"late_{k}_late0", "run", f"late_{k}", f"feed_late_{k}",
              [batch_sql(e, n, k, s["late_e"], r, W, late=0.0) for r in range(1, R + 1)])
        timed(f"late_{k}_late20", "run", f"late_{k}", f"feed_late_{k}",
              [batch_sql(e, n, k, s["late_e"], r, W, late=LATE_SHARE) for r in range(R + 1, 2 * R + 1)])

    # -- statements of a run with nothing new (the feed emptied) --------------------------------------------------------
    if "scaling" in parts:
        for scd in (1, 2):
            name = f"scd{scd}_{T1}"
            replace_table(p, f"feed_{name}", batch_sql(e, 1, T1, 1, 1, W, late=0.0) + " where false")
            tm[f"{name}_empty"] = dbt_timed(p, "run", name)
            log(f"[{e}] {name}_empty: {_short(tm[f'{name}_empty'])}")

    # -- storage: bookkeeping bytes per target byte, after the timed runs ----------------------------------------------
    sizes = relation_bytes(p)
    out["storage"] = {name: bookkeeping(sizes, name) for name in sizes
                      if name + NAMES["log_suffix"] in sizes or name in ("snap_dbt", f"incremental_{T1}")}
    for name, b in out["storage"].items():
        log(f"[{e}] storage {name}: target {b['target_bytes']:,} bytes, bookkeeping {b['per_target_byte']} per target byte")

    # -- compaction: each log compacted at its greatest sequence, its bytes before and after -----------------------
    compacted = [n for n in (f"scd1_{T2 if 'scaling' in parts else T1}", f"history_scd1_{10 * K}", f"late_{10 * K}")
                 if n in out["storage"]]
    out["compaction"] = compaction(p, compacted, sizes)
    for name, c in out["compaction"].items():
        log(f"[{e}] compaction {name}: log {c['log_rows_before']:,} -> {c['log_rows_after']:,} rows, "
            f"{c['log_bytes_before']:,} -> {c['log_bytes_after']:,} bytes ({c['log_bytes_reclaimed']:,} once reclaimed)")

    # -- correctness of the peers -----------------------------------------------------------------------------------
    if "correctness" in parts:
        out["correctness"]["change_feed"] = check_change_feed_peers(p)
        snapshots = check_snapshot_peers(p, {"in_order": [1, 2, 3], "late": [1, 3, 2]})
        out["correctness"]["snapshots_in_order"] = snapshots["in_order"]
        out["correctness"]["snapshots_late"] = snapshots["late"]

    # -- ratios -----------------------------------------------------------------------------------------------------
    r = out["ratios"]
    a = lambda key: tm[key]["apply_s"]  # noqa: E731
    w = lambda key: tm[key]["run_s"]  # noqa: E731

    def ratio(name: str, value, what: str, target, higher_is_better: bool = False) -> None:
        try:
            r[name] = {"value": value(), "what": what, "target": target, "higher_is_better": higher_is_better}
        except KeyError:  # a part that was not run
            pass

    for scd in (1, 2):
        ratio(f"floor_scd{scd}", lambda: a(f"scd{scd}_{T2}_b{FB}") / a(f"floor_{T2}_b{FB}"),
              f"SCD{scd} apply of {FB:,} events into {T2:,} rows / floor insert", FLOOR_TARGETS[e][scd - 1])
        ratio(f"scaling_scd{scd}", lambda: a(f"scd{scd}_{T2}_b{B}") / a(f"scd{scd}_{T1}_b{B}"),
              f"SCD{scd} apply of {B:,} events: {T2:,}-row / {T1:,}-row target", 1.2)
        ratio(f"scaling_scd{scd}_run", lambda: w(f"scd{scd}_{T2}_b{B}") / w(f"scd{scd}_{T1}_b{B}"),
              "same, whole dbt run", 1.2)
    ratio("scaling_floor", lambda: a(f"floor_{T2}_b{B}") / a(f"floor_{T1}_b{B}"),
          f"floor insert of {B:,} rows: {T2:,} / {T1:,} rows (index effects)", None)
    ratio("scaling_incremental", lambda: a(f"incremental_{T2}_b{B}") / a(f"incremental_{T1}_b{B}"),
          f"hand-written incremental model apply of {B:,} events: {T2:,}-row / {T1:,}-row target", None)
    ratio("snapshot_speedup", lambda: w("snap_dbt") / w("snap_auto_cdc"),
          f"dbt snapshot run / auto_cdc_snapshot SCD2 run ({s['snap']:,} rows, 1% changed, 0.1% deleted)", 2.0, True)
    ratio("snapshot_speedup_apply", lambda: a("snap_dbt") / a("snap_auto_cdc"), "same, node execution only", 2.0, True)
    ratio("scd1_vs_incremental", lambda: w(f"scd1_{T1}_b{B}") / w(f"incremental_{T1}_b{B}"),
          f"auto_cdc SCD1 run / hand-written incremental run ({B:,} events into {T1:,} rows)", 1.2)
    ratio("scd1_vs_incremental_apply", lambda: a(f"scd1_{T1}_b{B}") / a(f"incremental_{T1}_b{B}"),
          "same, node execution only", 1.2)
    ratio("scd2_vs_least_apply", lambda: a(f"scd2_{T1}_b{B}") / a(f"least_scd2_{T1}_b{B}"),
          f"auto_cdc SCD2 node / least_scd2 node ({B:,} events into {T1:,} rows)", None)
    ratio("scd2_vs_least", lambda: w(f"scd2_{T1}_b{B}") / w(f"least_scd2_{T1}_b{B}"), "same, whole dbt runs", None)
    ratio("snapshot_vs_least_apply", lambda: a("snap_auto_cdc") / a("snap_least"),
          f"auto_cdc_snapshot node / least_snapshot node ({s['snap']:,} rows)", None)
    ratio("snapshot_vs_least", lambda: w("snap_auto_cdc") / w("snap_least"), "same, whole dbt runs", None)
    ratio("floor_incremental", lambda: a(f"incremental_{T1}_b{B}") / a(f"floor_{T1}_b{B}"),
          f"hand-written incremental model apply of {B:,} events into {T1:,} rows / floor insert (dbt's own model)",
          None)
    ratio("late_cost", lambda: a(f"late_{K}_late20") / a(f"late_{K}_late0"),
          f"SCD2 batch with 20% late events / none ({K * s['late_e']:,}-row history)", 2.0)
    ratio("late_history_scaling", lambda: a(f"late_{10 * K}_late20") / a(f"late_{K}_late20"),
          f"SCD2 batch with 20% late events: {10 * K * s['late_e']:,}-row / {K * s['late_e']:,}-row history", 1.5)
    st = out["statements"] = {}

    def statements(name: str, key: str, what: str, target) -> None:
        if key in tm:
            st[name] = {"value": tm[key]["apply_statements"], "all": tm[key]["statements"], "what": what,
                        "target": target}

    for scd in (1, 2):
        statements(f"scd{scd}_batch", f"scd{scd}_{T1}_b{B}", f"SCD{scd} run of {B:,} in-order events", 12)
        statements(f"scd{scd}_empty", f"scd{scd}_{T1}_empty", f"SCD{scd} run with nothing new", 5)
    statements("scd2_late20", f"late_{K}_late20", "SCD2 run of a batch with 20% late events", None)
    statements("snapshot_scd2", "snap_auto_cdc", "auto_cdc_snapshot SCD2 run of one new snapshot", None)
    statements("dbt_snapshot", "snap_dbt", "dbt snapshot run of the same snapshot", None)
    statements("incremental", f"incremental_{T1}_b{B}", "hand-written incremental run", None)
    for v in st.values():
        v["met"] = None if v["target"] is None else v["value"] <= v["target"]
    for key, name, what in ((f"scd1_{T2 if 'scaling' in parts else T1}", "bookkeeping_scd1", "the SCD1 target"),
                            (f"scd2_{T2}", "bookkeeping_scd2", "the SCD2 target"),
                            ("snap_auto_cdc", "bookkeeping_snapshot", "the auto_cdc_snapshot SCD2 target"),
                            (f"late_{10 * K}", "bookkeeping_scd2_history", "the SCD2 target of 5 events per key")):
        b = out["storage"].get(key)
        if b and b["per_target_byte"] is not None:
            r[name] = {"value": b["per_target_byte"], "target": None,
                       "what": f"bookkeeping bytes per target byte, {what} (the largest built)"}
    for v in r.values():
        v["value"] = round(v["value"], 2)
        t = v["target"]
        v["met"] = None if t is None else (v["value"] >= t if v.get("higher_is_better") else v["value"] <= t)
    return out


def print_table(results: dict) -> None:
    engines = list(results["engines"])
    keys = list(dict.fromkeys(k for e in engines for k in results["engines"][e]["ratios"]))
    print("\n| ratio | target | " + " | ".join(engines) + " |")
    print("|---|---|" + "---|" * len(engines))
    for k in keys:
        first = next(results["engines"][e]["ratios"][k] for e in engines if k in results["engines"][e]["ratios"])
        t = first["target"]
        target = "-" if t is None else (f">= {t}" if first.get("higher_is_better") else f"<= {t}")
        cells = []
        for e in engines:
            v = results["engines"][e]["ratios"].get(k)
            if v is None:
                cells.append("-")
                continue
            cells.append(f"{v['value']:.2f}" + ("" if v["met"] is None else (" ok" if v["met"] else " MISSED")))
        print(f"| {k}: {first['what']} | {target} | " + " | ".join(cells) + " |")
    keys = list(dict.fromkeys(k for e in engines for k in results["engines"][e].get("statements", {})))
    if keys:
        print("\n| statements per run: the materialization's (all, with BEGIN/COMMIT and the adapter's own) | target | "
              + " | ".join(engines) + " |")
        print("|---|---|" + "---|" * len(engines))
        for k in keys:
            first = next(results["engines"][e]["statements"][k] for e in engines if k in results["engines"][e]["statements"])
            cells = []
            for e in engines:
                v = results["engines"][e].get("statements", {}).get(k)
                cells.append("-" if v is None else f"{v['value']} ({v.get('all', v['value'])})"
                             + ("" if v["met"] is None else (" ok" if v["met"] else " MISSED")))
            target = "-" if first["target"] is None else f"<= {first['target']}"
            print(f"| {k}: {first['what']} | {target} | " + " | ".join(cells) + " |")
    print("\n| correctness (late-event cases) | " + " | ".join(engines) + " |")
    print("|---|" + "---|" * len(engines))
    for case, tools in (("change_feed", ("auto_cdc", "incremental")),
                        ("snapshots_in_order", ("auto_cdc_snapshot", "dbt_snapshot")),
                        ("snapshots_late", ("auto_cdc_snapshot", "dbt_snapshot"))):
        for tool in tools:
            cells = []
            for e in engines:
                c = results["engines"][e]["correctness"].get(case, {}).get(tool)
                if c is None:
                    cells.append("-")
                    continue
                cells.append("correct" if c["correct"] else "WRONG " + json.dumps(c.get("wrong"), default=str))
            print(f"| {case}: {tool} | " + " | ".join(cells) + " |")


# The tools timed on one job, by name: a label a reader understands and the timing's key (`{B}`, `{T1}` stand for
# the engine's batch and smaller target). The charts and the headline tables (bench/report.py) read them.
TOOLS = {
    "floor": ("plain insert of the batch (the floor)", "floor_{T1}_b{B}"),
    "incremental": ("hand-written incremental model", "incremental_{T1}_b{B}"),
    "scd1": ("auto_cdc SCD1", "scd1_{T1}_b{B}"),
    "least_scd2": ("least SCD2 apply that keeps a log", "least_scd2_{T1}_b{B}"),
    "scd2": ("auto_cdc SCD2", "scd2_{T1}_b{B}"),
    "dbt_snapshot": ("dbt snapshot (check strategy)", "snap_dbt"),
    "least_snapshot": ("least snapshot apply that keeps a log", "snap_least"),
    "auto_cdc_snapshot": ("auto_cdc_snapshot", "snap_auto_cdc"),
}
# Each chart puts every tool's node time over one reference tool's, so that every bar reads "times the
# reference's time, lower is better": (reference, the bars).
CHARTS = {
    "change-feed": ("incremental", ["floor", "incremental", "scd1", "least_scd2", "scd2"]),
    "snapshot": ("dbt_snapshot", ["dbt_snapshot", "least_snapshot", "auto_cdc_snapshot"]),
}
# How a cost grows: each bar is a ratio of the same job's node times (bench_engine's `ratios`).
GROWTH = [
    ("auto_cdc SCD1 into a larger target", "scaling_scd1"),
    ("auto_cdc SCD2 into a larger target", "scaling_scd2"),
    ("hand-written model into a larger target", "scaling_incremental"),
    ("plain insert into a larger target", "scaling_floor"),
    ("auto_cdc SCD2, 20% late events", "late_cost"),
    ("auto_cdc SCD2 late events, 10x longer history", "late_history_scaling"),
]


def timing(engine: dict, tool: str) -> dict | None:
    """One engine's timing of a tool (TOOLS), or None where the run did not time it."""
    s = engine["sizes"]
    return engine["timings"].get(TOOLS[tool][1].format(B=s["B"], T1=s["T"][0]))


def chart_bars(engine: dict, chart: str) -> list[tuple[str, float]]:
    """The bars of one chart for one engine's results: (label, node time over the reference's node time)."""
    reference, tools = CHARTS[chart]
    ref_t = timing(engine, reference)
    if not ref_t or not ref_t["apply_s"]:
        return []
    return [(TOOLS[tool][0], timing(engine, tool)["apply_s"] / ref_t["apply_s"]) for tool in tools if timing(engine, tool)]


def growth_bars(engine: dict) -> list[tuple[str, float]]:
    return [(label, engine["ratios"][key]["value"]) for label, key in GROWTH if key in engine["ratios"]]


def plot(results: dict, directory: Path) -> list[Path]:
    """SVG charts, one bar per tool and engine, every bar of a chart a time over one reference time (lower is
    better): the change-feed job over the hand-written incremental model, the snapshot job over dbt's
    `snapshot`, and how each cost grows with the target and with late events. Named by the size."""
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # labels as text: readable at any zoom, and searchable
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    engines = list(results["engines"])
    size = results["size"]
    written = []

    def chart(filename: str, bars_of, xlabel: str) -> None:
        per_engine = {e: dict(bars_of(results["engines"][e])) for e in engines}
        labels = list(dict.fromkeys(label for e in engines for label in per_engine[e]))
        if not labels:
            return
        fig, ax = plt.subplots(figsize=(9, 0.5 * len(labels) * len(engines) + 1.7))
        height = 0.8 / len(engines)
        for j, e in enumerate(engines):
            ys = [i + j * height for i, label in enumerate(labels) if label in per_engine[e]]
            values = [per_engine[e][label] for label in labels if label in per_engine[e]]
            bars = ax.barh(ys, values, height=height, label=e)
            ax.bar_label(bars, labels=[f"{v:.2f}x" for v in values], padding=3, fontsize=10)
        ax.axvline(1.0, color="black", linewidth=1)
        ax.set_yticks([i + 0.4 - height / 2 for i in range(len(labels))], labels, fontsize=11)
        ax.invert_yaxis()
        ax.set_xlim(0, max(v for e in engines for v in per_engine[e].values()) * 1.22)
        ax.set_xlabel(xlabel, fontsize=11)
        ax.set_title(f"{'default size' if size == 'small' else size + ' size'}, measured {results['started_at'][:10]}",
                     fontsize=11, loc="left")
        ax.legend(fontsize=10, loc="lower right", bbox_to_anchor=(1.0, 1.0), ncol=len(engines), frameon=False)
        fig.tight_layout()
        path = directory / filename
        fig.savefig(path, metadata={"Date": None})
        plt.close(fig)
        written.append(path)

    chart(f"bench-{size}-change-feed.svg", lambda eng: chart_bars(eng, "change-feed"),
          "node time, times the hand-written incremental model's (lower is better)")
    chart(f"bench-{size}-snapshot.svg", lambda eng: chart_bars(eng, "snapshot"),
          "node time, times dbt snapshot's (lower is better)")
    chart(f"bench-{size}-growth.svg", growth_bars,
          "node time, times the same job's on the smaller target,\n"
          "with no late events, or on the shorter history (lower is better)")
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", choices=sorted(SIZES), default="small")
    parser.add_argument("--engines", default="duckdb,postgres")
    parser.add_argument("--out", type=Path, help="the results JSON (default bench/results/<size>.json, which "
                        "bench/report.py renders into docs/benchmarks.md)")
    parser.add_argument("--parts", default=",".join(PARTS),
                        help="comma-separated subset of " + ",".join(PARTS) + " (scaling includes the floor)")
    parser.add_argument("--repeat", type=int, default=2, help="runs per timing, the best is kept (1-4)")
    parser.add_argument("--keep", action="store_true", help="keep the scratch projects (for profiling)")
    parser.add_argument("--plots", type=Path, default=REPO / "docs" / "img",
                        help="directory of the SVG charts (docs/img, which docs/benchmarks.md shows)")
    parser.add_argument("--no-plots", action="store_true", help="write no charts")
    args = parser.parse_args(argv)
    os.environ.setdefault("DO_NOT_TRACK", "1")
    engines = [x.strip() for x in args.engines.split(",") if x.strip()]
    parts = tuple(x.strip() for x in args.parts.split(",") if x.strip())
    if set(parts) - set(PARTS):
        parser.error(f"unknown parts: {sorted(set(parts) - set(PARTS))}")
    results = {"size": args.size, "repeat": args.repeat, "parts": list(parts), "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "machine": {"cpus": os.cpu_count(), "memory_gb": _memory_gb(), "platform": platform.platform(),
                           "python": platform.python_version(),
                           # the machine may be shared: its 1-minute load average when the run starts and ends
                           "load_average": [round(os.getloadavg()[0], 1)]},
               "engines": {}}
    t0 = time.perf_counter()
    for engine in engines:
        server = None
        tmp = Path(tempfile.mkdtemp(prefix=f"auto_cdc_bench_{engine}_"))
        try:
            env = None
            if engine == "postgres":
                from auto_cdc_testkit.testing import postgres
                server = postgres.start()
                env = server.env()
                results["machine"]["postgres"] = getattr(server, "version", None)
            p = Project(tmp / "project", engine, env, name="auto_cdc_bench")
            results["engines"][engine] = bench_engine(p, SIZES[args.size][engine], parts, args.repeat)
            if args.keep:
                print(f"[{engine}] scratch project kept in {p.path}")
            else:
                p.close()
        finally:
            if server is not None:
                server.stop()
            if not args.keep:
                shutil.rmtree(tmp, ignore_errors=True)
    results["total_s"] = round(time.perf_counter() - t0, 1)
    results["machine"]["load_average"].append(round(os.getloadavg()[0], 1))
    from dbt.version import __version__ as dbt_version
    results["machine"]["dbt_core"] = dbt_version
    try:
        import duckdb
        results["machine"]["duckdb"] = duckdb.__version__
    except ImportError:
        pass
    args.out = args.out or REPO / "bench" / "results" / f"{args.size}.json"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, default=str))
    print_table(results)
    print(f"\nwritten {args.out} ({results['total_s']}s)")
    if not args.no_plots:
        for path in plot(results, args.plots):
            print(f"written {path}")
    return 0


def _memory_gb() -> float | None:
    try:
        with open("/proc/meminfo") as fh:
            return round(int(fh.readline().split()[1]) / 1024 / 1024, 1)
    except (OSError, ValueError, IndexError):
        return None


if __name__ == "__main__":
    sys.exit(main())
