"""How much of a Delta target's history a run reads to tell whether anyone but the model's runs changed its
rows (macros/dialect/apply.sql, spark__unedited_target_version): the newest 5 commits, and the newest 100 only
where the last run's version is older than those (each commit's row carries its parameters, a MERGE's
condition among them); and which MERGEs are the run's own (merge_changes_sql names the run's id in its
clauses). What it concludes from them is tested on Delta (test_spark.py, check_unedited)."""
import json
from types import SimpleNamespace

import pytest

from auto_cdc_testkit.macros import render_macro


def merge_parameters(action):
    """A MERGE's parameters as DESCRIBE HISTORY returns them (a map, read back as JSON text), with the
    source's action column compared with `action` (merge_changes_sql: the run's id, or its negative)."""
    clause = lambda value, kind: {"predicate": f"(__auto_cdc_upsert#171 = {value})", "actionType": kind}
    return json.dumps({"predicate": json.dumps(["(k#172L = k#174L)"]),
                       "matchedPredicates": json.dumps([clause(action, "update"), clause(-action, "delete")]),
                       "notMatchedPredicates": json.dumps([clause(action, "insert")])})


def unedited(since, versions, writes=1, run=None, parameters=None):
    """The version it returns and the statements it sent, for a history of `versions` (newest first):
    MERGEs (with `parameters`: version -> operationParameters, else none), but an OPTIMIZE at every
    version divisible by 7. `run`: the id of the run asking, if any."""
    sent = []
    parameters = parameters or {}

    def query(sql):
        sent.append(sql)
        limit = int(sql.rsplit(" ", 1)[1])
        return SimpleNamespace(rows=[{"version": v, "operation": "OPTIMIZE" if v % 7 == 0 else "MERGE",
                                      "operationParameters": parameters.get(v)} for v in versions[:limit]])

    macros = SimpleNamespace(_spark_format=lambda relation=None: "delta", _query=query,
                             _names=lambda: SimpleNamespace(merge_action="__auto_cdc_upsert"))
    args = {"rel": {"target": "db.t"}, **({"plan": {"run_id": run}} if run is not None else {})}
    got = render_macro("dialect/apply.sql", "{% macro spark__unedited_target_version", "{#- The log as an incremental run",
                       "spark__unedited_target_version(args, since, writes)", globals={"auto_cdc": macros},
                       args=args, since=since, writes=writes)
    return got, [sql.rsplit(" ", 1)[1] for sql in sent]


@pytest.mark.parametrize("since, versions, version", [
    (9, [10, 9, 8, 7, 6, 5], 10), (9, [10, 9], 10),
    (6, [10, 9, 8, 7, 6, 5], None),  # 6 is the fifth: 10 is the run's MERGE, 9 and 8 someone else's
])
def test_the_newest_five_commits_when_the_last_run_is_among_them(since, versions, version):
    assert unedited(since, versions) == (version, ["5"])


def test_a_hundred_when_the_last_run_is_older():
    versions = list(range(30, -1, -1))
    # after 20: 21 and 28 (OPTIMIZE) change no row, the other eight MERGEs do
    assert unedited(20, versions) == (None, ["5", "100"])
    # after 24: 28 (OPTIMIZE) changes no row, and 25-27, 29, 30 are the 5 writes the caller expects
    assert unedited(24, versions, writes=5) == (30, ["5", "100"])


def test_the_merges_that_name_the_runs_id_are_its_own():
    # 10 is this run's MERGE (id 17), 9 a MERGE of a run that failed before it recorded itself (same id)
    assert unedited(8, [10, 9, 8], writes=0, run=17, parameters={10: merge_parameters(17), 9: merge_parameters(17)}) == (10, ["5"])
    # the same without a run to name: two writes
    assert unedited(8, [10, 9, 8], writes=2, parameters={10: merge_parameters(17), 9: merge_parameters(17)}) == (10, ["5"])
    assert unedited(8, [10, 9, 8], writes=0, parameters={10: merge_parameters(17), 9: merge_parameters(17)}) == (None, ["5"])


@pytest.mark.parametrize("parameters", [
    {9: merge_parameters(16)},   # an earlier run's id: not after `since`, so someone else's copy
    {9: merge_parameters(170)},  # an id that starts with the run's
    {9: None},                   # a MERGE by hand
    {9: json.dumps({"predicate": json.dumps(["(k#1L = k#2L)"]),
                    "matchedPredicates": json.dumps([{"predicate": "(u#3 = -17)", "actionType": "delete"}])})},
    # a MERGE by hand whose condition holds the action column and the negated id, but not as the whole of it
    {9: json.dumps({"predicate": json.dumps(["(k#1L = k#2L)"]),
                    "matchedPredicates": json.dumps([{"predicate": "((__auto_cdc_upsert#3 = 2) AND (k#4 = -17))",
                                                      "actionType": "delete"}, {"actionType": "update"}])})},
])
def test_a_merge_that_does_not_name_the_runs_id_in_its_action_column_is_someone_elses(parameters):
    assert unedited(8, [10, 9, 8], writes=0, run=17, parameters={10: merge_parameters(17), **parameters}) == (None, ["5"])
