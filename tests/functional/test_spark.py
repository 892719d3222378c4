"""The semantics tests on Spark, the third engine (AUTO_CDC_ENGINES=spark; see the README's Spark
section). Every Spark statement is a job of its own, so instead of one project per test, ONE project
holds every case as its own model and dbt runs once per delivery step (4 runs), in the test process:
the four runs and the reads share one driver (dbt-spark's `session` method):
- the documentation examples E1-E4 (E1 over three runs with a late truncate, then replayed; E2 and E3 snapshots
  over two runs; E4 one event per run), with the same expected tables as on DuckDB and Postgres;
- generated cases from the property tests' strategies (change feeds of every shape, snapshot series,
  snapshots interleaved with events), each compared with the reference model. They are drawn from
  AUTO_CDC_SPARK_SEED, by default the session's property seed (new at each run, printed in the header),
  so each run explores other cases and a failure is reproducible; and one named case beside them, late
  events that a truncate logged in an earlier run voids (TRUNCATE_THEN_LATE);
- cursor_column of a timestamp, a string (with a quote and a backslash) and a decimal, with rows at and just below
  the cursor a run reads from (a run writes the run log's cursor into its statements as a literal: prior_runs);
- the change data feed of test_changes.py (both change tables, and downstream models rebuilt from
  table_changes equal to their upstream targets), the counts of upserted and deleted rows in its runs' run log,
  and, on Delta, the path (fast or replayed) its keys take;
- on_schema_change: a new column is appended (or ignored), a dropped one kept; 'fail' fails that model
  with a clear error, and so does 'sync_all_columns' on parquet (a parquet table cannot drop a column),
  where on Delta it drops the column; on Delta, a column widened from int to bigint, and the target's
  version recorded by the runs that drop or widen a column;
- on Delta only: hand edits of targets (SCD1 and SCD2: updates, deletes, inserted rows, and a MERGE whose
  conditions resemble the model's own) kept by later runs, and auto_cdc.erase_keys.

Beside that project: runs failed at random statements on Delta, a run failed right after its log append (both
formats), the model's lock held by another run (both formats), and two
dbt processes racing one Delta model, both connected to a Spark Thrift server (the one test that does not
run dbt in the test process: its two runs need one metastore that two drivers cannot share).

The project runs on Delta Lake tables (the default where the session has Delta's catalog: no file_format is
set), and again as a smoke set on parquet (file_format: parquet for every model): the examples, one generated
SCD2 change feed, the change feeds and the schema changes.

Default tier: DEFAULT_SHAPES, 2 snapshot series and 1 combined case on Delta. Full tier (AUTO_CDC_SPARK_FULL=1):
every shape (SCD type x partial-update mode), 4 snapshot series, 3 combined cases, and the SCD1
variants of E2/E3."""
from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from decimal import Decimal

import pytest

from auto_cdc_testkit import faults, fixtures as fx, reference as ref
from auto_cdc_testkit.cases import Case, draw_example
from auto_cdc_testkit.harness import Project, ordered, sorted_rows, target_rows
from auto_cdc_testkit.statements import events as statement_events
from auto_cdc_testkit.testing import delta

from conftest import ENGINES
from test_combined import combined_cases
from test_properties import cases as property_cases, partial_modes
from test_snapshots import snapshot_cases

pytestmark = pytest.mark.skipif("spark" not in ENGINES, reason="the Spark tier runs with AUTO_CDC_ENGINES=spark")

FULL = os.environ.get("AUTO_CDC_SPARK_FULL", "") not in ("", "0")
SEED = int(os.environ.get("AUTO_CDC_SPARK_SEED", os.environ.get("AUTO_CDC_PROPERTY_SEED", "2026")))
# (SCD type, partial-update mode) of the generated change feeds
DEFAULT_SHAPES = [(1, None), (1, "columns_to_update"), (2, None), (2, "ignore_null_updates_column_list"),
                  ("bitemporal", None), ("bitemporal", "ignore_null_updates_except_column_list")]
FULL_SHAPES = [(scd, mode) for scd in (1, 2, "bitemporal") for mode in [None] + partial_modes(scd)]
SHAPES = FULL_SHAPES if FULL else DEFAULT_SHAPES
SNAPSHOT_SCDS = [1, 2, 1, 2] if FULL else [1, 2]
COMBINED_CASES = 3 if FULL else 1
RUNS = 3  # the generated cases' deliveries: runs 0-2; the last run (3) brings the schema change
FORMATS = ["delta", "parquet"]

E1_MODELS = {name: (config, "e1_feed_truncate" if truncated else "e1_feed", cols, expected)
             for name, (config, truncated, cols, expected) in fx.E1_MODELS.items()}
E1_BATCHES = [fx.E1_FEED[:3], fx.E1_FEED[3:6], fx.E1_FEED[6:], fx.E1_FEED]  # the last run replays it all (R2)

SNAP = fx.SNAPSHOT_COLUMNS
E2_V0, E2_V1, E2_SCD2, E2_SCD1 = fx.E2_V0, fx.E2_V1, fx.E2_SCD2, fx.E2_SCD1
E3_V1, E3_V2, E3_SCD2, E3_SCD1 = fx.E3_V1, fx.E3_V2, fx.E3_SCD2, fx.E3_SCD1
SNAP_CFG = dict(materialized="auto_cdc_snapshot", keys=["userId"], snapshot_version="version")
LAST = "{{ auto_cdc.last_snapshot_version() }}"


def install_examples(p: Project) -> dict:
    """The E1-E4 models; returns run -> list of deliveries and name -> (columns, expected rows)."""
    checks, deliveries = {}, {r: [] for r in range(4)}
    e1_cols = [c for c, _ in fx.E1_COLUMNS]
    p.table("e1_feed", fx.E1_COLUMNS)
    p.table("e1_feed_truncate", fx.E1_COLUMNS)
    for name, (config, feed, cols, expected) in E1_MODELS.items():
        p.feed_model(name, feed, materialized="auto_cdc", **config)
        checks[name] = (cols, expected)
    for run, batch in enumerate(E1_BATCHES):
        deliveries[run] += [("e1_feed", e1_cols, batch), ("e1_feed_truncate", e1_cols, batch)]
    deliveries[1].append(("e1_feed_truncate", e1_cols, [fx.E1_TRUNCATE]))  # a late truncate

    snap_cols = [c for c, _ in SNAP]
    p.table("e2_snap", SNAP)
    p.feed_model("e2_scd2", "e2_snap", **SNAP_CFG, stored_as_scd_type=2)
    checks["e2_scd2"] = (["userId", "city", "__START_AT", "__END_AT"], E2_SCD2)
    p.table("e3_snap", SNAP)
    p.model("e3_scd2", f"select * from {p.relation('e3_snap')} where {LAST} is null or version > {LAST}",
            **SNAP_CFG, stored_as_scd_type=2)
    checks["e3_scd2"] = (["userId", "city", "__START_AT", "__END_AT"], E3_SCD2)
    if FULL:
        p.feed_model("e2_scd1", "e2_snap", **SNAP_CFG)
        checks["e2_scd1"] = (["userId", "city"], E2_SCD1)
        p.model("e3_scd1", f"select * from {p.relation('e3_snap')} where {LAST} is null or version > {LAST}",
                **SNAP_CFG)
        checks["e3_scd1"] = (["userId", "city"], E3_SCD1)
    deliveries[0] += [("e2_snap", snap_cols, [(*r, 0) for r in E2_V0]), ("e3_snap", snap_cols, [(*r, 1) for r in E3_V1])]
    deliveries[1] += [("e2_snap", snap_cols, [(*r, 1) for r in E2_V1]), ("e3_snap", snap_cols, [(*r, 2) for r in E3_V2])]

    p.table("e4_feed", fx.E4_COLUMNS)
    p.feed_model("e4_bitemporal", "e4_feed", materialized="auto_cdc", **fx.E4_CONFIG)
    checks["e4_bitemporal"] = (fx.E4_TARGET_COLUMNS, fx.E4_AFTER[-1])
    for run, event in enumerate(fx.E4_FEED):  # one event per run: every intermediate state is applied
        deliveries[run].append(("e4_feed", [c for c, _ in fx.E4_COLUMNS], [event]))
    return {"checks": checks, "deliveries": deliveries}


def _event(k1, s1, op, a, loaded) -> dict:
    return {"k1": k1, "s1": s1, "op": op, "a": a, "b": None if a is None else f"v{a}", "cols": None, "st": None,
            "loaded": loaded}


# A truncate logged in one run voids the events before it that arrive in a later run: key 1 was deleted
# before the truncate and gets a late upsert, key 2 an upsert before and after it, key 3 a late upsert
# after an upsert; key 4 gets in-order events beside them. The feed is read through its cursor, so the
# last run's batch holds no truncate (the run before it re-read the truncate's delivery): that run must
# find the truncate in the log, for its new events and its classification (a key whose last event is a
# delete has no row to tell it apart).
TRUNCATE_THEN_LATE = Case(name="trlate", scd=1, key_columns=["k1"], seq_columns=["s1"], use_cursor=True, rows=[
    _event(1, 1, "U", 1, 0), _event(1, 3, "D", None, 0), _event(2, 2, "U", 2, 0), _event(3, 1, "U", 3, 0),
    _event(4, 1, "U", 4, 0),
    _event(None, 10, "T", None, 1),
    _event(4, 11, "U", 41, 2),
    _event(1, 5, "U", 15, 3), _event(2, 12, "U", 22, 3), _event(3, 6, "U", 36, 3), _event(4, 12, "U", 42, 3)])


