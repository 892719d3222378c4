"""Each statement of one incremental Spark run: its time and the Spark jobs it started.

    .venv/bin/python bench/profile_spark.py delta 1000000              # file format, target rows
    .venv/bin/python bench/profile_spark.py parquet 100000 1000         # ... and the batch (default 1%)
    .venv/bin/python bench/profile_spark.py delta 100000 1000 spark.sql.adaptive.enabled=false   # a setting
    .venv/bin/python bench/profile_spark.py delta 100000 --json run.json   # ... and every statement's SQL
    .venv/bin/python bench/profile_spark.py delta 100000 --jobs            # ... and every statement's jobs
    .venv/bin/python bench/profile_spark.py parquet 1000000 10000 --rows-per-bucket 50000   # the bench's buckets
    .venv/bin/python bench/profile_spark.py delta 1000000 --warm           # after the same job once, untimed
    .venv/bin/python bench/profile_spark.py checked 1000000                # spark_scaling's least_checked_scd2_delta
    .venv/bin/python bench/profile_spark.py inline 1000000                 # ... or least_inline_scd2_delta (or least)

It starts the loopback Spark cluster of the tests, builds the SCD2 job of bench/spark_scaling.py (a target of
N keys, then a batch of B updates spread over the key space; a parquet target in N / R buckets, R from
--rows-per-bucket as in bench/spark_scaling.py, default 5000), and times every statement the model's
incremental run sends through dbt-spark's session cursor (a query's time includes fetching its rows), with
the driver's job count before and after. It prints them in order, the model's execution time and the total.
With --jobs it turns on the driver's web UI and lists, under each statement, the jobs it started: each one's
time (submission to completion, from the UI's REST API) and the description Spark or Delta gave it (Delta's
own work says what it is: "Compute snapshot for version: 3", "Filtering files for query", "MERGE operation -
scanning files for matches", ...), then the jobs' time by description. A driver's first Spark runs are its
slowest (the JVM has not compiled its code yet); with --warm the whole job runs once, untimed, in a project of
its own before the timed one.
"""
from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import spark_scaling  # noqa: E402

import dbt.adapters.spark.session as session  # noqa: E402

from auto_cdc_testkit.statements import strip_comment  # noqa: E402
from auto_cdc_testkit.testing import spark  # noqa: E402

TIMED: list[list] = []  # [sql, seconds, jobs, first job id]
ON = [False]


def _timed(method, attribute: bool):
    """Wrap a Cursor method: execute adds a statement, fetchall adds to the last one."""
    def wrapper(self, *args):
        if not ON[0]:
            return method(self, *args)
        jobs, t = spark_scaling.spark_jobs_so_far(), time.time()
        result = method(self, *args)
        spent, started = time.time() - t, spark_scaling.spark_jobs_so_far() - jobs
        if not attribute:
            TIMED.append([args[0], spent, started, jobs])
        elif TIMED:
            TIMED[-1][1] += spent
            TIMED[-1][2] += started
        return result
    return wrapper


def spark_jobs() -> dict[int, dict]:
    """Every job the driver ran, by id: its time in seconds and its description (the UI's REST API)."""
    import urllib.request
    from datetime import datetime

    from pyspark import SparkContext
    sc = SparkContext._active_spark_context
    with urllib.request.urlopen(f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/jobs") as r:
        listed = json.load(r)
    at = lambda s: datetime.strptime(s, "%Y-%m-%dT%H:%M:%S.%f%Z").timestamp()  # noqa: E731
    return {j["jobId"]: {"s": round(at(j["completionTime"]) - at(j["submissionTime"]), 3) if "completionTime" in j else None,
                         "what": " ".join((j.get("description") or "").split())}
            for j in listed}


def kind(what: str) -> str:
    """A job's description without its numbers and Delta's repeated prefixes: the kind of work it is."""
    what = re.sub(r"\b\d+\b", "N", what.replace("Delta: Delta: ", "Delta: "))
    return what[:90] or "(the statement's own query)"


def main(argv: list[str]) -> None:
    out, with_jobs, warm = None, "--jobs" in argv, "--warm" in argv
    argv = [a for a in argv if a not in ("--jobs", "--warm")]
    rows_per_bucket = spark_scaling.ROWS_PER_BUCKET
    if "--rows-per-bucket" in argv:
        i = argv.index("--rows-per-bucket")
        rows_per_bucket, argv = int(argv[i + 1]), argv[:i] + argv[i + 2:]
    if "--json" in argv:
        i = argv.index("--json")
        out, argv = Path(argv[i + 1]), argv[:i] + argv[i + 2:]
    file_format, n = argv[0], int(argv[1])
    b = int(argv[2]) if len(argv) > 2 and "=" not in argv[2] else max(1, n // 100)
    conf = dict(a.split("=", 1) for a in argv[2:] if "=" in a)
    if with_jobs:
        conf["spark.ui.enabled"] = "true"
    session.Cursor.execute = _timed(session.Cursor.execute, attribute=False)
    session.Cursor.fetchall = _timed(session.Cursor.fetchall, attribute=True)
    vars_ = {"n": n, "b": b}

    def run_job(cluster, timed: bool):
        """The job in a project of its own; the incremental run's statements are timed when `timed`.
        Returns the model's execution time and the driver's jobs during the incremental run."""
        least = file_format in spark_scaling.LEASTS
        p = spark_scaling.new_project("spark", {**cluster.spark_conf(), **conf}, "delta" if least else file_format)
        spark_scaling.add_model(p, n, rows_per_bucket, file_format if least else None)
        p.run(extra=["--vars", json.dumps({**vars_, "step": 0})])
        p.run("feed", extra=["--vars", json.dumps({**vars_, "step": 1})])
        ON[0] = timed
        jobs = spark_scaling.spark_jobs_so_far()
        p.run("target_scd2", extra=["--vars", json.dumps({**vars_, "step": 1})])
        ON[0] = False
        jobs = spark_scaling.spark_jobs_so_far() - jobs
        node = spark_scaling.model_time(p, "target_scd2")
        p.clean()
        return node, jobs

    with spark.start() as cluster:
        if warm:  # the same job once, untimed: the timed run finds the driver's code compiled
            run_job(cluster, timed=False)
        node, jobs = run_job(cluster, timed=True)
        listed = spark_jobs() if with_jobs else {}
    by_kind: dict[str, list] = {}
    for i, (sql, spent, started, first) in enumerate(TIMED):
        text = " ".join(strip_comment(sql).split())
        print(f"{i:3d} {spent:6.2f}s {started:3d} jobs  {text[:110]}")
        for j in range(first, first + started) if with_jobs else ():
            job = listed.get(j, {"s": None, "what": "?"})
            print(f"{'':11}{job['s'] if job['s'] is not None else '-':>6}  {job['what'][:100]}")
            totals = by_kind.setdefault(kind(job["what"]), [0, 0.0])
            totals[0] += 1
            totals[1] += job["s"] or 0.0
    print(f"{file_format}, {n:,} rows, batch {b:,}: node {node:.2f}s, {len(TIMED)} statements "
          f"({sum(t[1] for t in TIMED):.2f}s), {jobs} Spark jobs")
    for what, (count, spent) in sorted(by_kind.items(), key=lambda kv: -kv[1][1]):
        print(f"{count:4d} jobs {spent:6.2f}s  {what}")
    if out:
        out.write_text(json.dumps([{"sql": sql, "s": round(spent, 3), "jobs": started}
                                   | ({"job_list": [listed.get(j) for j in range(first, first + started)]} if with_jobs else {})
                                   for sql, spent, started, first in TIMED], indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
