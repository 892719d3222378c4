"""How far below the package's apply the floor ratio's target lies: at the floor's size (a batch of B
events into a T-row target), the floor insert, dbt's hand-written incremental model (the latest event per
key, delete+insert on the key; bench/run.py's change-feed peer) and an `auto_cdc` SCD1 (or SCD2) model on
the same batches, and the one write any apply that keeps an event log adds to the incremental model: the
insert of the batch into a T-row log (Postgres: with the log's index on key and sequence). With --scd 2,
also dbt's own `snapshot` of each batch (timestamp strategy on the sequence): the SCD2 that dbt users
write today, which closes each touched key's current row and inserts its new one (it reads a delete
event as one more version, and keeps no log); and `least_scd2`, a materialization of the least an SCD2
apply that keeps an event log must send for an in-order batch (the events the log lacks, their append,
the close of the open versions and the insert of the new ones; no check for late events, hand edits or
conflicts: bench/run.py), whose target holds the same rows as the package's.

    .venv/bin/python bench/lower_bound.py                       # DuckDB, 1,000,000 events into 10,000,000 rows
    .venv/bin/python bench/lower_bound.py --engine postgres     # Postgres, 100,000 into 5,000,000 (the large floor)
    .venv/bin/python bench/lower_bound.py --rows 2000000 --batch 20000
    .venv/bin/python bench/lower_bound.py --scd 2                # the same with an SCD2 model in place of SCD1
    .venv/bin/python bench/lower_bound.py --snapshot             # the snapshot job: 1,000,000 rows, 1% changed

With --snapshot it times, on a snapshot of --rows rows (1,000,000 by default) and two new versions of it (1%
of the rows changed, 0.1% deleted), `auto_cdc_snapshot` SCD2, dbt's `snapshot` (check strategy, hard deletes
invalidated) and `least_snapshot`, the least an apply of one new snapshot version that keeps a log sends (the
diff by joins, the events' append, the close and the insert: bench/run.py), checked to write the package's rows.

It prints each model's node time (two batches), the floor and the log insert (best of three), their ratios
to the floor, and every statement of the last run of each model with its time (dbt's JSON log).
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import run as bench  # noqa: E402

from auto_cdc_testkit.harness import Project  # noqa: E402

DEFAULTS = {"duckdb": (10_000_000, 1_000_000), "postgres": (5_000_000, 100_000)}
WIDTH = 5


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--engine", choices=sorted(DEFAULTS), default="duckdb")
    ap.add_argument("--rows", type=int, help="target rows (default: the large floor's size for the engine)")
    ap.add_argument("--batch", type=int, help="events per batch (default: the large floor's batch)")
    ap.add_argument("--scd", type=int, choices=(1, 2), default=1, help="the auto_cdc model's SCD type (default 1)")
    ap.add_argument("--snapshot", action="store_true",
                    help="the snapshot job instead (--rows rows, default 1,000,000, 1%% changed and 0.1%% deleted)")
    args = ap.parse_args()
    e = args.engine
    T, B = args.rows or DEFAULTS[e][0], args.batch or DEFAULTS[e][1]
    if args.snapshot:
        T = args.rows or 1_000_000
    server = None
    try:
        env = None
        if e == "postgres":
            from auto_cdc_testkit.testing import postgres
            server = postgres.start()
            env = server.env()
        p = Project(Path(tempfile.mkdtemp(prefix="auto_cdc_lower_bound_")) / "project", e, env, name="auto_cdc_bench")
        print(f"project: {p.path} (kept: bench/replay_duckdb.py replays its runs)")
        if args.snapshot:
            print(json.dumps(snapshot_job(p, T), indent=1))
            p.close()
            return
        model = f"scd{args.scd}"
        # each node: (its feed, the dbt command that applies a batch)
        nodes = {"incremental": ("feed_i", "run"), model: ("feed_a", "run")}
        if args.scd == 2:
            nodes["snap_dbt"] = ("feed_s", "snapshot")
            nodes["least_scd2"] = ("feed_l", "run")
        for feed, _ in nodes.values():
            bench.replace_table(p, feed, bench.initial_feed_sql(e, T, 1, WIDTH))
        bench.incremental_peer_model(p, "incremental", "feed_i", WIDTH)
        bench.auto_cdc_model(p, model, "feed_a", args.scd)
        if args.scd == 2:
            bench.least_scd2_model(p, "least_scd2", "feed_l", WIDTH)
        p.run()
        if args.scd == 2:
            (p.path / "snapshots").mkdir(exist_ok=True)
            (p.path / "snapshots" / "snap_dbt.sql").write_text(
                "{% snapshot snap_dbt %}\n{{ config(unique_key='id', strategy='timestamp', updated_at='seq') }}\n"
                f"select * from {p.relation('feed_s')}\n{{% endsnapshot %}}\n")
            p.dbt("snapshot")
        timed: dict[str, list[dict]] = {name: [] for name in nodes}
        for r in (1, 2):
            batch = bench.batch_sql(e, B, T, 1, r, WIDTH, late=0.0)
            for name, (feed, command) in nodes.items():
                bench.replace_table(p, feed, batch)
                timed[name].append(timed_run(p, command, name, last=r == 2))
        floor = bench.floor_seconds(p, "floor_t", T, bench.batch_sql(e, B, T, 1, 3, WIDTH, late=0.0), WIDTH, 3)
        # the log insert: the batch into a table of T events, indexed like the package's log on Postgres
        bench.replace_table(p, "log_t", bench.initial_feed_sql(e, T, 1, WIDTH))
        if e == "postgres":
            p.execute(f"create index on {p.relation('log_t')} (id, seq)")
        bench.replace_table(p, "log_b", bench.batch_sql(e, B, T, 1, 4, WIDTH, late=0.0))
        append = min(bench.timed_sql(p, f"insert into {p.relation('log_t')} select * from {p.relation('log_b')}")
                     for _ in range(3))
        inc = [t["apply_s"] for t in timed["incremental"]]
        cdc = [t["apply_s"] for t in timed[model]]
        result = {"engine": e, "target_rows": T, "batch": B, "floor_s": floor, "log_insert_s": append,
                  "incremental_s": inc, f"{model}_s": cdc,
                  "incremental_over_floor": [round(x / floor, 2) for x in inc],
                  "incremental_plus_log_insert_over_floor": [round((x + append) / floor, 2) for x in inc],
                  f"{model}_over_floor": [round(x / floor, 2) for x in cdc],
                  f"{model}_over_incremental": [round(a / i, 2) for a, i in zip(cdc, inc)]}
        if "snap_dbt" in timed:
            snap = [t["apply_s"] for t in timed["snap_dbt"]]
            result.update({"snapshot_s": snap, "snapshot_over_floor": [round(x / floor, 2) for x in snap],
                           "snapshot_plus_log_insert_over_floor": [round((x + append) / floor, 2) for x in snap],
                           f"{model}_over_snapshot": [round(a / x, 2) for a, x in zip(cdc, snap)]})
        if "least_scd2" in timed:
            least = [t["apply_s"] for t in timed["least_scd2"]]
            assert_same_rows(p, "least_scd2", model, ["id", "seq"] + [f"c{w}" for w in range(1, WIDTH + 1)])
            result.update({"least_scd2_s": least, "least_scd2_over_floor": [round(x / floor, 2) for x in least],
                           f"{model}_over_least_scd2": [round(a / x, 2) for a, x in zip(cdc, least)]})
        print(json.dumps(result, indent=1))
        p.close()
    finally:
        if server is not None:
            server.stop()


def timed_run(p: Project, command: str, name: str, last: bool) -> dict:
    """One timed dbt invocation of one node; after the last, every statement it sent, and its dbt log kept
    as logs/<name>.log (each invocation starts a new log) for bench/replay_duckdb.py."""
    timing = bench.dbt_timed(p, command, name)
    if last:
        print(f"{name}, run 2: every statement")
        for s in bench._statements(p.path / "logs" / "dbt.log", name):
            print(f"  {s['s']:7.3f} s  {s['sql'][:110]}")
        shutil.copy(p.path / "logs" / "dbt.log", p.path / "logs" / f"{name}.log")
    return timing


def assert_same_rows(p: Project, least: str, package: str, columns: list[str]) -> None:
    """A least model is a lower bound only if it writes what the package writes (its validity columns are
    start_at and end_at)."""
    cols = ", ".join(columns)
    a = f"select {cols}, start_at, end_at from {p.relation(least)}"
    b = f'select {cols}, "__START_AT", "__END_AT" from {p.relation(package)}'
    differ = p.fetch(f"select (select count(*) from ({a} except all {b}) x) + (select count(*) from ({b} except all {a}) y)")
    assert differ[0][0] == 0, f"{least} and {package} differ in {differ[0][0]} rows"


def snapshot_job(p: Project, T: int) -> dict:
    """`auto_cdc_snapshot` SCD2, dbt's `snapshot` (check strategy, hard deletes invalidated) and
    `least_snapshot` on a snapshot of T rows, then two new versions (1% of the rows changed, 0.1% deleted),
    each applied by the three in turn."""
    e = p.engine
    nodes = {"snap_auto_cdc": "run", "snap_dbt": "snapshot", "least_snapshot": "run"}
    bench.replace_table(p, "snap_src", bench.snapshot_sql(e, T, 0, WIDTH))
    bench.auto_cdc_snapshot_model(p, "snap_auto_cdc", "snap_src")
    bench.snapshot_peer(p, "snap_dbt", "snap_src", WIDTH)
    bench.least_snapshot_model(p, "least_snapshot", "snap_src", WIDTH)
    p.run()
    p.dbt("snapshot")
    timed: dict[str, list[dict]] = {name: [] for name in nodes}
    for r in (1, 2):
        bench.replace_table(p, "snap_src", bench.snapshot_sql(e, T, r, WIDTH))
        for name, command in nodes.items():
            timed[name].append(timed_run(p, command, name, last=r == 2))
    assert_same_rows(p, "least_snapshot", "snap_auto_cdc", ["id"] + [f"c{w}" for w in range(1, WIDTH + 1)])
    node = {name: [t["apply_s"] for t in runs] for name, runs in timed.items()}
    return {"engine": e, "snapshot_rows": T, **{f"{name}_s": v for name, v in node.items()},
            "snapshot_over_auto_cdc_snapshot": [round(d / a, 2) for d, a in zip(node["snap_dbt"], node["snap_auto_cdc"])],
            "snapshot_over_least_snapshot": [round(d / x, 2) for d, x in zip(node["snap_dbt"], node["least_snapshot"])],
            "auto_cdc_snapshot_over_least_snapshot": [round(a / x, 2) for a, x in zip(node["snap_auto_cdc"], node["least_snapshot"])]}


if __name__ == "__main__":
    main()