def generated_cases(file_format: str = "delta") -> list:
    """The generated cases, each drawn from its own seed (SEED + offset), so the batch is the same at
    every run with the same seed (a failing case is printed whole). Each spreads its rows over RUNS
    runs (the project runs dbt that often anyway), so every case is applied incrementally. Parquet, the
    path for clusters without Delta, keeps a smoke set: one SCD2 change feed beside the examples, the change
    feeds and the schema changes (the full tier: every case)."""
    if file_format != "delta" and not FULL:
        return [draw_example(property_cases(2, scd=2, partial=None, runs=RUNS), SEED + 2)]
    out = [draw_example(property_cases(i, scd=scd, partial=mode, runs=RUNS), SEED + i) for i, (scd, mode) in enumerate(SHAPES)]
    out += [draw_example(snapshot_cases(i, scd=scd, runs=RUNS), SEED + 100 + i) for i, scd in enumerate(SNAPSHOT_SCDS)]
    out += [draw_example(combined_cases(i, runs=RUNS), SEED + 200 + i) for i in range(COMBINED_CASES)]
    return out + [TRUNCATE_THEN_LATE]


# cursor_column of other types than the generated cases' integers: a run reads its cursor from the run log once
# and writes it into its statements as a literal (prior_runs), which must be exact. Three levels per column,
# each row giving every column the same level: LOW < AT < HIGH (microseconds apart for the timestamp; a prefix,
# with a quote and a backslash, for the string).
CURSOR_FEED = [("id", "integer"), ("seq", "integer"), ("a", "varchar"), ("c_ts", "timestamp"), ("c_str", "varchar"),
               ("c_dec", "decimal(12,3)")]
CURSOR_LEVELS = {"low": (datetime(2026, 11, 1, 1, 30, 0, 123455), "m'\\", Decimal("1.004")),
                 "at": (datetime(2026, 11, 1, 1, 30, 0, 123456), "m'\\0", Decimal("1.005")),
                 "high": (datetime(2026, 11, 2), "m'\\1", Decimal("2.000"))}
# (run, id, seq, a, level). Run 0 reads all; run 1 reads from `at` (its boundary row updates key 1, key 3's row
# below it is not read); run 2 reads from `high` (key 2's boundary row is read, key 1's row at `at` is not).
CURSOR_ROWS = [(0, 1, 1, "a1", "at"), (0, 2, 1, "b1", "low"),
               (1, 1, 2, "a2", "at"), (1, 3, 1, "c1", "low"), (1, 2, 2, "b2", "high"),
               (2, 2, 3, "b3", "high"), (2, 1, 3, "a3", "at")]
CURSOR_MODELS = {"cur_ts": "c_ts", "cur_str": "c_str", "cur_dec": "c_dec"}


def install_cursor_types(p: Project) -> dict:
    """The cursor models; returns run -> deliveries."""
    p.table("cursor_feed", CURSOR_FEED)
    for name, column in CURSOR_MODELS.items():
        p.feed_model(name, "cursor_feed", materialized="auto_cdc", keys=["id"], sequence_by="seq", cursor_column=column,
                     except_column_list=["seq"] + list(CURSOR_MODELS.values()))
    cols = [c for c, _ in CURSOR_FEED]
    return {run: [("cursor_feed", cols, [(i, s, a, *CURSOR_LEVELS[level]) for r, i, s, a, level in CURSOR_ROWS if r == run])]
            for run in range(3)}


def check_cursor_types(p: Project) -> list[str]:
    failures = []
    for name, column in CURSOR_MODELS.items():
        rows = sorted((r["id"], r["a"]) for r in p.rows(name))
        if rows != [(1, "a2"), (2, "b3")]:
            failures.append(f"{name} (cursor_column {column}): got {rows}, expected [(1, 'a2'), (2, 'b3')]")
        last = max(p.rows(name + "__auto_cdc_runs"), key=lambda r: r["run_id"])["cursor_value"]
        high = CURSOR_LEVELS["high"][list(CURSOR_MODELS).index(name)]
        if str(last) != str(high):
            failures.append(f"{name}: the run log's last cursor_value is {last!r}, expected {high!r}")
    return failures


# On Delta, the change feed's targets again with the sequence column shown (tracked, for SCD2): each key's row
# after a run then replaces the one it held, and a run whose keys all take the fast path (the second) takes the
# rows they hold from the log, not the target (held_from_log_applies); their feeds and rows are the others'
SEQ_SHOWN = {"cdf_scd1_seq": "cdf_scd1", "cdf_scd2_seq": "cdf_scd2"}


def install_change_feeds(p: Project, file_format: str) -> dict:
    """test_changes.py's feed over an SCD1 and an SCD2 target with change_data_feed, each with a
    downstream model that rebuilds it from table_changes (it catches up in the last run); on Delta, the
    two targets with the sequence shown too (SEQ_SHOWN)."""
    p.table("cdf_feed", fx.CDF_COLUMNS)
    p.feed_model("cdf_scd1", "cdf_feed", **fx.CDF_CONFIG)
    p.feed_model("cdf_scd2", "cdf_feed", **fx.CDF_CONFIG, stored_as_scd_type=2)
    if file_format == "delta":
        shown = {**fx.CDF_CONFIG, "except_column_list": ["op"]}
        p.feed_model("cdf_scd1_seq", "cdf_feed", **shown)
        p.feed_model("cdf_scd2_seq", "cdf_feed", **shown, stored_as_scd_type=2)
    start, end = "{{ adapter.quote('__START_AT') }}", "{{ adapter.quote('__END_AT') }}"
    p.model("cdf_scd1_copy", fx.CDF_DOWNSTREAM_SQL.format(cols="id, a", up="cdf_scd1"), keys=["id"],
            **fx.CDF_DOWNSTREAM_CONFIG)
    p.model("cdf_scd2_copy", fx.CDF_DOWNSTREAM_SQL.format(cols=f"id, a, {start} as start_at, {end} as end_at", up="cdf_scd2"),
            keys=["id", "start_at"], **fx.CDF_DOWNSTREAM_CONFIG)
    cols = [c for c, _ in fx.CDF_COLUMNS]
    return {run: [("cdf_feed", cols, batch)] for run, batch in enumerate(fx.CDF_BATCHES)}


def change_feed_rows(p: Project, name: str, file_format: str) -> list[dict]:
    """The change feed of a target: on parquet the table beside it; on Delta the target's own change data
    feed, read with table_changes() from version 0, its versions numbered 1, 2, ... in order (a Delta
    table's versions also count its creation and other commits, such as schema changes)."""
    if file_format != "delta":
        return p.rows(name + "__auto_cdc_changes")
    rows = p._spark_read({"q": f"select * from table_changes('{p.schema}.{name}', 0)"})["q"]
    rank = {v: i + 1 for i, v in enumerate(sorted({r["_commit_version"] for r in rows}))}
    return [{**r, "_commit_version": rank[r["_commit_version"]]} for r in rows]


def check_paths(p: Project) -> list[str]:
    """On Delta, the change feed's keys take the paths they take on DuckDB and Postgres: in its second run
    all three keys follow their last events (the fast path), in its third the late event replays key 1."""
    failures = []
    for name in ("cdf_scd1", "cdf_scd2", *SEQ_SHOWN):
        runs = sorted((r["run_id"], r["fast_keys"], r["replayed_keys"]) for r in p.rows(name + "__auto_cdc_runs"))
        if runs[1:3] != [(2, 3, 0), (3, 0, 1)]:
            failures.append(f"{name}: (run, fast keys, replayed keys) {runs}, expected runs 2 and 3 (2, 3, 0), (3, 0, 1)")
    return failures


# (run, num_upserted_rows, num_deleted_rows) of the change-feed models' first three runs, as DuckDB and Postgres
# count them: a Spark run counts its stale and missing rows before its write (_change_counts), except a Delta run
# whose keys all take the fast path (the second run here), which takes them from its MERGE's result
CDF_METRICS = {"cdf_scd1": [(1, 2, 0), (2, 2, 1), (3, 0, 0)], "cdf_scd2": [(1, 2, 0), (2, 4, 0), (3, 2, 0)]}


def check_metrics(p: Project, file_format: str) -> list[str]:
    failures = []
    shown = [(name, CDF_METRICS[up]) for name, up in SEQ_SHOWN.items()] if file_format == "delta" else []
    for name, expected in [*CDF_METRICS.items(), *shown]:
        runs = sorted((r["run_id"], r["num_upserted_rows"], r["num_deleted_rows"]) for r in p.rows(name + "__auto_cdc_runs"))
        if runs[:3] != expected:
            failures.append(f"{name}: (run, num_upserted_rows, num_deleted_rows) {runs}, expected {expected} first")
    return failures


