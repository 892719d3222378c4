"""The benchmark (bench/run.py) at its tiny size on DuckDB, so its code cannot rot: the floor and
scaling part (one run each) and the peers' correctness cases. It checks the shape of the results, the charts,
the page's rendering of them (bench/report.py) and the correctness verdicts the docs quote, never a timing."""
from __future__ import annotations

import json
import subprocess
import sys

from auto_cdc_testkit.harness import REPO


def test_bench_tiny_duckdb_reports_ratios_and_the_peers_mistakes(tmp_path):
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "run.py"), "--size", "tiny", "--engines", "duckdb",
                           "--repeat", "1", "--parts", "scaling,correctness", "--out", str(out),
                           "--plots", str(tmp_path / "img")],
                          capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(out.read_text())["engines"]["duckdb"]
    for name in ("floor_scd1", "floor_scd2", "scaling_scd1", "scaling_scd2", "scaling_floor", "scaling_incremental"):
        assert result["ratios"][name]["value"] > 0, name
    for name in ("scd1_batch", "scd1_empty", "scd2_batch", "scd2_empty"):
        assert result["statements"][name]["value"] > 0, name
    assert result["ratios"]["bookkeeping_scd1"]["value"] > 0  # the event log is not empty
    compacted = result["compaction"]["scd1_50000"]  # the SCD1 log at its greatest sequence: one event per key
    assert compacted["log_rows_after"] < compacted["log_rows_before"]
    assert result["ratios"]["scd2_vs_least_apply"]["value"] > 0  # the least SCD2 apply timed beside SCD2
    for chart in ("bench-tiny-change-feed.svg", "bench-tiny-growth.svg"):
        svg = (tmp_path / "img" / chart).read_text()
        assert svg.lstrip().startswith("<?xml") and "lower is better" in svg, chart
    sys.path.insert(0, str(REPO / "bench"))
    import report
    page = report.render(json.loads(out.read_text()))
    assert "| auto_cdc SCD1 | hand-written incremental model |" in page
    assert "| auto_cdc SCD2 | least SCD2 apply that keeps a log |" in page
    assert "| hand-written incremental model | **wrong** |" in page
    correctness = result["correctness"]
    assert correctness["change_feed"]["auto_cdc"]["correct"]
    assert not correctness["change_feed"]["incremental"]["correct"]  # a late event overwrites a newer value
    assert correctness["snapshots_in_order"]["auto_cdc_snapshot"]["correct"]
    assert correctness["snapshots_late"]["auto_cdc_snapshot"]["correct"]
    assert not correctness["snapshots_late"]["dbt_snapshot"]["correct"]  # a late snapshot becomes the current row
    assert "| ratio |" in proc.stdout
    assert "| statements per run" in proc.stdout
