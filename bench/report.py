"""The benchmark page's headline tables and charts, from the results `bash scripts/bench.sh` writes.

    .venv/bin/python bench/report.py                 # every bench/results/<size>.json into docs/benchmarks.md
    .venv/bin/python bench/report.py --check         # fails when the page differs from what the results give
    .venv/bin/python bench/report.py bench/results/small.json --page /tmp/page.md --plots /tmp/img

For each results file it renders, between the page's markers `<!-- bench-report:<size> start -->` and
`<!-- bench-report:<size> end -->`, one headline table per engine (the package's node and whole-run time over
each peer's), how the cost grows, each peer's correctness and the statements of a run; and it draws the
size's charts into docs/img (bench/run.py's plot()). A rerun of the benchmark followed by this script
refreshes the page.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as bench  # noqa: E402

REPO = bench.REPO
PAGE = REPO / "docs" / "benchmarks.md"
SIZES = ("small", "large")  # the sizes the page shows, in its order
ENGINE_NAMES = {"duckdb": "DuckDB", "postgres": "Postgres"}
# The headline rows: the package's tool on a job, and the peers it is timed against (bench.TOOLS).
HEADLINE = [("scd1", ["incremental", "floor"]), ("scd2", ["least_scd2", "floor"]),
            ("auto_cdc_snapshot", ["dbt_snapshot", "least_snapshot"])]
# Each peer's correctness on the small late-event cases (bench.check_*_peers): (row, case, tool).
CORRECTNESS = [
    ("`auto_cdc` SCD1", "change_feed", "auto_cdc"),
    ("hand-written incremental model", "change_feed", "incremental"),
    ("`auto_cdc_snapshot` SCD2, snapshots in order", "snapshots_in_order", "auto_cdc_snapshot"),
    ("dbt `snapshot`, snapshots in order", "snapshots_in_order", "dbt_snapshot"),
    ("`auto_cdc_snapshot` SCD2, a late snapshot", "snapshots_late", "auto_cdc_snapshot"),
    ("dbt `snapshot`, a late snapshot", "snapshots_late", "dbt_snapshot"),
]
STATEMENTS = [("an in-order SCD1 batch", "scd1_batch"), ("an in-order SCD2 batch", "scd2_batch"),
              ("a run with nothing new", "scd1_empty"), ("an SCD2 batch with 20% late events", "scd2_late20"),
              ("`auto_cdc_snapshot`, one new snapshot", "snapshot_scd2"), ("dbt `snapshot`", "dbt_snapshot"),
              ("the hand-written incremental model", "incremental")]


def _x(value: float) -> str:
    return f"{value:.2f}x" if value < 10 else f"{value:.0f}x"


def _s(seconds: float) -> str:
    return f"{seconds:.2f} s" if seconds >= 0.1 else f"{seconds:.3f} s"


def headline_table(engine: dict) -> list[str]:
    lines = ["| the package's job | against | node time | whole run | the package's node, the peer's |",
             "|---|---|---|---|---|"]
    for tool, peers in HEADLINE:
        ours = bench.timing(engine, tool)
        if ours is None:
            continue
        for peer in peers:
            theirs = bench.timing(engine, peer)
            if theirs is None:
                continue
            run = _x(ours["run_s"] / theirs["run_s"]) if "run_s" in theirs else "-"
            lines.append(f"| {bench.TOOLS[tool][0]} | {bench.TOOLS[peer][0]} | {_x(ours['apply_s'] / theirs['apply_s'])} "
                         f"| {run} | {_s(ours['apply_s'])}, {_s(theirs['apply_s'])} |")
    return lines


def growth_table(results: dict, engines: list[str]) -> list[str]:
    lines = ["| the same job | " + " | ".join(ENGINE_NAMES.get(e, e) for e in engines) + " |",
             "|---|" + "---|" * len(engines)]
    per_engine = {e: dict(bench.growth_bars(results["engines"][e])) for e in engines}
    for label, _ in bench.GROWTH:
        if any(label in per_engine[e] for e in engines):
            lines.append(f"| {label} | " + " | ".join(_x(per_engine[e][label]) if label in per_engine[e] else "-"
                                                      for e in engines) + " |")
    return lines


def correctness_table(results: dict, engines: list[str]) -> list[str]:
    lines = ["| tool, case | " + " | ".join(ENGINE_NAMES.get(e, e) for e in engines) + " |",
             "|---|" + "---|" * len(engines)]
    for row, case, tool in CORRECTNESS:
        cells = []
        for e in engines:
            verdict = results["engines"][e]["correctness"].get(case, {}).get(tool)
            cells.append("-" if verdict is None else "right" if verdict["correct"] else "**wrong**")
        if set(cells) != {"-"}:
            lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return lines


def statements_table(results: dict, engines: list[str]) -> list[str]:
    lines = ["| statements a run sends | " + " | ".join(ENGINE_NAMES.get(e, e) for e in engines) + " |",
             "|---|" + "---|" * len(engines)]
    for row, key in STATEMENTS:
        cells = [str(results["engines"][e].get("statements", {}).get(key, {}).get("value", "-")) for e in engines]
        if set(cells) != {"-"}:
            lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return lines


def compaction_table(results: dict, engines: list[str]) -> list[str]:
    """`auto_cdc.compact` of an SCD1 log of five events a key at its greatest sequence: the log before and after."""
    lines = ["| an SCD1 log of five events a key, compacted | log rows | log bytes | once the engine gives the space back |",
             "|---|---|---|---|"]
    for e in engines:
        for name, c in results["engines"][e].get("compaction", {}).items():
            if name.startswith("history_scd1_"):
                lines.append(f"| {ENGINE_NAMES[e]} | {c['log_rows_before']:,} to {c['log_rows_after']:,} "
                             f"| {c['log_bytes_before']:,} to {c['log_bytes_after']:,} | {c['log_bytes_reclaimed']:,} |")
    return lines if len(lines) > 2 else []


def sizes_line(engine: dict) -> str:
    s = engine["sizes"]
    return (f"{s['B']:,} events into {s['T'][0]:,} rows (and into {s['T'][1]:,}); a snapshot of {s['snap']:,} rows "
            f"with 1% changed and 0.1% deleted")


def render(results: dict) -> str:
    """The page's block for one results file."""
    engines = [e for e in ENGINE_NAMES if e in results["engines"]]
    size = results["size"]
    m = results.get("machine", {})
    versions = ", ".join(f"{name} {m[key]}" for name, key in (("dbt-core", "dbt_core"), ("DuckDB", "duckdb"),
                                                               ("PostgreSQL", "postgres")) if m.get(key))
    command = "bash scripts/bench.sh" + ("" if size == "small" else f" --size {size}")
    load = m.get("load_average")
    load = f"; the machine's load average {load[0]} when it started, {load[-1]} when it ended" if load else ""
    out = [f"Measured on {results['started_at'][:10]} with `{command}` ({m.get('cpus', '?')} cores"
           + (f"; {versions}" if versions else "") + load
           + f"; each time the best of {results['repeat']} batch{'es' if results['repeat'] > 1 else ''}). "
           "Each ratio is the package's time over the peer's: **lower is better**, 1.00x a tie.", ""]
    for e in engines:
        out += [f"**{ENGINE_NAMES[e]}**: {sizes_line(results['engines'][e])}.", ""]
        out += headline_table(results["engines"][e]) + [""]
    for chart, what in (("change-feed", "change feed"), ("snapshot", "snapshot")):
        out += [f"![{what}: node time, times the reference's, lower is better](img/bench-{size}-{chart}.svg)", ""]
    out += ["How the cost grows: the same batch into a larger target (10x the smaller on DuckDB, 5x on Postgres), a batch "
            "with 20% late events against one with none, and late events into a 10x longer history:", ""]
    out += growth_table(results, engines) + [""]
    out += [f"![how the cost grows, lower is better](img/bench-{size}-growth.svg)", ""]
    out += ["Each tool on small cases with a late event or a late snapshot, against the reference model "
            "(`bench/run.py`, `check_change_feed_peers`, `check_snapshot_peers`):", ""]
    out += correctness_table(results, engines) + [""]
    out += statements_table(results, engines)
    compaction = compaction_table(results, engines)
    if compaction:
        out += ["", "The event log before and after `auto_cdc.compact` at its greatest sequence (Postgres gives the space "
                "back with `VACUUM FULL`; DuckDB reuses it):", ""] + compaction
    return "\n".join(out)