def check_change_feeds(p: Project, file_format: str) -> list[str]:
    failures = []
    shown = {up: name for name, up in SEQ_SHOWN.items()} if file_format == "delta" else {}
    for name, expected, extra in [("cdf_scd1", fx.CDF_SCD1_CHANGES, []),
                                  ("cdf_scd2", fx.CDF_SCD2_CHANGES, ["__START_AT", "__END_AT"])]:
        for model in [name] + ([shown[name]] if name in shown else []):
            actual = sorted_rows(change_feed_rows(p, model, file_format), ["id", "a"] + extra + ["_change_type", "_commit_version"])
            if actual != ordered(expected):
                failures.append(f"{model} change feed: got {actual}, expected {ordered(expected)}")
        if name in shown and target_rows(p, shown[name], ["id", "a"] + extra) != target_rows(p, name, ["id", "a"] + extra):
            failures.append(f"{shown[name]} differs from {name}: {target_rows(p, shown[name], ['id', 'a'] + extra)}")
    if file_format == "delta" and "cdf_scd1__auto_cdc_changes" in [r["tableName"] for r in p._spark_read(
            {"q": f"show tables in `{p.schema}`"})["q"]]:
        failures.append("a Delta target with change_data_feed has a change feed table beside it")
    for up, cols, copy_cols in [("cdf_scd1", ["id", "a"], ["id", "a"]),
                                ("cdf_scd2", ["id", "a", "__START_AT", "__END_AT"], ["id", "a", "start_at", "end_at"])]:
        if target_rows(p, up + "_copy", copy_cols) != target_rows(p, up, cols):
            failures.append(f"{up}_copy (rebuilt from table_changes) differs from {up}: "
                            f"{target_rows(p, up + '_copy', copy_cols)} vs {target_rows(p, up, cols)}")
    return failures


SCHEMA_MODES = ["append_new_columns", "ignore", "fail", "sync_all_columns"]
# the Delta models whose last run drops (sync_all_columns) or widens (sc_widen) a column of the target
SCHEMA_CHANGED = ["sc_sync_all_columns", "sc_widen"]
SCHEMA_FEED = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("a", "varchar"), ("extra", "varchar"),
               ("email", "varchar")]


def schema_models(p: Project, columns: str, file_format: str, widened: bool = False) -> None:
    for mode in SCHEMA_MODES:
        p.model(f"sc_{mode}", f"select {columns} from {p.relation('sc_feed')}", materialized="auto_cdc", keys=["id"],
                sequence_by="seq", apply_as_deletes="op = 'D'", except_column_list=["op", "seq"], on_schema_change=mode)
    if file_format == "delta":  # a column widened from int to bigint (type widening; parquet fails the run)
        p.model("sc_widen", f"select id, seq, op, a, cast(id as {'bigint' if widened else 'int'}) as w "
                f"from {p.relation('sc_feed')}", materialized="auto_cdc", keys=["id"], sequence_by="seq",
                apply_as_deletes="op = 'D'", except_column_list=["op", "seq"], on_schema_change="append_new_columns")


def check_schema_changes(p: Project, last_run, file_format: str) -> list[str]:
    """After the last run, whose models read `email` instead of `extra`. A Delta table drops a column
    (column mapping by name); a parquet table cannot, so sync_all_columns fails there."""
    failures = []
    results = json.loads((p.path / "target" / "run_results.json").read_text())["results"]
    failed = sorted(r["unique_id"].split(".")[-1] for r in results if r["status"] != "success")
    expected_failed = ["sc_fail"] + (["sc_sync_all_columns"] if file_format == "parquet" else [])
    if failed != expected_failed:
        failures.append(f"models that failed the last run: {failed}, expected {expected_failed}")
    messages = ["on_schema_change is 'fail' (new: email; missing: extra"]
    if file_format == "parquet":
        messages.append("(drop extra) and a parquet table on Spark cannot drop a column or change its type")
    for message in messages:
        if message not in last_run.output:
            failures.append(f"no {message!r} in the last run's output")
    synced = ((["id", "a", "email"], [(1, "a", None), (2, "b", "b@x")]) if file_format == "delta"
              else (["id", "a", "extra"], [(1, "a", "e")]))
    expected = {"sc_append_new_columns": (["id", "a", "extra", "email"], [(1, "a", "e", None), (2, "b", None, "b@x")]),
                "sc_ignore": (["id", "a", "extra"], [(1, "a", "e"), (2, "b", None)]),
                "sc_fail": (["id", "a", "extra"], [(1, "a", "e")]),
                "sc_sync_all_columns": synced}
    for name, (cols, rows) in expected.items():
        if target_rows(p, name, cols) != rows:
            failures.append(f"{name}: got {target_rows(p, name, cols)}, expected {rows}")
    for name in ("sc_ignore", "sc_fail") + (("sc_sync_all_columns",) if file_format == "parquet" else ()):
        if "email" in p.rows(name)[0]:
            failures.append(f"{name} has the column email")
    if file_format == "delta" and "extra" in p.rows("sc_sync_all_columns")[0]:
        failures.append("sc_sync_all_columns kept the dropped column extra")
    if file_format == "delta":
        if target_rows(p, "sc_widen", ["id", "a", "w"]) != [(1, "a", 1), (2, "b", 2)]:
            failures.append(f"sc_widen: got {target_rows(p, 'sc_widen', ['id', 'a', 'w'])}, expected [(1, 'a', 1), (2, 'b', 2)]")
        types = {r["col_name"]: r["data_type"] for r in p._spark_read({"q": f"describe {p.relation('sc_widen')}"})["q"]}
        if types.get("w") != "bigint":
            failures.append(f"sc_widen: the column w is {types.get('w')}, expected bigint")
    return failures


# Hand edits and erase_keys on Delta (the cases of test_dml.py): statements run before a run's deliveries
DML_FEED = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("name", "varchar"), ("city", "varchar")]
DML_CFG = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
               except_column_list=["op", "seq"])
DML_SCD2_COLS = ["id", "name", "__START_AT", "__END_AT"]


def install_hand_edits(p: Project) -> dict:
    """Returns run -> [("sql", statement) or (feed, columns, rows)] and name -> (columns, expected rows)."""
    cols = [c for c, _ in DML_FEED]
    for feed in ("he1_feed", "he2_feed", "hm_feed", "er_feed", "eu_feed"):
        p.table(feed, DML_FEED)
    p.feed_model("he1", "he1_feed", **DML_CFG)
    p.feed_model("he2", "he2_feed", **DML_CFG, stored_as_scd_type=2)
    p.feed_model("hm", "hm_feed", **DML_CFG, stored_as_scd_type=2)
    p.feed_model("er", "er_feed", **DML_CFG, stored_as_scd_type=2, change_data_feed=True)
    p.feed_model("eu", "eu_feed", **DML_CFG, stored_as_scd_type=2)  # no hand edit: check_erase_unedited
    he1, he2, hm, er = p.relation("he1"), p.relation("he2"), p.relation("hm"), p.relation("er")
    steps = {
        0: [("he1_feed", cols, [(1, 5, "U", "a", "x"), (2, 5, "U", "b", "x"), (3, 5, "U", "c", "x")]),
            ("he2_feed", cols, [(1, 1, "U", "a1", "x"), (1, 3, "U", "a3", "x"), (1, 5, "U", "a5", "x"),
                                (2, 1, "U", "b1", "x"), (2, 4, "U", "b4", "x")]),
            ("hm_feed", cols, [(1, 1, "U", "a1", "x"), (1, 5, "U", "a5", "x"),
                               (2, 1, "U", "b1", "x"), (2, 5, "U", "b5", "x")]),
            ("er_feed", cols, [(1, 1, "U", "a", "x"), (1, 2, "D", None, None), (2, 1, "U", "b", "y"), (3, 1, "U", "c", "z")]),
            ("eu_feed", cols, [(1, 1, "U", "a", "x"), (2, 1, "U", "b", "y"), (3, 1, "U", "c", "z")])],
        # SCD1: an update, a delete and an inserted row, then late events (no effect on the edited key, no
        # resurrection of the deleted one; the inserted key's first event replaces the hand row)
        1: [("sql", f"update {he1} set name = 'A!' where id = 1"), ("sql", f"delete from {he1} where id = 2"),
            ("sql", f"insert into {he1} (id, name, city) values (9, 'hand', 'z')"),
            ("he1_feed", cols, [(1, 3, "U", "late", "x"), (2, 4, "U", "late", "x"), (9, 1, "U", "nine", "n"), (3, 6, "U", "c6", "x")]),
            # SCD2: a renamed middle version and a deleted closed version, then events on both keys
            ("sql", f"update {he2} set name = 'A3!' where id = 1 and `__START_AT` = 3"),
            ("sql", f"delete from {he2} where id = 2 and `__START_AT` = 1"),
            ("he2_feed", cols, [(1, 7, "U", "a7", "x"), (2, 6, "U", "b6", "x"), (1, 4, "U", "late", "x")]),
            # a MERGE by hand whose conditions name the source's column __auto_cdc_upsert and the run's id
            # negated (this is run 2), as the model's MERGE does, but not as its delete clause's whole
            # condition: a hand edit of key 2, which this run does not touch, so it leaves the target's version
            # unrecorded, and the next run, which touches key 2, folds the edit in
            ("sql", f"merge into {hm} t using (select 2 as id, 1 as start_at, 'B1!' as name, 2 as __auto_cdc_upsert) s"
                    " on t.id = s.id and t.`__START_AT` = s.start_at"
                    " when matched and s.__auto_cdc_upsert = 2 and s.id = -2 then delete"
                    " when matched then update set name = s.name"),
            ("hm_feed", cols, [(1, 7, "U", "a7", "x")]),
            ("sql", f"update {er} set name = 'C!' where id = 3"), ("er_feed", cols, [(3, 2, "U", "c2", "z")]),
            ("eu_feed", cols, [(1, 2, "U", "a2", "x")])],
        # every version of key 2 deleted: a delete at its last sequence (6) ends whatever comes before it, so
        # a late event at 5 is a closed version, and one at 8 opens the next
        2: [("sql", f"delete from {he2} where id = 2"), ("he2_feed", cols, [(2, 5, "U", "old", "x"), (2, 8, "U", "b8", "x")]),
            # a hand row inserted for a new key, folded in by the run that brings its first event (at 6)
            ("sql", f"insert into {he2} (id, name, city, `__START_AT`, `__END_AT`) values (5, 'hand', 'z', 5, NULL)"),
            ("he2_feed", cols, [(5, 6, "U", "six", "y")]),
            # a late event splits hm's hand-edited version: the renamed part before it is kept
            ("hm_feed", cols, [(2, 3, "U", "b3", "x")]),
            # a compaction changes no row: the change feed's target stays unedited (check_unedited)
            ("sql", f"optimize {p.relation('cdf_scd2')}")],
        # a source event at the hand row's sequence replaces its edit event (the feed wins over the placeholder)
        3: [("he2_feed", cols, [(5, 5, "U", "source", "y")])],
    }
    checks = {"he1": (["id", "name", "city"], [(1, "A!", "x"), (3, "c6", "x"), (9, "nine", "n")]),
              "he2": (DML_SCD2_COLS, [(1, "A3!", 3, 4), (1, "a1", 1, 3), (1, "a5", 5, 7), (1, "a7", 7, None),
                                      (1, "late", 4, 5), (2, "b8", 8, None), (2, "old", 5, 6), (5, "six", 6, None),
                                      (5, "source", 5, 6)]),
              "hm": (DML_SCD2_COLS, [(1, "a1", 1, 5), (1, "a5", 5, 7), (1, "a7", 7, None),
                                     (2, "B1!", 1, 3), (2, "b3", 3, 5), (2, "b5", 5, None)])}
    return {"steps": steps, "checks": checks}


