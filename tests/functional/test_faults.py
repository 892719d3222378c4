"""Fault injection (R8, R2): real dbt runs on real engines are killed at chosen statements of the
apply (and, on Postgres, the server is restarted under them); the state must be as before the
faulted run, and the next run must leave the target equal to the reference model.

A trial is one random feed (or snapshot series) delivered in three parts and one model over it:
run 0 applies part 0; part 1 arrives and one run is faulted (run 0 itself in a quarter of the
trials); part 2 arrives and a normal run follows. The fault: dbt is started with the test-only environment
variable AUTO_CDC_FAULT_AFTER_STATEMENT=k and the project overrides the package's no-op `_fault_point` hook
(auto_cdc_testkit/faults.py, through dbt's dispatch search order), which makes the run stall inside its
open transaction right after its k-th statement; the test then SIGKILLs dbt's process group (or,
on Postgres, restarts the server with an immediate, crash-like stop). k is spread over every
statement of the run, using the statement count of the scenario's previous recovery run. One trial
in five instead faults at a random moment, which also covers dbt's own statements and the
commit. On Postgres every third trial restarts the server instead. After each fault:
  - a killed run left the target, the event log, the run log (cursor / snapshot version) and the
    change feed exactly as they were (random-moment kills: as they were, or as the same run, unfaulted,
    leaves them in a project of its own: the kill came after the commit);
  - after the next run the target equals the reference model (no lost event, no duplicate version);
  - the change feed holds one commit version per run log entry that has one, numbered 1..n, and
    replaying it gives the target (no commit version of a rolled-back run).

AUTO_CDC_FAULT_TRIALS sets the trials per engine (default 5, the CI tier); the README gives the
counts of a full run (AUTO_CDC_FAULT_TRIALS=50). AUTO_CDC_FAULT_REPORT names a JSON file that
receives the counts.
"""
from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from auto_cdc_testkit import faults
from auto_cdc_testkit.cases import Case, SnapshotCase
from auto_cdc_testkit.harness import DBT, sorted_rows

# dbt is killed here: its invocations are real processes
pytestmark = pytest.mark.dbt_subprocess

TRIALS = int(os.environ.get("AUTO_CDC_FAULT_TRIALS", "5"))
SCENARIOS = ["scd1", "scd2", "bitemporal", "snapshot_scd2", "snapshot_scd1"]
MARKER = "auto_cdc fault point"


@pytest.fixture(scope="module")
def pg_server(private_pg_server):
    """A Postgres server of this module's own: the trials restart it under a run."""
    return private_pg_server


@pytest.fixture(scope="module")
def pg_env(pg_server):
    return pg_server.env()


# -- random cases ------------------------------------------------------------------------------
def feed_case(rng: random.Random, name: str, scd) -> Case:
    rows = []
    for key in range(1, rng.randint(2, 5)):
        for seq in rng.sample(range(10), rng.randint(1, 5)):
            rows.append(dict(k1=key, k2=None, s1=seq, s2=None, op=rng.choice("UUUD"),
                             a=rng.choice([None, 0, 1, 2]), b=rng.choice([None, "p", "q", "it's"]), cols=None,
                             st=rng.randint(0, 5), loaded=rng.randint(0, 2)))
    if scd == 1 and rng.random() < 0.4:
        rows.append(dict(k1=None, k2=None, s1=rng.randint(0, 9), s2=None, op="T", a=None, b=None, cols=None,
                         st=0, loaded=rng.randint(0, 2)))
    for r in rng.sample(rows, min(2, len(rows))):  # re-delivered events (R2)
        rows.append(dict(r, loaded=rng.randint(0, 2)))
    return Case(name=name, scd=scd, key_columns=["k1"], seq_columns=["s1"], rows=rows,
                tracked=rng.choice([None, ["a"]]) if scd != 1 else None,
                sequence_in_output=rng.random() < 0.3, use_cursor=rng.random() < 0.5)


