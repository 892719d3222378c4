"""Profile of an SCD1 apply on DuckDB, on a project kept by `bench/run.py --keep` (where a target
is missed, show the profile). Every measurement runs in a transaction that is rolled back: the kept
database is left as it was.

    .venv/bin/python bench/profile_duckdb.py /tmp/auto_cdc_bench_duckdb_XXXX/project/it.duckdb scd1_10000000

It replays hand-written equivalents of the package's SCD1 statements (macros/builders/apply.sql, scd1.sql,
checks.sql: the same joins and predicates) on a batch of new events built like the benchmark's, prints each
statement's time, times alternatives for the slowest ones, and prints the operator profile (EXPLAIN ANALYZE:
time, rows, rows scanned) of the statements that scan the whole log or target.
"""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # noqa: E402

import duckdb  # noqa: E402

COLS = ["id", "seq", "c1", "c2", "c3", "c4", "c5"]
OP = '"__auto_cdc_op"'


def _cols(prefix: str = "") -> str:
    return ", ".join(f'{prefix}"{c}"' for c in COLS)


def _same(a: str, b: str) -> str:
    return " and ".join(f'{a}."{c}" is not distinct from {b}."{c}"' for c in COLS)


def statements(target: str, log: str, n: int, keys: int) -> list[tuple[str, str]]:
    batch = bench.batch_sql("duckdb", n, keys, 1, 9, 5, late=0.0)
    return [
        ("stage the batch", f"create temp table b as select {_cols()}, case when op = 'DELETE' then 'delete' "
                            f"else 'upsert' end as {OP} from ({batch}) s"),
        ("R7 conflicts against the log (join on key, seq)",
         f"create temp table conflicts as select b.id, b.seq from (select distinct {_cols()}, {OP} from b) b "
         f"join {log} l on l.id = b.id and l.seq = b.seq where l.{OP} <> 'truncate' "
         f"and not ({_same('l', 'b')} and l.{OP} = b.{OP})"),
        ("new events: anti-join with the log",
         f"create temp table new as select distinct {_cols('b.')}, b.{OP} from b where not exists "
         f"(select 1 from {log} l where l.{OP} <> 'truncate' and l.id = b.id and l.seq = b.seq)"),
        ("late events: exists in the log with a greater sequence",
         f"select count(*) from new b where exists (select 1 from {log} l where l.id = b.id and b.seq < l.seq)"),
        ("append to the log", f"insert into {log} ({_cols()}, {OP}, \"__auto_cdc_run\") select {_cols()}, {OP}, 99 from new"),
        ("affected keys", "create temp table affected as select distinct id from new"),
        ("desired rows: the affected keys' events from the log, latest per key",
         f"create temp table desired as select {_cols()} from (select l.*, row_number() over (partition by l.id "
         f"order by l.seq desc) as rn from {log} l join affected a on l.id = a.id where l.{OP} <> 'truncate') r "
         f"where rn = 1 and {OP} = 'upsert'"),
        ("stale rows: target join affected",
         f"create temp table stale as select {_cols('t.')} from {target} t join affected a on t.id = a.id "
         f"where not exists (select 1 from desired d where d.id = t.id and {_same('d', 't')})"),
        ("missing rows: desired anti-join target",
         f"create temp table missing as select {_cols('d.')} from desired d where not exists "
         f"(select 1 from {target} t where t.id = d.id and {_same('t', 'd')})"),
        ("delete stale rows (join on every column)",
         f"delete from {target} as t using stale s where t.id = s.id and {_same('t', 's')}"),
        ("insert missing rows", f"insert into {target} ({_cols()}) select {_cols()} from missing"),
    ]


ALTERNATIVES = {
    "delete stale rows (join on every column)": [
        ("delete by key only (SCD1: one row per key)", "delete from {target} where id in (select id from stale)"),
    ],
    "new events: anti-join with the log": [
        ("same, the log filtered to the batch's key range first (zone maps)",
         "create temp table new2 as select distinct {bcols}, b.{op} from b where not exists (select 1 from "
         "(select * from {log} where id between (select min(id) from b) and (select max(id) from b)) l "
         "where l.{op} <> 'truncate' and l.id = b.id and l.seq = b.seq)"),
        # DuckDB builds an anti join's hash table on the subquery side (the whole log); an inner join builds
        # it on the smaller side (the batch) and only probes the log
        ("inner join first (hash table on the batch), then anti-join the few matches",
         "create temp table new2 as with seen as (select b.id, b.seq from b join {log} l on l.id = b.id "
         "and l.seq = b.seq where l.{op} <> 'truncate') select distinct {bcols}, b.{op} from b where not exists "
         "(select 1 from seen s where s.id = b.id and s.seq = b.seq)"),
    ],
    "missing rows: desired anti-join target": [
        ("inner join first (hash table on the desired rows), then anti-join the matches",
         "create temp table missing2 as with kept as (select d.id from desired d join {target} t on t.id = d.id "
         "and {same_dt}) select {dcols} from desired d where not exists (select 1 from kept k where k.id = d.id)"),
    ],
}