def check_unedited(p: Project, runs: int) -> list[str]:
    """On Delta, a run records the target's version when no one but the model's runs changed its rows since
    the last run's (an OPTIMIZE before cdf_scd2's third run changes none; each run's MERGE names its run id;
    the last run's ALTERs of the columns it drops, sc_sync_all_columns, or widens, sc_widen, are its own);
    a hand edit (he1, he2 and hm, by a MERGE that resembles the model's, before their second run) leaves it
    unrecorded from then on, and each later run compares the target with the log."""
    failures = []
    for name, recorded in (("cdf_scd2", [True, True, True, True]), ("he1", [True, False, False, False]),
                           ("he2", [True, False, False, False]), ("hm", [True, False, False, False]),
                           *((name, [True] * 4) for name in SEQ_SHOWN),
                           *((name, [True] * runs) for name in SCHEMA_CHANGED)):
        got = sorted((r["run_id"], r["target_version"] is not None) for r in p.rows(name + "__auto_cdc_runs"))
        if [v for _, v in got[:len(recorded)]] != recorded:
            failures.append(f"{name}: (run, target version recorded) {got}, expected {recorded} for runs 1-{len(recorded)}")
    return failures


# A batch of more affected keys than a Delta run lists on its MERGE's target side (macros/dialect/apply.sql,
# _spark_key_filter): its MERGE reads the target's rows through a bitmap of WIDE_SLOTS bits. The keys are
# 7 * i - 20,000 for i up to 12,499, negative and positive. The batch updates the first 12,000 of them: the
# negative ones take the bitmap's last bits, many of its 64-bit words have their top bit set (a negative
# word), and a run of words between the batch's last key's bit and its first negative key's is 0, which the
# other 500 keys' bits fall in (they fail the bitmap, and must be left as they are).
WIDE_KEYS, WIDE_UPDATED, WIDE_SLOTS = 12_500, 12_000, 131071
WIDE_STEP, WIDE_FIRST = 7, -20_000  # key i is i * WIDE_STEP + WIDE_FIRST


def install_wide_batch(p: Project) -> dict:
    """An SCD2 model over a feed of WIDE_KEYS keys (run 0) and WIDE_UPDATED updates (run 1)."""
    p.table("wide_feed", [("id", "bigint"), ("seq", "integer"), ("a", "varchar")])
    p.feed_model("wide", "wide_feed", materialized="auto_cdc", keys=["id"], sequence_by="seq", stored_as_scd_type=2,
                 except_column_list=["seq"])
    feed = p.relation("wide_feed")
    return {0: [f"insert into {feed} select id * {WIDE_STEP} + {WIDE_FIRST}, 1, 'a' from range({WIDE_KEYS})"],
            1: [f"insert into {feed} select id * {WIDE_STEP} + {WIDE_FIRST}, 2, 'b' from range({WIDE_UPDATED})"]}


def check_wide_batch(p: Project) -> list[str]:
    """The wide batch's second run took the fast path with every key, its MERGE read the bitmap, and the
    target holds each key's versions: the updated keys' first closed by their second."""
    failures = []
    runs = sorted((r["run_id"], r["fast_keys"], r["replayed_keys"]) for r in p.rows("wide__auto_cdc_runs"))
    if runs[1] != (2, WIDE_UPDATED, 0):
        failures.append(f"wide: (run, fast keys, replayed keys) {runs}, expected run 2 ({WIDE_UPDATED} fast keys)")
    log = (p.path / "logs" / "dbt.log").read_text(errors="replace")
    if f"pmod(t.`id`, {WIDE_SLOTS})" not in log:
        failures.append(f"wide: no MERGE in logs/dbt.log read the bitmap (pmod(t.`id`, {WIDE_SLOTS}))")
    expected = sorted([(i * WIDE_STEP + WIDE_FIRST, "a", 1, 2 if i < WIDE_UPDATED else None) for i in range(WIDE_KEYS)]
                      + [(i * WIDE_STEP + WIDE_FIRST, "b", 2, None) for i in range(WIDE_UPDATED)], key=str)
    actual = sorted(((r["id"], r["a"], r["__START_AT"], r["__END_AT"]) for r in p.rows("wide")), key=str)
    if actual != expected:
        extra, missing = sorted(set(actual) - set(expected), key=str), sorted(set(expected) - set(actual), key=str)
        failures.append(f"wide: {len(actual)} rows, expected {len(expected)}; not expected {extra[:5]}, missing {missing[:5]}")
    return failures


def check_erase(p: Project) -> list[str]:
    """After the last run: erase keys 1 and 3 of `er` (SCD2 with a hand edit of key 3 folded in)."""
    result = p.dbt("run-operation", "auto_cdc.erase_keys", "--args", "{model: er, where: 'id in (1, 3)'}", check=False)
    if not result.ok or "2 key(s) erased from er: 3 row(s), er__auto_cdc_log: 6 row(s)" not in result.output:
        return [f"erase_keys on Delta: {result.output[-3000:]}"]
    return [f"{name} after erase_keys holds keys {sorted({r['id'] for r in p.rows(name)})}, expected [2]"
            for name in ("er", "er__auto_cdc_log") if {r["id"] for r in p.rows(name)} != {2}]


def check_erase_unedited(p: Project) -> list[str]:
    """After the last run: erase keys 1 and 2 of `eu`, whose target no one but its runs has changed. The
    erase's DELETE is the only commit since the last run's version, so the last run's row takes the
    target's new version, and the next run (key 3's second event) finds the target unedited since that
    version and records its own: without the erase's version, the history since the last run's would
    hold two commits that change rows (the DELETE and the run's MERGE), and the run would record none.
    The feed (a parquet table, which takes no DELETE) still holds keys 1 and 2's events, and the run applies
    them again as new ones, as it does wherever the source is not erased too."""
    queries = {"runs": f"select run_id, target_version from {p.relation('eu__auto_cdc_runs')}",
               "history": f"describe history {p.relation('eu')}", "eu": f"select * from {p.relation('eu')}"}

    def read():
        got = p._spark_read(queries)
        return (max((r["run_id"], r["target_version"]) for r in got["runs"]),
                max(int(r["version"]) for r in got["history"]), sorted_rows(got["eu"], DML_SCD2_COLS))
    before, _, _ = read()
    result = p.dbt("run-operation", "auto_cdc.erase_keys", "--args", "{model: eu, where: 'id in (1, 2)'}", check=False)
    if not result.ok or "2 key(s) erased from eu: 3 row(s), eu__auto_cdc_log: 3 row(s)" not in result.output:
        return [f"erase_keys on eu: {result.output[-3000:]}"]
    erased, latest, _ = read()
    failures = []
    if before[1] is None or erased != (before[0], latest) or latest <= before[1]:
        failures.append(f"eu: the last run's (run, target version) {before} before erase_keys, {erased} after, "
                        f"expected ({before[0]}, {latest}): the target's version after the erase")
    p.insert("eu_feed", [c for c, _ in DML_FEED], [(3, 2, "U", "c2", "z")])
    p.run("eu")
    after, _, rows = read()
    if after[0] != before[0] + 1 or after[1] is None:
        failures.append(f"eu: the run after erase_keys recorded (run, target version) {after}, expected a version")
    expected = ordered([(1, "a", 1, 2), (1, "a2", 2, None), (2, "b", 1, None), (3, "c", 1, 2), (3, "c2", 2, None)])
    if rows != expected:
        failures.append(f"eu after erase_keys and a run: {rows}, expected {expected}")
    return failures