def replace_block(page: str, size: str, block: str) -> str:
    start, end = f"<!-- bench-report:{size} start -->", f"<!-- bench-report:{size} end -->"
    if start not in page or end not in page:
        raise SystemExit(f"the page has no markers {start} ... {end}")
    head, rest = page.split(start, 1)
    _, tail = rest.split(end, 1)
    return f"{head}{start}\n{block}\n{end}{tail}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("results", nargs="*", type=Path,
                        help="results JSON files (default: bench/results/<size>.json for each size there is)")
    parser.add_argument("--page", type=Path, default=PAGE)
    parser.add_argument("--plots", type=Path, default=REPO / "docs" / "img")
    parser.add_argument("--check", action="store_true", help="change nothing; fail when the page is not up to date")
    args = parser.parse_args(argv)
    files = args.results or [REPO / "bench" / "results" / f"{size}.json" for size in SIZES
                             if (REPO / "bench" / "results" / f"{size}.json").exists()]
    page = original = args.page.read_text()
    for path in files:
        results = json.loads(path.read_text())
        page = replace_block(page, results["size"], render(results))
        if not args.check:
            bench.plot(results, args.plots)
    if args.check:
        if page != original:
            print(f"{args.page} is not what {', '.join(map(str, files))} give: run bench/report.py")
            return 1
        return 0
    args.page.write_text(page)
    print(f"written {args.page} from {', '.join(map(str, files))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