def _print_operators(node: dict, depth: int = 0) -> None:
    """One line per operator: its own time, its output rows, and for scans the table and rows scanned."""
    if "name" not in node and "operator_name" not in node:  # the root: the query's totals
        for child in node.get("operator", node.get("children", [])):
            _print_operators(child, depth)
        return
    name = node.get("name") or node.get("operator_name") or node.get("type", "?")
    info = node.get("extra_info") or {}
    detail = [f"{node.get('timing', node.get('operator_timing', 0)):.3f}s",
              f"{node.get('intermediate_rows', node.get('operator_cardinality', 0)):,} rows"]
    if "Table" in info:
        detail.append(f"table {info['Table']}, scanned {node.get('rows_scanned', node.get('operator_rows_scanned', 0)):,}")
    for k in ("Join Type", "Conditions"):
        if k in info:
            detail.append(f"{k.lower()} {info[k]}")
    if name not in ("RESULT_COLLECTOR", "EXPLAIN_ANALYZE") and depth >= 0:
        print("  " * depth + f"{name}: " + ", ".join(detail))
    for child in node.get("children", []):
        _print_operators(child, depth + (0 if name in ("RESULT_COLLECTOR", "EXPLAIN_ANALYZE") else 1))


def main(argv: list[str]) -> int:
    db, model = argv[0], argv[1]
    con = duckdb.connect(db)
    # operator timings in EXPLAIN ANALYZE; the per-query profile this also turns on goes to a scratch file
    con.execute("pragma enable_profiling = 'json'")
    con.execute(f"pragma profiling_output = '{tempfile.gettempdir()}/auto_cdc_duckdb_profile.json'")
    con.execute("pragma profiling_mode = 'detailed'")
    target, log = f'main."{model}"', f'main."{model}__auto_cdc_log"'
    keys = con.execute(f"select count(*) from {target}").fetchone()[0]
    n = int(argv[2]) if len(argv) > 2 else min(1_000_000, keys // 10)
    steps = statements(target, log, n, keys)
    print(f"# {model}: target {keys:,} rows, log {con.execute(f'select count(*) from {log}').fetchone()[0]:,} "
          f"events; batch of {n:,} new events; every step rolled back\n")

    def before(label: str) -> None:
        for other, sql in steps:
            if other == label:
                return
            con.execute(sql)

    con.execute("begin")
    for label, sql in steps:
        t0 = time.perf_counter()
        con.execute(sql)
        print(f"{time.perf_counter() - t0:7.3f}s  {label}")
    con.execute("rollback")

    print("\n# alternatives, each on the same state\n")
    for label, alternatives in ALTERNATIVES.items():
        for alt_label, alt in [("as the package does it", dict(steps)[label])] + alternatives:
            took = []
            for _ in range(2):  # best of two: the first may pay for a cold cache
                con.execute("begin")
                before(label)
                t0 = time.perf_counter()
                con.execute(alt.format(target=target, log=log, op=OP, bcols=_cols("b."), dcols=_cols("d."),
                                      same_dt=_same("d", "t")))
                took.append(time.perf_counter() - t0)
                con.execute("rollback")
            print(f"{min(took):7.3f}s  {label}: {alt_label}")

    print("\n# operator profiles (EXPLAIN ANALYZE) of the statements that scan the whole log or target\n")
    for label, sql in steps:
        if label.startswith(("new events", "delete stale", "stale rows", "missing rows", "desired rows")):
            con.execute("begin")
            before(label)
            plan = json.loads(con.execute(f"explain analyze {sql}").fetchall()[0][1])
            con.execute("rollback")
            print(f"## {label}\n")
            _print_operators(plan)
            print()
    con.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