@pytest.mark.parametrize("file_format", FORMATS)
def test_examples_and_generated_cases_on_spark_equal_the_expected_tables(file_format, spark_cluster, tmp_path_factory):
    assert spark_cluster.has_delta or file_format != "delta", \
        "no Delta Lake jars: AUTO_CDC_ENGINES=spark bash scripts/bootstrap.sh fetches them"
    batch = generated_cases(file_format)
    p = Project(tmp_path_factory.mktemp(f"spark_{file_format}"), "spark", spark_conf=spark_cluster.spark_conf(),
                in_process=True, models_config={"+file_format": "parquet"} if file_format == "parquet" else None)
    examples = install_examples(p)
    dml = install_hand_edits(p) if file_format == "delta" else {"steps": {}, "checks": {}}
    wide = install_wide_batch(p) if file_format == "delta" else {}
    for case in batch:
        case.install(p)
    change_feeds = install_change_feeds(p, file_format)
    # the cursor's literal (prior_runs) is written alike on both formats: tested on Delta
    cursors = install_cursor_types(p) if file_format == "delta" or FULL else {}
    p.table("sc_feed", SCHEMA_FEED, [(1, 1, "U", "a", "e", None)])
    schema_models(p, "id, seq, op, a, extra", file_format)
    runs = max([4] + [c.runs for c in batch])
    for run in range(runs):
        for step in dml["steps"].get(run, []):
            p.execute(step[1]) if step[0] == "sql" else p.insert(*step)
        for sql in wide.get(run, []):
            p.execute(sql)
        for feed, cols, rows in examples["deliveries"].get(run, []) + change_feeds.get(run, []) + cursors.get(run, []):
            p.insert(feed, cols, rows)
        for case in batch:
            case.deliver(p, run)
        if run == runs - 1:  # the source drops `extra` and gains `email`
            schema_models(p, "id, seq, op, a, email", file_format, widened=True)
            p.insert("sc_feed", [c for c, _ in SCHEMA_FEED], [(2, 2, "U", "b", None, "b@x")])
            last = p.run(check=False)
        else:
            p.run()
    failures = check_schema_changes(p, last, file_format)  # before erase_keys writes its own run_results.json
    failures += check_erase(p) + check_erase_unedited(p) if file_format == "delta" else []
    p.read_all(side_tables=(["cdf_scd1__auto_cdc_changes", "cdf_scd2__auto_cdc_changes"] if file_format == "parquet"
                            else ["er__auto_cdc_log", "cdf_scd1__auto_cdc_runs", "cdf_scd2__auto_cdc_runs",
                                  "he1__auto_cdc_runs", "he2__auto_cdc_runs"]
                            + [n + "__auto_cdc_runs" for n in [*SEQ_SHOWN, *SCHEMA_CHANGED]])
               + [name + "__auto_cdc_runs" for name in CURSOR_MODELS if cursors])
    failures += check_change_feeds(p, file_format)
    failures += check_cursor_types(p) if cursors else []
    failures += check_paths(p) + check_unedited(p, runs) + check_wide_batch(p) if file_format == "delta" else []
    failures += check_metrics(p, file_format)
    if file_format == "delta":  # no bucket column on Delta targets, and they are Delta tables
        if "__auto_cdc_bucket" in p.rows("e4_bitemporal")[0]:
            failures.append("a Delta target has the parquet path's bucket column")
        provider = [r for r in p._spark_read({"q": f"describe extended {p.relation('he1')}"})["q"] if r["col_name"] == "Provider"]
        if [r["data_type"] for r in provider] != ["delta"]:
            failures.append(f"he1 is not a Delta table: {provider}")
    for name, (cols, expected) in {**examples["checks"], **dml["checks"]}.items():
        actual = target_rows(p, name, cols)
        if actual != ordered(expected):
            failures.append(f"{name}: got {actual}, expected {ordered(expected)}")
    for case in batch:
        if case.actual(p) != case.expected():
            failures.append(f"{case.name}: got {case.actual(p)}, expected {case.expected()}\n  {case}")
    print(f"generated cases (seed {SEED}):", [(c.name, getattr(c, "scd", "snapshot+events"), getattr(c, "partial", None),
                                               c.runs) for c in batch])
    print(f"[{file_format}] Spark ran in {spark_cluster.mode} mode ({spark_cluster.master_url}); {len(examples['checks'])} example "
          f"models, {len(batch)} generated cases, 4 change-feed and {len(SCHEMA_MODES)} schema-change models, {runs} dbt runs")
    assert not failures, f"seed {SEED} (AUTO_CDC_SPARK_SEED={SEED} repeats it):\n" + "\n".join(failures)


def test_source_format_macros_read_the_samples_with_sparks_json_functions(spark_cluster, tmp_path_factory):
    """The recorded samples of tests/functional/test_sources.py (Debezium with schemas, wal2json, DMS, Fivetran)
    read by the source-format macros through Spark's JSON functions (get_json_object, from_json, conv): each
    feed, as a view, holds one row per change the sample means, with its key, its values (an upsert's),
    its _cdc_sequence and _cdc_deleted. (The apply of such a feed is the rest of this tier's; applying the
    samples here too took 8 minutes.)"""
    from test_sources import debezium, dms, fivetran, install as install_samples, wal2json
    samples = [debezium(bare=False), wal2json(), dms(), fivetran()]
    p = Project(tmp_path_factory.mktemp("spark_sources"), "spark", spark_conf=spark_cluster.spark_conf(), in_process=True)
    install_samples(p, samples, scds=())
    for s in samples:
        p.insert(s.name, [name for name, _ in s.landing], s.rows)
        p.model(f"{s.name}_feed", s.model("spark"), materialized="view", keys=[s.key])  # wal2json's key changes
    p.run()
    wrong = []
    for s in samples:
        values = list(s.columns)[1:]
        actual = sorted(((r[s.key], r["_cdc_sequence"], True) if r["_cdc_deleted"] else
                         (r[s.key], r["_cdc_sequence"], False, *(r[c] for c in values)) for r in p.rows(f"{s.name}_feed")),
                        key=repr)
        expected = sorted(((e.key[0], e.seq[0], True) if e.op == ref.DELETE else
                           (e.key[0], e.seq[0], False, *(e.values[c] for c in values)) for m in s.meaning for e in m),
                          key=repr)
        if actual != expected:
            wrong.append(f"{s.name}:\n  feed     {actual}\n  expected {expected}")
    assert not wrong, "\n".join(wrong)


FAULT_TRIALS = int(os.environ.get("AUTO_CDC_SPARK_FAULT_TRIALS", "10"))
# (SCD type, partial-update mode) of the fault trials' change feeds, in turn; every fifth trial a snapshot series
FAULT_SHAPES = [(1, None), (2, None), ("bitemporal", None), (1, "columns_to_update"), (2, "ignore_null_updates")]


def test_runs_failed_at_random_statements_on_delta_are_repaired_by_the_next_run(spark_cluster, tmp_path_factory):
    """FAULT_TRIALS trials on Delta, one model each, all in one project: parts 0 and 1 of a generated
    case are applied by two clean runs (the second counts each model's statements: an incremental run
    sends more when it replays keys than on the fast path); part 2 arrives and a run fails
    after a random one of as many statements, for each model, or after its last one when it sends fewer
    (a run with nothing new stops early) (auto_cdc_testkit/faults.py: the hook raises,
    which on Spark, where no transaction holds a run's statements together, leaves the tables as a kill
    between two statements does); then a run with nothing new must leave every target equal to the
    reference model: nothing lost, nothing applied twice."""
    assert spark_cluster.has_delta, "no Delta Lake jars: AUTO_CDC_ENGINES=spark bash scripts/bootstrap.sh fetches them"
    rng = random.Random(SEED)
    batch = []
    for i in range(FAULT_TRIALS):
        if i % 5 == 4:
            batch.append(draw_example(snapshot_cases(300 + i, scd=1 + i % 2, runs=3), SEED + 300 + i))
        else:
            scd, mode = FAULT_SHAPES[i % len(FAULT_SHAPES)]
            batch.append(draw_example(property_cases(300 + i, scd=scd, partial=mode, runs=3), SEED + 300 + i))
    p = Project(tmp_path_factory.mktemp("spark_delta_faults"), "spark", spark_conf=spark_cluster.spark_conf(),
                in_process=True)
    faults.install(p, raising=True)
    for case in batch:
        case.install(p)
    plan, counts = {}, {}
    for run in range(4):
        for case in batch:
            case.deliver(p, run)
        if run == 1:
            counts = faults.count_statements(p.dbt("run", env={faults.PLAN_ENV: json.dumps({"__count__": True})}).output)
            plan = {c.name: rng.randint(1, max(1, counts.get(c.name, 1))) for c in batch}
        elif run == 2:
            failed = p.dbt("run", check=False, env={faults.PLAN_ENV: json.dumps(plan)})
            results = json.loads((p.path / "target" / "run_results.json").read_text())["results"]
            faulted = sorted(r["unique_id"].split(".")[-1] for r in results
                             if r["status"] == "error" and "auto_cdc fault point" in (r.get("message") or ""))
            assert faulted == sorted(plan), f"runs that failed at their fault point: {faulted}\n{failed.output[-6000:]}"
        else:
            p.run()
    p.read_all()
    failures = [f"{case.name} (its run failed after statement {plan[case.name]} of {counts.get(case.name)}): got "
                f"{case.actual(p)}, expected {case.expected()}\n  {case}" for case in batch if case.actual(p) != case.expected()]
    print(f"fault trials on Delta (seed {SEED}): {len(batch)}, each run failed after statement (of): "
          f"{sorted((k, v, counts.get(k)) for k, v in plan.items())}, mismatches: {len(failures)}")
    assert not failures, f"seed {SEED} (AUTO_CDC_SPARK_SEED={SEED} repeats it):\n" + "\n".join(failures)


