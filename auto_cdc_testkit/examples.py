"""The main job: build the SPEC's documentation examples with `dbt build` on embedded DuckDB and
print the resulting targets.

    python -m auto_cdc_testkit.examples
"""
from __future__ import annotations

import os
import subprocess
import sys

from .harness import DBT, REPO

DB = REPO / "target" / "examples.duckdb"
TABLES = {
    "e1_users_scd1": "E1 as SCD type 1",
    "e1_users_scd1_truncate": "E1 with the truncate row at sequence 3, SCD type 1",
    "e1_users_scd2": "E1 as SCD type 2",
    "e1_users_scd2_track_except_city": "E1 as SCD type 2, track_history_except_column_list = ['city']",
    "e2_users_snapshot_scd1": "E2, periodic snapshots 0 and 1, SCD type 1",
    "e2_users_snapshot_scd2": "E2, periodic snapshots 0 and 1, SCD type 2",
    "e3_users_snapshot_files_scd1": "E3, snapshot files snapshot_1.csv and snapshot_2.csv, SCD type 1",
    "e3_users_snapshot_files_scd2": "E3, snapshot files snapshot_1.csv and snapshot_2.csv, SCD type 2",
    "e4_companies_bitemporal": "E4, bitemporal (business time bt, system time st)",
}


def render(columns: list[str], rows: list[tuple]) -> str:
    cells = [columns] + [["null" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def main() -> int:
    DB.parent.mkdir(exist_ok=True)
    DB.unlink(missing_ok=True)
    env = {**os.environ, "DO_NOT_TRACK": "1", "DBT_TARGET": "duckdb", "DBT_DUCKDB_PATH": str(DB)}
    proc = subprocess.run([DBT, "build", "--project-dir", str(REPO), "--profiles-dir", str(REPO)], cwd=REPO, env=env)
    if proc.returncode != 0:
        return proc.returncode
    import duckdb
    con = duckdb.connect(str(DB), read_only=True)
    for table, title in TABLES.items():
        columns = [r[0] for r in con.execute(f'describe main."{table}"').fetchall()]
        order = ", ".join(f'"{c}"' for c in [columns[0]] + [c for c in columns if c in ("__SYSTEM_START_AT", "__START_AT")])
        cur = con.execute(f'select * from main."{table}" order by {order}')
        print(f"\n{title} ({table}):\n")
        print(render([d[0] for d in cur.description], cur.fetchall()))
    con.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
