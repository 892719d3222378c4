"""Hand edits folded into the log, at 10% of the keys: a run's time against the same run without edits.

    .venv/bin/python bench/hand_edits.py [--keys 16000 64000 256000] [--engines postgres duckdb]
                                         [--shapes 1 2] [--out bench/results/hand_edits.json]

For each engine, shape (SCD1, SCD2) and size: a model over --keys keys (one event each) is built, then
a batch with one new event for every key is applied twice, in two projects: once as it is (no edit), and
once after 10% of the keys' current rows (every tenth key) were updated by hand, so that the run folds
those edits into the log (edits.sql). Prints one JSON line per case: the apply time of each run (dbt's
run_results.json), their ratio, and the run log's edited_keys; writes them all to --out."""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auto_cdc_testkit.harness import Project  # noqa: E402
from auto_cdc_testkit.testing import postgres  # noqa: E402


def apply_seconds(project: Project) -> float:
    results = json.loads((project.path / "target" / "run_results.json").read_text())["results"]
    return sum(r["execution_time"] for r in results)


def one_case(engine: str, env: dict, base: Path, scd: int, keys: int, edited: bool) -> tuple[float, int]:
    project = Project(base / f"{engine}_{scd}_{keys}_{int(edited)}", engine, env)
    feed = project.relation("feed")
    series = (f"generate_series(1, {keys}) g(k)" if engine == "postgres" else f"range(1, {keys} + 1) g(k)")
    project.execute(f"create table {feed} as select k as id, 1 as seq, 'v1' as a, 'x' as b from {series}")
    project.feed_model("t", "feed", materialized="auto_cdc", keys=["id"], sequence_by="seq",
                       except_column_list=["seq"], stored_as_scd_type=scd)
    project.run()
    if edited:
        open_rows = "" if scd == 1 else ' and "__END_AT" is null'
        project.execute(f"update {project.relation('t')} set a = 'hand' where id % 10 = 0{open_rows}")
    project.execute(f"insert into {feed} select k, 2, 'v2', 'x' from {series}")
    project.run()
    seconds = apply_seconds(project)
    edited_keys = project.fetch(f"select edited_keys from {project.relation('t__auto_cdc_runs')} order by run_id desc limit 1")[0][0]
    project.clean()
    return seconds, edited_keys


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, nargs="+", default=[16_000, 64_000, 256_000])
    parser.add_argument("--engines", nargs="+", default=["postgres", "duckdb"])
    parser.add_argument("--shapes", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--out", type=Path, default=None)
    options = parser.parse_args()
    server = postgres.start() if "postgres" in options.engines else None
    base = Path(tempfile.mkdtemp())
    results = []
    try:
        for engine in options.engines:
            env = server.env() if engine == "postgres" else {}
            for scd in options.shapes:
                for keys in options.keys:
                    plain, _ = one_case(engine, env, base, scd, keys, edited=False)
                    edits, edited_keys = one_case(engine, env, base, scd, keys, edited=True)
                    assert edited_keys == keys // 10, (engine, scd, keys, edited_keys)
                    row = {"engine": engine, "scd": scd, "keys": keys, "edited_keys": edited_keys,
                           "apply_seconds_no_edit": round(plain, 2), "apply_seconds_edits": round(edits, 2),
                           "ratio": round(edits / plain, 2)}
                    print(json.dumps(row), flush=True)
                    results.append(row)
    finally:
        if server is not None:
            server.stop()
    if options.out:
        options.out.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