# A run that failed right after its log append: the run log has no row for it, so its events are in the
# log under the id the next run takes, and that next run has nothing new. Key 1 gets an in-order upsert
# and a delete, key 2 a late upsert, key 3 its first event.
FAILED_AFTER_APPEND = Case(name="appended", scd=2, key_columns=["k1"], seq_columns=["s1"], rows=[
    _event(1, 1, "U", 1, 0), _event(2, 1, "U", 2, 0), _event(2, 3, "U", 3, 0),
    _event(1, 2, "U", 12, 1), _event(1, 4, "D", None, 1), _event(2, 2, "U", 22, 1), _event(3, 1, "U", 3, 1)])


@pytest.mark.parametrize("file_format", FORMATS)
def test_a_run_failed_right_after_its_log_append_is_completed_by_the_next_run(file_format, spark_cluster,
                                                                             tmp_path_factory):
    """The fault trials above fail a run after a random statement; this one fails it after the statement
    that appends its new events to the log, the one state only Spark can be left in (no transaction holds
    a run's statements together). Models over the same feed: the first run of part 1 of one of them
    numbers its statements (auto_cdc_testkit/faults.py), which gives the append's number; another, in
    the same state, fails right after it, leaving its events logged and its target as before. The next
    run finds nothing new in the feed, and must still apply those events (the run's facts count the
    events logged under its id: killed_run_events_sql). On Delta a third fails right after its MERGE:
    the next run takes the failed run's id, so the MERGE names it (merge_changes_sql), and that run
    records the target's version (unedited_target_version): the model's later runs need not compare
    the target with the log."""
    counted, failed = FAILED_AFTER_APPEND, dataclasses.replace(FAILED_AFTER_APPEND, name="appended_failed")
    merged = dataclasses.replace(FAILED_AFTER_APPEND, name="merged_failed")
    cases = (counted, failed, merged) if file_format == "delta" else (counted, failed)
    p = Project(tmp_path_factory.mktemp(f"spark_{file_format}_append"), "spark", spark_conf=spark_cluster.spark_conf(),
                in_process=True, models_config={"+file_format": "parquet"} if file_format == "parquet" else None)
    faults.install(p, raising=True)
    for case in cases:
        case.install(p)
        case.deliver(p, 0)
    p.run()
    for case in cases:
        case.deliver(p, 1)
    p.dbt("run", "--select", counted.name, "--log-format-file", "json", "--log-level-file", "debug",
          env={faults.PLAN_ENV: json.dumps({"__count__": True})})
    numbered = faults.numbered_statements(p.path / "logs" / "dbt.log", counted.name)
    sent = {k: " ".join((sql or "").split()) for k, sql in numbered.items()}
    appends = [k for k, sql in sent.items() if f"insert into {p.schema}.{counted.name}__auto_cdc_log " in sql]
    assert len(appends) == 1, f"the log append among the counted run's statements: {appends} of {len(numbered)}"
    merges = [k for k, sql in sent.items() if f"merge into {p.schema}.{counted.name} as t " in sql]
    assert len(merges) == (1 if file_format == "delta" else 0), f"the MERGE among the counted run's statements: {merges}"
    plan = {failed.name: appends[0], **({merged.name: merges[0]} if merges else {})}
    before = {case.name: p.rows(case.name) for case in cases}
    logged = len(p.rows(failed.name + "__auto_cdc_log"))
    result = p.dbt("run", "--select", *plan, check=False, env={faults.PLAN_ENV: json.dumps(plan)})
    for statement in plan.values():
        assert f"auto_cdc fault point: failing after statement {statement}" in result.output, result.output[-6000:]
    # the state only a failure between the append and the run log's row leaves
    assert sorted(map(str, p.rows(failed.name))) == sorted(map(str, before[failed.name]))
    assert len(p.rows(failed.name + "__auto_cdc_log")) == logged + 4
    if merges:
        # the MERGE committed: the target holds part 1, the run log has no row for it
        assert sorted(map(str, p.rows(merged.name))) != sorted(map(str, before[merged.name]))
        assert [r["run_id"] for r in p.rows(merged.name + "__auto_cdc_runs")] == [1]
    p.run()
    assert counted.actual(p) == counted.expected()
    assert failed.actual(p) == failed.expected(), f"{file_format}: the events the failed run logged were not applied"
    if merges:
        assert merged.actual(p) == merged.expected()
        runs = sorted((r["run_id"], r["target_version"]) for r in p.rows(merged.name + "__auto_cdc_runs"))
        assert [run for run, _ in runs] == [1, 2] and all(version is not None for _, version in runs), \
            f"(run, target version) of the model whose run failed after its MERGE: {runs}"


def _operation_statements(log) -> dict[int, str]:
    """Statement number -> its SQL, of the last run-operation counted in a JSON debug log (as
    faults.numbered_statements does for a run's model, whose SQL carries its node)."""
    out, last_sql = {}, None
    for event in statement_events(log):
        info, data = event.get("info", {}), event.get("data", {})
        if info.get("name") == "SQLQuery":
            last_sql = " ".join((data.get("sql") or "").split())
        elif (found := re.fullmatch(r"auto_cdc statement erase_keys (\d+)", (info.get("msg") or "").strip())) is not None:
            out[int(found.group(1))] = last_sql
    return out


def test_an_erase_failed_part_way_on_delta_is_finished_by_the_next_writer(spark_cluster, tmp_path_factory):
    """No transaction holds an erase together on Spark: its keys go into a Delta table first, which its
    last statement drops, and a writer that finds such a table (a run, or the next erase: the
    lease-and-repair rule of runs) deletes those keys' rows from the log and the target and drops it.
    An erase failed part way is followed
    by a run: the keys are then gone from the target and the log, or, failed before the key table, all
    there; the failed erase's lease lapses (lock_timeout 1s) and the run takes it over. Failed after: the
    statement before the key table, the key table's creation, each MERGE that deletes (the log's, the
    target's), and (the erase that counts the statements) its last statement. A killed run's tables beside
    the target are dropped with the erase.
    Then the target equals the reference."""
    assert spark_cluster.has_delta, "no Delta Lake jars: AUTO_CDC_ENGINES=spark bash scripts/bootstrap.sh fetches them"
    p = Project(tmp_path_factory.mktemp("spark_delta_erase"), "spark", spark_conf=spark_cluster.spark_conf(), in_process=True)
    faults.install(p, raising=True)
    feed = DML_FEED + [("loaded", "integer")]
    keys = list(range(1, 10))
    # loaded: each key's own, so that the runs re-read only the last key's events (the cursor's), and none of
    # an erased key's (the feed, a parquet table, keeps them)
    p.table("feed", feed, [(k, 1, "U", f"n{k}", "x", k) for k in keys] + [(k, 2, "U", f"m{k}", "y", k) for k in keys[::2]])
    p.feed_model("t", "feed", **dict(DML_CFG, except_column_list=["op", "seq", "loaded"]), stored_as_scd_type=2,
                 cursor_column="loaded", lock_timeout="1s")
    p.run()
    p.execute(f"create table {p.relation('t__auto_cdc_batch')} using parquet as select 1 as id")  # a killed run's
    p.fetch(f"select count(*) from {p.relation('t__auto_cdc_batch')}")  # (runs the queued statement)
    erase = lambda key, plan=None, check=True: p.dbt(  # noqa: E731
        "run-operation", "auto_cdc.erase_keys", "--args", f"{{model: t, where: 'id = {key}'}}", "--log-format-file", "json",
        "--log-level-file", "debug", check=check, env={faults.PLAN_ENV: json.dumps(plan)} if plan else None)
    # key 1: erased whole, its statements counted (it fails after its last one: a lease left, nothing else)
    counted = erase(1, {"__count__": True, "erase_keys": 10 ** 6}, check=False)
    assert "auto_cdc fault point: failing after statement" in counted.output and "(its last)" in counted.output, counted.output[-3000:]
    statements = _operation_statements(p.path / "logs" / "dbt.log")
    created = [k for k, sql in statements.items() if sql and "t__auto_cdc_erased using delta as" in sql]
    assert len(created) == 1, statements
    assert _tables(p, "t__auto_cdc_erased") == [] and _tables(p, "t__auto_cdc_batch") == []
    # before the key table, right after it, and after each MERGE that deletes (after its last statement: key 1)
    merges = [k for k, sql in statements.items() if sql and "merge into" in sql and "when matched then delete" in sql]
    assert len(merges) == 2, statements
    points = [created[0] - 1, created[0], *merges]
    left = set(keys) - {1}
    time.sleep(1)  # the counted erase's lease lapses
    for key, k in zip(keys[1:], points):
        failed = erase(key, {"erase_keys": k}, check=False)
        assert f"auto_cdc fault point: failing after statement {k}" in failed.output, failed.output[-3000:]
        time.sleep(1)  # its lease lapses: the run takes it over
        p.run()
        present = (any(r["id"] == key for r in p.rows("t")), any(r["id"] == key for r in p.rows("t__auto_cdc_log")))
        assert present == ((True, True) if k < created[0] else (False, False)), (key, k, present)
        if k >= created[0]:
            left.discard(key)
        assert _tables(p, "t__auto_cdc_erased") == []
    expected = [(k, f"n{k}", 1, 2 if k % 2 else None) for k in left] + [(k, f"m{k}", 2, None) for k in left if k % 2]
    assert sorted(target_rows(p, "t", DML_SCD2_COLS), key=repr) == sorted(expected, key=repr)
    assert {r["id"] for r in p.rows("t__auto_cdc_log")} == left