def snapshot_case(rng: random.Random, name: str, scd: int) -> SnapshotCase:
    snapshots, delivered = {}, {}
    for v in sorted(rng.sample(range(1, 10), rng.randint(3, 5))):
        snapshots[v] = [dict(k=k, c=rng.choice(["x", "y", None]), d=rng.randint(0, 2))
                        for k in rng.sample(range(1, 6), rng.randint(1, 4))]
    for i, v in enumerate(snapshots):
        delivered[v] = min(2, i * 3 // len(snapshots))  # in version order over the three runs
    return SnapshotCase(name=name, scd=scd, snapshots=snapshots, delivered=delivered)


def make_case(rng: random.Random, scenario: str, name: str):
    if scenario.startswith("snapshot"):
        return snapshot_case(rng, name, int(scenario[-1]))
    return feed_case(rng, name, {"scd1": 1, "scd2": 2, "bitemporal": "bitemporal"}[scenario])


def install(project, case) -> None:
    """The case's model, with a change data feed."""
    case.install(project)
    cfg = dict(case.config(), change_data_feed=True)
    if isinstance(case, SnapshotCase):
        project.model(case.name, f"select * from {project.relation(case.feed)}", **cfg)
    else:
        project.feed_model(case.name, case.feed, **cfg)


# -- the state a fault must not change ---------------------------------------------------------
# columns that differ between two runs of the same events: when and by which dbt invocation they ran
VOLATILE = {"run_started_at", "invocation_id", "_commit_timestamp"}


def state(project, case, comparable: bool = False) -> tuple:
    """The target and its side tables; `comparable`: without VOLATILE columns, to compare two projects."""
    def rows(rel):
        if not project.exists(rel):
            return None
        data = project.rows(rel)
        cols = sorted(c for c in data[0] if not (comparable and c in VOLATILE)) if data else []
        return sorted((tuple(str(r[c]) for c in cols) for r in data))

    return tuple(rows(case.name + suffix) for suffix in ["", "__auto_cdc_log", "__auto_cdc_runs", "__auto_cdc_changes"])


def check_change_feed(project, case) -> list[str]:
    """One commit version per run that changed the target, consecutive from 1 across full refreshes (which keep the
    change feed), and replaying the feed gives the target."""
    problems = []
    columns = case.target_columns
    runs = project.rows(case.name + "__auto_cdc_runs")
    changes = project.rows(case.name + "__auto_cdc_changes") if project.exists(case.name + "__auto_cdc_changes") else []
    versions = sorted({r["_commit_version"] for r in changes})
    committed = sorted(r["commit_version"] for r in runs if r["commit_version"] is not None)
    # a full refresh keeps the change feed (its earlier versions are in no run log row now) and records its own
    # version, which holds no row where the rebuild changed none
    empty_rebuild = [r["commit_version"] for r in runs if r["run_id"] == 1 and r["commit_version"] not in versions]
    since = min(committed, default=1)
    if ([v for v in versions if v >= since] != [v for v in committed if v not in empty_rebuild]
            or sorted(versions + empty_rebuild) != list(range(1, len(versions + empty_rebuild) + 1))):
        problems.append(f"commit versions {versions} vs run log {committed}")
    table: Counter = Counter()
    for v in versions:
        for r in changes:
            if r["_commit_version"] == v and r["_change_type"] in ("delete", "update_preimage"):
                table[tuple(r[c] for c in columns)] -= 1
        for r in changes:
            if r["_commit_version"] == v and r["_change_type"] in ("insert", "update_postimage"):
                table[tuple(r[c] for c in columns)] += 1
    replayed = sorted_rows([dict(zip(columns, row)) for row, n in table.items() for _ in range(n)], columns)
    if any(n < 0 for n in table.values()) or replayed != case.actual(project):
        problems.append("replaying the change feed does not give the target")
    return problems


# -- one faulted dbt run -----------------------------------------------------------------------
def faulted_run(project, full_refresh: bool, k: int | None, rng: random.Random, pg_server, restart: bool) -> str:
    """Start dbt; stall it after statement k (or, k None, at a random moment) and kill it, or restart the
    Postgres server under it. Returns 'killed', 'restarted' or 'completed' (dbt finished before the fault)."""
    log = project.path / "logs" / "dbt.log"
    offset = log.stat().st_size if log.exists() else 0
    args = [DBT, "run", "--project-dir", str(project.path), "--profiles-dir", str(project.path)]
    args += ["--full-refresh"] if full_refresh else []
    env = {**os.environ, "DO_NOT_TRACK": "1", **project.pg_env, faults.ENV: str(k if k is not None else 10 ** 9)}
    proc = subprocess.Popen(args, cwd=project.path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    if k is None:
        # a random moment after the model started: dbt's own statements and the commit included
        deadline = time.time() + 120
        while time.time() < deadline and proc.poll() is None and not (log.exists() and "auto_cdc statement 1\n" in _tail(log, offset)):
            time.sleep(0.02)
        time.sleep(rng.uniform(0, 1.5))
    else:
        deadline = time.time() + 180
        while proc.poll() is None and MARKER not in _tail(log, offset):
            if time.time() > deadline:
                proc.kill()
                pytest.fail(f"the run never reached statement {k}")
            time.sleep(0.05)
    if proc.poll() is not None:
        return "completed"
    if restart:
        pg_server.restart()
        if project._pg is not None:  # the harness's connection died with the server (not project.close(): it drops the schema)
            project._pg.close()
            project._pg = None
        proc.wait(timeout=120)
        return "restarted"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    faults.end_stalled_sessions(project)
    return "killed"


def _tail(log: Path, offset: int) -> str:
    with open(log, errors="replace") as fh:
        fh.seek(offset)
        return fh.read()


def statements_of_last_run(project, offset: int) -> int:
    text = _tail(project.path / "logs" / "dbt.log", offset)
    numbers = [int(line.rsplit(" ", 1)[1]) for line in text.splitlines() if "auto_cdc statement " in line
               and line.rsplit(" ", 1)[1].isdigit()]
    return max(numbers, default=0)


# -- the suite -----------------------------------------------------------------------------------
def unfaulted_state(make_project, case, fault_first: bool) -> tuple:
    """What the faulted run leaves when nothing stops it: the same case, deliveries and runs, unfaulted,
    in a project of its own."""
    twin = make_project("unfaulted")
    install(twin, case)
    case.deliver(twin, 0)
    if not fault_first:
        twin.run(full_refresh=True)
        case.deliver(twin, 1)
    twin.run(full_refresh=fault_first)
    result = state(twin, case, comparable=True)
    twin.clean()
    return result


def test_faults_mid_run_leave_the_target_equal_to_the_reference_model(project, make_project, request):
    pg_server = request.getfixturevalue("pg_server") if project.engine == "postgres" else None
    can_restart = pg_server is not None and pg_server.managed
    rng = random.Random(int(os.environ.get("AUTO_CDC_FAULT_SEED", "10")))
    statements = {}  # (scenario, first run?) -> statements counted in the last clean run of that kind
    counts = Counter()
    failures = []
    faults.install(project)
    for trial in range(TRIALS):
        scenario = SCENARIOS[trial % len(SCENARIOS)]
        case = make_case(rng, scenario, f"t{trial}")
        for old in (project.path / "models").glob("*.sql"):
            old.unlink()
        install(project, case)
        fault_first = trial % 4 == 3
        restart = can_restart and not fault_first and trial % 3 == 1
        kind = (scenario, fault_first)
        counts["trials"] += 1
        log = project.path / "logs" / "dbt.log"

        def clean_run(first: bool):
            offset = log.stat().st_size if log.exists() else 0
            project.dbt("run", *(["--full-refresh"] if first else []), env={faults.ENV: str(10 ** 9)})
            statements[(scenario, first)] = statements_of_last_run(project, offset)

        case.deliver(project, 0)
        if not fault_first:
            clean_run(True)
            case.deliver(project, 1)
        before = state(project, case)
        n = statements.get(kind, 30)
        k = None if trial % 5 == 4 else rng.randint(1, n)
        outcome = faulted_run(project, fault_first, k, rng, pg_server, restart)
        counts[outcome] += 1
        label = f"trial {trial} ({scenario}, {'first' if fault_first else 'incremental'} run, " \
                f"{'statement ' + str(k) if k else 'random moment'}, {outcome}): {case}"
        after = state(project, case)
        if outcome != "completed" and after != before:
            if k is not None:
                failures.append(f"{label}\n  the faulted run changed the state")
            elif state(project, case, comparable=True) != unfaulted_state(make_project, case, fault_first):
                failures.append(f"{label}\n  the killed run left a state that is neither the one before it nor "
                                "the one the whole run leaves")
            else:
                counts["committed_before_kill"] += 1
        if fault_first:
            clean_run(True)
            case.deliver(project, 1)
            clean_run(False)
        case.deliver(project, 2)
        clean_run(False)
        if case.actual(project) != case.expected():
            failures.append(f"{label}\n  target {case.actual(project)}\n  expected {case.expected()}")
        failures += [f"{label}\n  {p}" for p in check_change_feed(project, case)]
        if isinstance(case, Case) and case.use_cursor:
            # a run that has read no row yet records no cursor (NULL)
            cursors = [r["cursor_value"] for r in project.rows(case.name + "__auto_cdc_runs")
                       if r["cursor_value"] is not None]
            if str(max(cursors, key=lambda c: int(c))) != str(max(r["loaded"] for r in case.rows)):
                failures.append(f"{label}\n  cursor {cursors}")
    counts["mismatches"] = len(failures)
    counts["faults"] = counts["killed"] + counts["restarted"]
    report = {"engine": project.engine, **counts}
    print(f"\nfault injection on {project.engine}: {report}; statements per run: {statements}")
    if os.environ.get("AUTO_CDC_FAULT_REPORT"):
        with open(os.environ["AUTO_CDC_FAULT_REPORT"], "a") as fh:
            fh.write(json.dumps(report) + "\n")
    assert not failures, "\n\n".join(failures)
    assert counts["faults"] > 0


def test_the_package_itself_never_stalls_on_the_fault_var(project):
    """The hook is test-only: without the test project's override the fault point (the environment
    variable, or a var of that name) does nothing."""
    project.table("feed", [("k", "integer"), ("s", "integer")], [(1, 1)])
    project.feed_model("m", "feed", materialized="auto_cdc", keys=["k"], sequence_by="s")
    result = project.dbt("run", "--vars", json.dumps({"auto_cdc_fault_after_statement": 1}), env={faults.ENV: "1"})
    assert MARKER not in result.output
    assert "auto_cdc statement" not in (project.path / "logs" / "dbt.log").read_text()
    assert project.rows("m") == [{"k": 1, "s": 1}]
