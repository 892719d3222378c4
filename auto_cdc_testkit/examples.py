"""The examples job: build the documentation examples E1-E4 (models/examples) with `dbt build` in integration_tests/ on
embedded DuckDB and show, per example, the input events, the expected table of the documentation,
the table the package built, and `matches` or the difference. Exits non-zero on any mismatch.

    python -m auto_cdc_testkit.examples [--expected MODEL=FILE.csv ...]

--expected replaces the documented expected table of one model by a CSV file (the tests use it to
check that a mismatch fails the job).
"""
from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from .harness import DBT, REPO

PROJECT = REPO / "integration_tests"
SEEDS = REPO / "seeds" / "examples"
E3_FILES = PROJECT / "fixtures" / "e3"
DB = REPO / "target" / "examples.duckdb"


@dataclass(frozen=True)
class Example:
    title: str
    model: str
    inputs: tuple[Path, ...]
    expected: Path


def _seed(name: str) -> Path:
    return SEEDS / f"{name}.csv"


EXAMPLES = [
    Example("E1, SCD type 1", "e1_users_scd1", (_seed("users_cdf"),), _seed("expected_e1_scd1")),
    Example("E1 with a TRUNCATE at sequence 3, SCD type 1", "e1_users_scd1_truncate",
            (_seed("users_cdf_with_truncate"),), _seed("expected_e1_scd1_truncate")),
    Example("E1, SCD type 2", "e1_users_scd2", (_seed("users_cdf"),), _seed("expected_e1_scd2")),
    Example("E1, SCD type 2, track_history_except_column_list = ['city']", "e1_users_scd2_track_except_city",
            (_seed("users_cdf"),), _seed("expected_e1_scd2_track_except_city")),
    Example("E2, periodic snapshots 0 and 1, SCD type 1", "e2_users_snapshot_scd1",
            (_seed("e2_snapshots"),), _seed("expected_e2_scd1")),
    Example("E2, periodic snapshots 0 and 1, SCD type 2", "e2_users_snapshot_scd2",
            (_seed("e2_snapshots"),), _seed("expected_e2_scd2")),
    Example("E3, snapshot files, SCD type 1", "e3_users_snapshot_files_scd1",
            (E3_FILES / "snapshot_1.csv", E3_FILES / "snapshot_2.csv"), _seed("expected_e3_scd1")),
    Example("E3, snapshot files, SCD type 2", "e3_users_snapshot_files_scd2",
            (E3_FILES / "snapshot_1.csv", E3_FILES / "snapshot_2.csv"), _seed("expected_e3_scd2")),
    Example("E4, bitemporal (business time bt, system time st)", "e4_companies_bitemporal",
            (_seed("e4_events"),), _seed("expected_e4_bitemporal")),
]


def read_csv(path: Path) -> tuple[list[str], list[tuple[str, ...]]]:
    """A CSV table as text; an empty cell is NULL (as dbt seeds read it)."""
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [tuple(cell if cell != "" else None for cell in row) for row in rows[1:]]


def as_text(value) -> str | None:
    return None if value is None else str(value)


def render(columns: list[str], rows: list[tuple]) -> str:
    cells = [columns] + [["null" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join("    " + line for line in lines)


def _order(row: tuple) -> tuple:
    return tuple((v is not None, v or "") for v in row)


def diff(columns: list[str], expected: list[tuple], actual: list[tuple]) -> list[str]:
    """The rows of one table missing from the other (as multisets), `-` expected only, `+` built only."""
    lines = []
    rest = list(actual)
    for row in expected:
        if row in rest:
            rest.remove(row)
        else:
            lines.append("- " + ", ".join(f"{c}={'null' if v is None else v}" for c, v in zip(columns, row)))
    for row in rest:
        lines.append("+ " + ", ".join(f"{c}={'null' if v is None else v}" for c, v in zip(columns, row)))
    return lines


def build(colour: bool) -> subprocess.CompletedProcess:
    env = {**os.environ, "DO_NOT_TRACK": "1", "DBT_TARGET": "duckdb", "DBT_DUCKDB_PATH": str(DB)}
    common = ["--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT)]
    flags = [] if colour else ["--no-use-colors"]
    deps = subprocess.run([DBT, *flags, "deps", *common], cwd=PROJECT, env=env, capture_output=True, text=True)
    if deps.returncode != 0:
        return deps
    return subprocess.run([DBT, *flags, "build", *common, "--select", "package:auto_cdc"],
                          cwd=PROJECT, env=env, capture_output=True, text=True)


@contextmanager
def one_job_at_a_time():
    """Jobs of one checkout share target/examples.duckdb and integration_tests/target/: a second job waits
    for the first (an exclusive lock on target/examples.lock) instead of deleting the database it reads."""
    DB.parent.mkdir(exist_ok=True)
    try:
        import fcntl
    except ImportError:  # no fcntl (Windows): jobs are not serialized
        yield
        return
    with open(DB.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def main(argv: list[str] | None = None) -> int:
    with one_job_at_a_time():
        return run(argv)


def run(argv: list[str] | None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--expected", action="append", default=[], metavar="MODEL=FILE.csv",
                        help="compare MODEL with FILE.csv instead of its documented expected table")
    args = parser.parse_args(argv)
    overrides = dict(item.split("=", 1) for item in args.expected)

    DB.unlink(missing_ok=True)
    proc = build(colour=sys.stdout.isatty())
    summary = [line for line in proc.stdout.splitlines() if "Done. PASS=" in line]
    print("dbt build of integration_tests/ (DuckDB): " + (summary[-1].split("Done. ", 1)[1] if summary else "failed"))
    if proc.returncode != 0:
        print(proc.stdout[-6000:] + proc.stderr[-2000:])
    import duckdb
    con = duckdb.connect(str(DB), read_only=True)
    mismatches = 0
    for example in EXAMPLES:
        print(f"\n== {example.title} ({example.model})")
        for path in example.inputs:
            print(f"\n  input {path.relative_to(REPO)}:")
            print(render(*read_csv(path)))
        expected_path = Path(overrides.get(example.model, example.expected))
        columns, expected = read_csv(expected_path)
        print(f"\n  expected ({expected_path.relative_to(REPO) if expected_path.is_relative_to(REPO) else expected_path}):")
        print(render(columns, sorted(expected, key=_order)))
        try:
            built_columns = [r[0] for r in con.execute(f'describe main."{example.model}"').fetchall()]
        except duckdb.Error:
            print(f"\n  built: no table {example.model}\n\n  MISMATCH")
            mismatches += 1
            continue
        select = ", ".join('"' + c.replace('"', '""') + '"' for c in columns if c in built_columns)
        actual = [tuple(as_text(v) for v in row) for row in con.execute(f'select {select} from main."{example.model}"').fetchall()]
        print(f"\n  built ({example.model}):")
        print(render(columns if set(columns) <= set(built_columns) else built_columns, sorted(actual, key=_order)))
        problems = []
        if sorted(columns) != sorted(built_columns):
            problems.append(f"columns differ: expected {', '.join(columns)}; built {', '.join(built_columns)}")
        problems += diff(columns, expected, actual)
        if problems:
            mismatches += 1
            print("\n  MISMATCH (- expected only, + built only):\n" + "\n".join("    " + p for p in problems))
        else:
            print("\n  matches")
    con.close()
    print(f"\n{len(EXAMPLES) - mismatches} of {len(EXAMPLES)} examples match the documentation")
    return 1 if mismatches or proc.returncode != 0 else 0


if __name__ == "__main__":
    sys.exit(main())