def _hold_lock(p: Project, lock: str, holder: str, lapses_at: str, lapsed: str | None = None) -> None:
    """The model's lock as another dbt invocation takes it (docs/spark.md, "Concurrency")."""
    props = {"holder": holder, "holder_name": f"dbt invocation {holder} (started 2026-01-01)",
             "taken_at": "2026-01-01 00:00:00+00:00", "lapses_at": lapses_at}
    if lapsed:
        props["lapsed"] = lapsed
    pairs = ", ".join(f"'auto_cdc.lock_{k}' = '{v}'" for k, v in props.items())
    p.execute(f"create table {lock} (holder string) using parquet tblproperties ({pairs})")


SNAPSHOT_PARTITIONS = "spark.databricks.delta.snapshotPartitions"
# a model's post-hook that prints the session's value of it (in the dbt run's own session, in or out of this process)
SHOW_SNAPSHOT_PARTITIONS = ("{% if execute %}{{ log('the session snapshot partitions: ' ~ run_query('set "
                            + SNAPSHOT_PARTITIONS + "').rows[0][1], info=true) }}{% endif %}")


def _tables(p: Project, pattern: str) -> list[str]:
    return sorted(r[1] for r in p.fetch(f"show tables in {p.schema} like '{pattern}'"))


@pytest.mark.parametrize("file_format", FORMATS)
def test_a_spark_model_run_while_another_run_holds_its_lock_fails_and_writes_nothing(file_format, spark_cluster,
                                                                                     tmp_path_factory):
    """The model's lock on Spark is the table <target>__auto_cdc_lock, whose properties name its holder
    (docs/spark.md, "Concurrency"), on either format: a run that finds another run's live lock fails at
    once, naming it, and writes nothing; a lapsed lock (a killed run's, lock_timeout after it was taken)
    is renamed away and taken over, and the renamed table is dropped with the new holder's lock (and one
    that a killed taker left, named by the lapsed lock); a run drops its lock after its commit, and a run
    that fails after taking it has it dropped by the package's on-run-end hook; erase_keys (Delta) takes
    it too."""
    assert spark_cluster.has_delta or file_format != "delta", \
        "no Delta Lake jars: AUTO_CDC_ENGINES=spark bash scripts/bootstrap.sh fetches them"
    p = Project(tmp_path_factory.mktemp(f"spark_lock_{file_format}"), "spark", spark_conf=spark_cluster.spark_conf(),
                in_process=True, models_config={"+file_format": "parquet"} if file_format == "parquet" else None)
    cols = [c for c, _ in DML_FEED]
    p.table("feed", DML_FEED, [(1, 1, "U", "a", "x"), (2, 1, "U", "b", "x")])
    p.feed_model("t", "feed", **DML_CFG, stored_as_scd_type=2, post_hook=SHOW_SNAPSHOT_PARTITIONS)
    # a writer sets Delta's snapshot partitions for its session when the session leaves them unset
    p.execute(f"reset {SNAPSHOT_PARTITIONS}")
    first = p.run()
    assert "the session snapshot partitions: 8" in first.output, first.output[-3000:]
    lock = p.relation("t__auto_cdc_lock")
    assert _tables(p, "t__auto_cdc_lock*") == [], "a run drops its lock after its commit"
    before = target_rows(p, "t", DML_SCD2_COLS)
    logged = p.fetch(f"select count(*) from {p.relation('t__auto_cdc_log')}")
    # another run holds the lock
    _hold_lock(p, lock, "other-run", "9999-12-31 00:00:00+00:00")
    p.insert("feed", cols, [(1, 2, "U", "a2", "x")])
    held = p.run(check=False)
    assert not held.ok and "auto_cdc model 't': another run of this model holds its lock" in held.output, held.output[-3000:]
    assert "dbt invocation other-run" in held.output and f"drop table {p.schema}.t__auto_cdc_lock;" in held.output, held.output[-3000:]
    assert target_rows(p, "t", DML_SCD2_COLS) == before
    assert p.fetch(f"select count(*) from {p.relation('t__auto_cdc_log')}") == logged
    assert _tables(p, "t__auto_cdc_lock*") == ["t__auto_cdc_lock"], "the refused run leaves the holder's lock"
    # the other run was killed (and had taken over a lapsed lock of its own, which it left): its lock
    # lapses, and the next run renames it away, takes the lock, and drops both when it is done
    p.execute(f"drop table {lock}")
    p.execute(f"create table {p.relation('t__auto_cdc_lock_left')} (holder string) using parquet")
    _hold_lock(p, lock, "other-run", "2026-01-01 00:00:01+00:00", lapsed="t__auto_cdc_lock_left")
    p.execute(f"set {SNAPSHOT_PARTITIONS} = 3")  # ... and keeps a value the session sets
    took_over = p.run()
    assert "the session snapshot partitions: 3" in took_over.output, took_over.output[-3000:]
    assert target_rows(p, "t", DML_SCD2_COLS) == [(1, "a", 1, 2), (1, "a2", 2, None), (2, "b", 1, None)]
    assert _tables(p, "t__auto_cdc_lock*") == []
    # a run that fails after taking the lock (R7: two events at one key and sequence disagree) gets it back
    p.insert("feed", cols, [(2, 5, "U", "b5", "x"), (2, 5, "U", "other", "x")])
    p.execute(f"reset {SNAPSHOT_PARTITIONS}")  # (the run sets it again: the tests after this one share the driver)
    failed = p.run(check=False)
    assert not failed.ok and "auto_cdc model 't'" in failed.output and "holds its lock" not in failed.output, failed.output[-3000:]
    assert _tables(p, "t__auto_cdc_lock*") == [], "the on-run-end hook drops a failed run's lock"
    if file_format != "delta":
        return
    # erase_keys waits for no run either: refused while the lock is held, done once it is free
    _hold_lock(p, lock, "other-run", "9999-12-31 00:00:00+00:00")
    assert _tables(p, "t__auto_cdc_lock*") == ["t__auto_cdc_lock"]  # (a run-operation runs no queued statement)
    erase = p.dbt("run-operation", "auto_cdc.erase_keys", "--args", "{model: t, where: 'id = 1'}", check=False)
    assert not erase.ok and "holds its lock" in erase.output, erase.output[-3000:]
    p.execute(f"drop table {lock}")
    assert _tables(p, "t__auto_cdc_lock*") == []
    p.dbt("run-operation", "auto_cdc.erase_keys", "--args", "{model: t, where: 'id = 1'}")
    assert {r["id"] for r in p.rows("t")} == {2} and _tables(p, "t__auto_cdc_lock*") == []


