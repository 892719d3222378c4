"""One hand-edited row in a large Postgres run costs about what the same run costs without it.

    .venv/bin/python bench/edit_check.py [--keys 100000]

An SCD2 model over --keys keys is built, then two batches that touch every key are applied: the
first with no hand edit, the second after one row of the target was updated by hand (so the run
folds one edited key and checks its rows). Prints each run's apply time (dbt's run_results.json)
and their ratio."""
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=100_000)
    keys = parser.parse_args().keys
    server = postgres.start()
    try:
        project = Project(Path(tempfile.mkdtemp()) / "edit_check", "postgres", server.env())
        feed = project.relation("feed")
        project.execute(f"create table {feed} as select k as id, 1 as seq, 'v1' as a from generate_series(1, {keys}) k")
        project.feed_model("t", "feed", materialized="auto_cdc", keys=["id"], sequence_by="seq",
                           except_column_list=["seq"], stored_as_scd_type=2)
        project.run()
        timings = {}
        for seq, label in [(2, "no edit"), (3, "one edit")]:
            if label == "one edit":
                project.execute(f"update {project.relation('t')} set a = 'hand' where id = 7 and \"__END_AT\" is null")
            project.execute(f"insert into {feed} select k, {seq}, 'v{seq}' from generate_series(1, {keys}) k")
            project.run()
            timings[label] = apply_seconds(project)
        edited = project.fetch(f"select edited_keys from {project.relation('t__auto_cdc_runs')} order by run_id")
        assert [e[0] for e in edited] == [0, 0, 1], edited
        ratio = timings["one edit"] / timings["no edit"]
        print(json.dumps({"keys": keys, "apply_seconds": timings, "ratio_one_edit_to_none": round(ratio, 2)}))
        project.clean()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
