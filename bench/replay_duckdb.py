"""Replay an `auto_cdc` model's last run, statement by statement, on a copy of a kept DuckDB project, with a
new batch in its feed, and print each statement's time and, for the statements asked for, DuckDB's operator
profile (the operators that took more than 20 ms: time, rows out, and what they read or join on). Everything
runs in one transaction that is rolled back; the kept project is not touched.

    .venv/bin/python bench/lower_bound.py --scd 2         # prints its project folder, and keeps it
    .venv/bin/python bench/replay_duckdb.py /tmp/auto_cdc_lower_bound_XXXX/project scd2 --explain affected desired

With `--compare OTHER`, the statements asked for with `--explain` are not profiled but timed four times each,
alternating with the same statement of OTHER's run (a kept project of the same size made by other code): the
A/B of one statement on one database, a few seconds apart.

    .venv/bin/python bench/replay_duckdb.py NEW/project scd2 --explain affected desired --compare OLD/project

The statements are read from dbt's JSON log of the model's second run, which lower_bound.py keeps as
`logs/<model>.log` (else the project's `logs/dbt.log`), from its staging statement on; the batch is bench/run.py's next batch on the same keys (`--run`, after the two lower_bound.py applied).
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # noqa: E402

import duckdb  # noqa: E402

STAGING = re.compile(r"\s*create or replace temporary table \S*__auto_cdc_batch")
# a round trip of several statements (run_then_query, run_statements): one statement each
SPLIT = re.compile(r";\s*\n(?=\s*(?:create|select|insert|delete|merge|update|drop)\b)", re.I)


def last_run(log: Path, model: str) -> list[str]:
    statements: list[str] = []
    for line in log.read_text(errors="replace").splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        data = event.get("data", {})
        if event.get("info", {}).get("name") != "SQLQuery" or data.get("node_info", {}).get("node_name") != model:
            continue
        sql = data["sql"].split("*/", 1)[-1] if data["sql"].lstrip().startswith("/*") else data["sql"]
        if STAGING.match(sql):
            statements = []
        statements += [s for s in SPLIT.split(sql) if s.strip() and s.strip().upper() not in ("BEGIN", "COMMIT")]
    return statements


def project_run(project: Path, model: str) -> list[str]:
    log = project / "logs" / f"{model}.log"
    statements = last_run(log if log.exists() else project / "logs" / "dbt.log", model)
    if not statements:
        sys.exit(f"no run of {model} in {log.parent}")
    return statements


def creates(sql: str, model: str, names: list[str]) -> str | None:
    """Which of `names` (temp tables of the model) the statement creates, if any."""
    for name in names:
        if re.match(rf'\s*create or replace temporary table "?{model}__auto_cdc_{name}\b', sql):
            return name
    return None


def creates_sql(statements: list[str], model: str, name: str) -> str:
    found = [s for s in statements if creates(s, model, [name])]
    if not found:
        sys.exit(f"the other run creates no {model}__auto_cdc_{name}")
    return found[0]


def compare(con: duckdb.DuckDBPyConnection, this: str, other: str) -> str:
    """Both statements, four times each, alternating (the caller then runs this one again, for what follows)."""
    times: dict[str, list[float]] = {"this": [], "other": []}
    for i in range(4):
        pair = [("other", other), ("this", this)] if i % 2 == 0 else [("this", this), ("other", other)]
        for label, sql in pair:
            t = time.perf_counter()
            con.execute(sql)
            times[label].append(time.perf_counter() - t)
    return "  ".join(f"{k} {' '.join(f'{x:.3f}' for x in v)} s" for k, v in times.items())


def operators(profile: dict) -> list[str]:
    out: list[str] = []

    def walk(node: dict, depth: int) -> None:
        if node.get("timing", 0) > 0.02:
            extra = node.get("extra_info") or {}
            shown = {k: v for k, v in extra.items() if k in ("Table", "Join Type", "Conditions", "Groups", "Aggregates")}
            out.append(f"    {node['timing']:6.3f} s  {'  ' * depth}{node.get('name')} rows={node.get('intermediate_rows')} "
                       f"{str(shown)[:200] if shown else ''}")
        for child in node.get("children", []):
            walk(child, depth + 1)

    for root in profile.get("operator", []):
        walk(root, 0)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("project", type=Path, help="a kept project folder (holding it.duckdb and logs/dbt.log)")
    ap.add_argument("model")
    ap.add_argument("--feed", default="feed_a", help="the model's feed table (lower_bound.py: feed_a)")
    ap.add_argument("--rows", type=int, default=10_000_000, help="keys in the target (lower_bound.py's --rows)")
    ap.add_argument("--batch", type=int, default=1_000_000, help="events in the new batch (lower_bound.py's --batch)")
    ap.add_argument("--run", type=int, default=3, help="which batch of bench/run.py to replay with (1-9)")
    ap.add_argument("--explain", nargs="*", default=[],
                    help="profile the statements that create these temp tables (affected, held, desired, ...)")
    ap.add_argument("--compare", type=Path, metavar="OTHER",
                    help="time the --explain statements against OTHER's (a kept project), alternately, four times each")
    args = ap.parse_args()
    statements = project_run(args.project, args.model)
    other = project_run(args.compare, args.model) if args.compare else []
    copy = Path(tempfile.mkdtemp(prefix="auto_cdc_replay_")) / "it.duckdb"
    shutil.copy(args.project / "it.duckdb", copy)
    con = duckdb.connect(str(copy))
    batch = bench.batch_sql("duckdb", args.batch, args.rows, 1, args.run, 5, late=0.0).replace('"it"."main".', "it.main.")
    con.execute(f"create or replace table it.main.{args.feed} as {batch}")
    con.execute("begin")
    profile = copy.parent / "profile.json"
    for sql in statements:
        name = creates(sql, args.model, args.explain)
        explain = name is not None and not args.compare
        if name is not None and args.compare:
            print(f"         {name}: {compare(con, sql, creates_sql(other, args.model, name))}")
        if explain:
            con.execute("pragma enable_profiling='json'")
            con.execute(f"pragma profiling_output='{profile}'")
        t = time.perf_counter()
        con.execute(sql)
        elapsed = time.perf_counter() - t
        print(f"{elapsed:7.3f} s  {' '.join(sql.split())[:110]}")
        if explain:
            con.execute("pragma disable_profiling")
            print("\n".join(operators(json.loads(profile.read_text()))))
    con.execute("rollback")
    con.close()
    shutil.rmtree(copy.parent)


if __name__ == "__main__":
    main()