def test_a_spark_models_bookkeeping_schema_holds_its_logs_and_its_lock(spark_cluster, tmp_path_factory):
    """bookkeeping_schema (docs/configuration.md) on Delta: the schema is created, the event log, the run log
    and the lock table live in it, a run refused by a lock held there names it, and erase_keys finds the
    log there; nothing but the target is left beside it."""
    assert spark_cluster.has_delta, "no Delta Lake jars: AUTO_CDC_ENGINES=spark bash scripts/bootstrap.sh fetches them"
    p = Project(tmp_path_factory.mktemp("spark_bookkeeping"), "spark", spark_conf=spark_cluster.spark_conf(), in_process=True)
    bk = p.schema + "_bk"
    p.table("feed", DML_FEED, [(1, 1, "U", "a", "x"), (2, 1, "U", "b", "x")])
    p.feed_model("t", "feed", **DML_CFG, stored_as_scd_type=2, bookkeeping_schema=bk)
    p.run()
    listed = sorted(r[1] for r in p.fetch(f"show tables in {bk}"))
    assert listed == ["t__auto_cdc_log", "t__auto_cdc_runs"] and _tables(p, "t*") == ["t"], listed
    lock = f"`{bk}`.`t__auto_cdc_lock`"
    _hold_lock(p, lock, "other-run", "9999-12-31 00:00:00+00:00")
    held = p.run(check=False)
    assert not held.ok and f"holds its lock {bk}.t__auto_cdc_lock" in held.output, held.output[-3000:]
    p.execute(f"drop table {lock}")
    assert not p.fetch(f"show tables in {bk} like 't__auto_cdc_lock'")  # (a run-operation runs no queued statement)
    p.dbt("run-operation", "auto_cdc.erase_keys", "--args", "{model: t, where: 'id = 1'}")
    assert {r[0] for r in p.fetch(f"select id from `{bk}`.`t__auto_cdc_log`")} == {2}
    p.insert("feed", [c for c, _ in DML_FEED], [(2, 2, "U", "b2", "x")])
    p.run()
    # (key 1's event is still in the feed, which the run reads whole: it comes back, as after any erase)
    assert target_rows(p, "t", DML_SCD2_COLS) == [(1, "a", 1, None), (2, "b", 1, 2), (2, "b2", 2, None)]
    assert sorted(r[1] for r in p.fetch(f"show tables in {bk}")) == ["t__auto_cdc_log", "t__auto_cdc_runs"]
    assert _tables(p, "t*") == ["t"]


RACE_ATTEMPTS = 3     # races until one where the two runs overlap
RACE_EVENTS = 2000    # events per race: a run applies them in about 15 s, the refused run fails in about 3
LOCK_HELD = "another run of this model holds its lock"
# two runs that create the lock table in the same instant: the catalog creates it once, and Spark fails the
# other's `create table if not exists` (it checks, then creates) with its own error (docs/spark.md)
LOCK_CREATED_AT_ONCE = "[TABLE_OR_VIEW_ALREADY_EXISTS]"
THRIFT_CLOSE_FAILED = "NoClassDefFoundError: org/apache/hadoop/hive/llap/security/LlapSigner"


def _ts(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def _race_run(p: Project, name: str, proc, output: str) -> dict:
    """One of the racing dbt processes, once it has ended: its exit code, invocation id, the model's status,
    message and execution interval (target_<name>/run_results.json), and the interval within which it held the
    model's lock (from its JSON debug log logs_<name>/dbt.log: from the moment its read of the lock table's
    holder came back to the moment it sent the lock's drop; None when it held no lock)."""
    results = json.loads((p.path / f"target_{name}" / "run_results.json").read_text())
    node = next(r for r in results["results"] if r["unique_id"] == "model.auto_cdc_it.t")
    execute = next(t for t in node["timing"] if t["name"] == "execute")
    events = [json.loads(line) for line in (p.path / f"logs_{name}" / "dbt.log").read_text().splitlines() if line.startswith("{")]
    taken = released = None
    for i, e in enumerate(events):
        sql = (e["data"].get("sql") or "").lower() if e["info"]["name"] == "SQLQuery" else ""
        if "show tblproperties" in sql and "t__auto_cdc_lock" in sql and taken is None:
            taken = next(_ts(s["info"]["ts"]) for s in events[i + 1:] if s["info"]["name"] == "SQLQueryStatus"
                         and s["info"]["thread"] == e["info"]["thread"])
        elif "drop table" in sql and "t__auto_cdc_lock" in sql and taken is not None and released is None:
            released = _ts(e["info"]["ts"])
    return {"name": name, "ok": proc.returncode == 0, "output": output, "invocation": results["metadata"]["invocation_id"],
            "status": node["status"], "message": node.get("message") or "",
            "execute": (_ts(execute["started_at"]), _ts(execute["completed_at"])),
            "held": (taken, released) if taken and released else None}


def _overlap(a: tuple, b: tuple) -> bool:
    return a[0] < b[1] and b[0] < a[1]


@pytest.mark.dbt_subprocess  # two dbt processes at once
def test_two_dbt_processes_running_one_delta_model_at_once_serialize_or_one_fails_and_nothing_is_lost(
        spark_thrift_server, tmp_path_factory):
    """Two `dbt run` processes of one SCD2 model on Delta, started together, each connected to one Spark Thrift
    server (testing/spark.py's thrift_server: the metastore of both processes' sessions). Each run either
    succeeds or fails at once with the lock error (or, when both created the lock table in the same instant,
    Spark's TABLE_OR_VIEW_ALREADY_EXISTS on it), and not both fail. When one fails with the lock error, the
    lock it found is the other run's (the message names that run's invocation); when both succeed, they held the lock one
    after the other (from their debug logs). The race is repeated, each time with new events, until the two
    runs' model executions overlap (at most RACE_ATTEMPTS times; the test fails if they never do). Then one
    more run, and the target equals the reference model's table over every event: nothing lost, nothing
    applied twice; no lock table is left."""
    assert delta.jars(), "no Delta Lake jars: AUTO_CDC_ENGINES=spark bash scripts/bootstrap.sh fetches them"
    p = Project(tmp_path_factory.mktemp("spark_thrift_race"), "spark", thrift=spark_thrift_server)
    cols = [c for c, _ in DML_FEED]
    events = [(i, 1, "U", f"n{i}", "x") for i in range(50)]
    p.table("feed", DML_FEED, events)
    p.feed_model("t", "feed", **DML_CFG, stored_as_scd_type=2)
    p.run()
    races = []
    for attempt in range(RACE_ATTEMPTS):
        batch = [(i % 500, 10 * attempt + 2 + i // 500, "D" if i % 7 == 0 else "U", f"r{attempt}_{i}", "y")
                 for i in range(RACE_EVENTS)]
        p.insert("feed", cols, batch)
        events += batch
        # the rows go in now, not in the runs' setup hook (which each of the two would run)
        assert p.fetch(f"select count(*) from {p.relation('feed')}") == [(len(events),)]
        # each attempt's runs write their results and logs apart from the earlier attempts'
        procs = [(n, p.start("run", "--target-path", f"target_{n}", "--log-path", f"logs_{n}", "--log-format-file", "json"))
                 for n in (f"a{attempt}", f"b{attempt}")]
        with ThreadPoolExecutor(2) as pool:  # both outputs read as they come: neither run waits on a full pipe
            outputs = list(pool.map(lambda named: named[1].communicate()[0], procs))
        # the Thrift server (not the package) sometimes fails to close a session, with a class missing from
        # its Hive jars: that dbt process ends without results; the race is run again with new events
        if any(proc.returncode != 0 and THRIFT_CLOSE_FAILED in out for (_, proc), out in zip(procs, outputs)):
            races.append((attempt, "a session close failed on the Thrift server", None, []))
            continue
        runs = [_race_run(p, n, proc, out) for (n, proc), out in zip(procs, outputs)]
        for r in runs:
            assert r["ok"] == (r["status"] == "success"), r["output"][-3000:]
            assert r["ok"] or LOCK_HELD in r["message"] or (LOCK_CREATED_AT_ONCE in r["message"]
                                                            and "t__auto_cdc_lock`" in r["message"]), \
                f"run {r['name']} failed otherwise: {r['message'][:1500]}\n{r['output'][-2000:]}"
            assert not r["ok"] or r["held"], f"run {r['name']} succeeded without holding the lock:\n{r['output'][-3000:]}"
        assert any(r["ok"] for r in runs), "both runs failed:\n" + "\n".join(r["output"][-2000:] for r in runs)
        failed = [r for r in runs if not r["ok"]]
        if failed:
            if LOCK_HELD in failed[0]["message"]:  # (not when both created the lock at once)
                winner = next(r for r in runs if r["ok"])
                assert f"dbt invocation {winner['invocation']}" in failed[0]["message"], failed[0]["message"]
        else:
            assert not _overlap(runs[0]["held"], runs[1]["held"]), \
                f"both runs succeeded and held the lock at the same time: {runs[0]['held']}, {runs[1]['held']}"
        overlapped = _overlap(runs[0]["execute"], runs[1]["execute"])
        races.append((attempt, ("one refused" if LOCK_HELD in failed[0]["message"] else "one failed creating the lock")
                      if failed else "serialized", overlapped,
                      [(r["name"], r["status"], r["execute"][0].time(), r["execute"][1].time()) for r in runs]))
        if overlapped:
            break
    print(f"races (attempt, outcome, executions overlapped, runs): {races}")
    assert races[-1][2], f"the two runs never overlapped in {RACE_ATTEMPTS} races: {races}"
    p.run()
    config = ref.Config(columns=("id", "name", "city"), key_columns=("id",), scd_type=2)
    expected = ref.apply([ref.Event(key=(k,), seq=(s,), op=ref.DELETE if op == "D" else ref.UPSERT,
                                    values={"name": n, "city": c}) for k, s, op, n, c in events], config)
    target_cols = ["id", "name", "city", "__START_AT", "__END_AT"]
    assert target_rows(p, "t", target_cols) == sorted_rows(expected, target_cols)
    assert _tables(p, "t__auto_cdc_lock*") == []
