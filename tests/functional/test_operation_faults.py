"""Fault trials of the operations (docs/operations.md "Erasing keys", "Bounded state: compaction"): an
erase_keys or a compact that fails at any of its statements, or is killed (kill -9) at a random one,
leaves the model's state exactly as it was; the operation, done, and the runs after it give the reference
model's result.

Per engine, one project holds generated cases (auto_cdc_testkit.cases, from the session's seed): two
change-feed models with a change data feed for erase_keys (SCD1, SCD2) and four for compact (SCD1 and SCD2,
test_compact.compacted_cases). After the deliveries up to the operation, for each model:
  - the operation runs once, counting its statements (AUTO_CDC_FAULT_PLAN's "__count__", then failing after
    its last statement, before its commit);
  - it then fails after each statement k = 1 .. n, and once more after its last one (`its last`), in
    process (the test project's _fault_point raises: auto_cdc_testkit/faults.py): every time the target,
    the event log, the run log and the change feed are as before;
  - AUTO_CDC_OPERATION_FAULT_TRIALS times (default 1 per model, so 2 per operation and engine) a dbt process
    stalls after a random statement inside the operation's transaction and is killed with SIGKILL: the
    state is as before;
  - the operation then runs through. Erased keys leave the source too, the later deliveries are applied,
    and every target equals the reference model (erase: the case without the erased keys' events;
    compact: reference.apply_in_runs with the compaction).
The counts (injected failures and kills per operation) are printed, and appended to AUTO_CDC_FAULT_REPORT
(a JSON file) when it is set.
"""
from __future__ import annotations

import dataclasses
import json
import os
import random
import signal
import time
from collections import Counter

from auto_cdc_testkit import faults
from auto_cdc_testkit.cases import generate
from test_compact import compacted_cases
from test_properties import cases

KILLS = int(os.environ.get("AUTO_CDC_OPERATION_FAULT_TRIALS", "1"))
SIDES = ["", "__auto_cdc_log", "__auto_cdc_runs", "__auto_cdc_changes"]
MARKER = "auto_cdc fault point"


def state(project, model: str) -> dict:
    return {s: sorted(map(repr, project.rows(model + s))) if project.exists(model + s) else None for s in SIDES}


def operation(project, op: str, args: dict, env: dict | None = None, check: bool = False):
    return project.dbt("run-operation", f"auto_cdc.{op}", "--args", json.dumps(args), env=env, check=check)


def killed_at(project, op: str, args: dict, k: int) -> str:
    """Start the operation in a dbt process that stalls after its statement k, kill it (SIGKILL), and end
    the server session it left sleeping on Postgres (as the end of the sleep would). Returns 'killed', or
    'completed' when the operation has fewer statements."""
    log = project.path / "logs" / "dbt.log"
    offset = log.stat().st_size if log.exists() else 0
    proc = project.start("run-operation", f"auto_cdc.{op}", "--args", json.dumps(args), env={faults.ENV: str(k)})
    deadline = time.time() + 180
    while proc.poll() is None:
        with open(log, errors="replace") as fh:
            fh.seek(offset)
            if f"{MARKER}: stalling" in fh.read():
                break
        assert time.time() < deadline, f"{op} never reached statement {k}"
        time.sleep(0.05)
    if proc.poll() is not None:
        return "completed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    faults.end_stalled_sessions(project)
    return "killed"


def fault_trials(project, op: str, model: str, args: dict, rng: random.Random, counts: Counter, failures: list) -> None:
    """Every injected failure and the kills of one operation on one model; then the operation, done."""
    before = state(project, model)
    counted = operation(project, op, args, env={faults.PLAN_ENV: json.dumps({"__count__": True, op: 10 ** 6})})
    assert not counted.ok and "(its last)" in counted.output, counted.output[-3000:]
    n = faults.count_statements(counted.output)[op]
    for k in range(1, n + 2):
        result = operation(project, op, args, env={faults.PLAN_ENV: json.dumps({op: k})})
        counts[f"{op}_failures"] += 1
        if result.ok or MARKER not in result.output:
            failures.append(f"{op} {model}: the failure after statement {k} of {n} did not stop it:\n{result.output[-2000:]}")
        elif state(project, model) != before:
            failures.append(f"{op} {model}: failing after statement {k} of {n} changed the state")
    for _ in range(KILLS):
        k = rng.randint(1, n)
        counts[f"{op}_{killed_at(project, op, args, k)}"] += 1
        if state(project, model) != before:
            failures.append(f"{op} {model}: killed after statement {k} of {n}, it changed the state")
    done = operation(project, op, args)
    assert done.ok, done.output[-3000:]
    counts[f"{op}_statements_max"] = max(counts[f"{op}_statements_max"], n)


def install(project, case, **extra) -> None:
    case.install(project)
    project.feed_model(case.name, case.feed, **{**case.config(), **extra})


def test_failed_and_killed_operations_change_nothing_and_the_runs_after_them_follow_the_reference(project):
    faults.install(project, raising=True)
    rng = random.Random(int(os.environ.get("AUTO_CDC_FAULT_SEED", "10")))
    erased_cases = [dataclasses.replace(c, name=f"e{i}") for i, c in
                    enumerate(generate(lambda i: cases(i, scd=[1, 2][i % 2], partial=None), count=2, salt=41))]
    compacted = [dataclasses.replace(c, name=f"c{i}") for i, c in enumerate(generate(compacted_cases, count=4, salt=43))]
    for case in erased_cases:
        install(project, case, change_data_feed=True)
    for case in compacted:
        install(project, case)
    every = erased_cases + compacted
    at = {c.name: (c.compact_after if c in compacted else max(0, c.runs - 2)) for c in every}
    counts, failures = Counter(), []
    expected = {}
    for run in range(max(c.runs for c in every)):
        for case in every:
            case.deliver(project, run)
        project.run(full_refresh=(run == 0))
        for case in [c for c in every if at[c.name] == run]:
            if case in compacted:
                fault_trials(project, "compact", case.name, {"model": case.name, "older_than": case.horizon}, rng, counts, failures)
                expected[case.name] = (case, case)
                continue
            keys = sorted({r["k1"] for r in case.rows if r["loaded"] <= run and r["k1"] is not None})
            erased = rng.sample(keys, min(len(keys), rng.randint(1, 2)))
            if not erased:
                continue
            where = f"k1 in ({', '.join(map(str, erased))})"
            fault_trials(project, "erase_keys", case.name, {"model": case.name, "where": where}, rng, counts, failures)
            # the keys leave the source too; the reference never saw them
            project.execute(f"delete from {project.relation(case.feed)} where {where}")
            kept = dataclasses.replace(case, rows=[r for r in case.rows if r["k1"] not in erased])
            expected[case.name] = (case, kept)
            every[every.index(case)] = kept
    for case, reference in expected.values():
        if case.actual(project) != reference.expected():
            failures.append(f"{case}\n  target   {case.actual(project)}\n  expected {reference.expected()}")
    report = {"engine": project.engine, **counts, "mismatches": len(failures)}
    print(f"\noperation fault trials on {project.engine}: {report}")
    if os.environ.get("AUTO_CDC_FAULT_REPORT"):
        with open(os.environ["AUTO_CDC_FAULT_REPORT"], "a") as fh:
            fh.write(json.dumps(report) + "\n")
    assert not failures, "\n\n".join(failures)
    for op in ("erase_keys", "compact"):
        assert counts[f"{op}_failures"] + counts[f"{op}_killed"] >= 20, counts
