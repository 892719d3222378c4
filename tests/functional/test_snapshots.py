"""auto_cdc_snapshot (docs/semantics.md "Snapshots", examples E2 and E3) on every engine."""
import re
import shutil

import pytest
from hypothesis import strategies as st

from auto_cdc_testkit import fixtures as fx
from auto_cdc_testkit.cases import SnapshotCase, check_batch, generate, in_batches
from auto_cdc_testkit.harness import REPO, ordered, target_rows
from auto_cdc_testkit.statements import statements, strip_comment

SNAP = fx.SNAPSHOT_COLUMNS
E2_V0, E2_V1, E2_SCD2, E2_SCD1 = fx.E2_V0, fx.E2_V1, fx.E2_SCD2, fx.E2_SCD1
CFG = dict(materialized="auto_cdc_snapshot", keys=["userId"], snapshot_version="version")


def test_e2_snapshot_table_replaced_between_two_runs(project):
    project.table("snap", SNAP, [(*r, 0) for r in E2_V0])
    project.feed_model("scd1", "snap", **CFG)
    project.feed_model("scd2", "snap", **CFG, stored_as_scd_type=2)
    project.run()
    assert target_rows(project, "scd2", ["userId", "city", "__START_AT", "__END_AT"]) == ordered(
        [(*r, 0, None) for r in E2_V0])
    project.table("snap", SNAP, [(*r, 1) for r in E2_V1])
    project.run()
    assert target_rows(project, "scd1", ["userId", "city"]) == ordered(E2_SCD1)
    assert target_rows(project, "scd2", ["userId", "city", "__START_AT", "__END_AT"]) == ordered(E2_SCD2)
    # re-running with no new version changes nothing (version 1 is the last applied: skipped)
    before = project.rows("scd2"), project.rows("scd2__auto_cdc_log")
    result = project.run()
    assert (project.rows("scd2"), project.rows("scd2__auto_cdc_log")) == before
    assert "skipped out-of-order snapshot version(s) 1" in result.output


def test_without_snapshot_version_each_run_is_a_version_at_its_start_time(project):
    project.table("snap", SNAP[:2], E2_V0)
    project.feed_model("scd2", "snap", materialized="auto_cdc_snapshot", keys=["userId"], stored_as_scd_type=2)
    project.run()
    project.table("snap", SNAP[:2], E2_V1)
    project.run()
    project.run()  # an unchanged snapshot writes nothing
    rows = project.rows("scd2")
    assert len(project.rows("scd2__auto_cdc_log")) == 3 + 5  # 3 inserts; 2 changes, 2 inserts, 1 delete
    starts = sorted({r["__START_AT"] for r in rows})
    assert len(starts) == 2 and starts[0] < starts[1]
    first, second = starts
    by_version = sorted((r["userId"], r["city"], r["__START_AT"] == second, r["__END_AT"] == second) for r in rows)
    assert by_version == [(1, "Oaxaca", False, True), (2, "Carmel", True, False), (2, "Monterrey", False, True),
                          (3, "Los Angeles", True, False), (3, "Tijuana", False, True),
                          (4, "Death Valley", True, False), (6, "Kings Canyon", True, False)]
    # an empty snapshot (no snapshot_version) deletes every key, unless max_delete_fraction stops it
    project.table("snap", SNAP[:2], [])
    project.feed_model("scd2", "snap", materialized="auto_cdc_snapshot", keys=["userId"], stored_as_scd_type=2,
                       max_delete_fraction=0.9)
    result = project.run(check=False)
    assert not result.ok and "would delete 4 of 4 keys" in result.output
    project.feed_model("scd2", "snap", materialized="auto_cdc_snapshot", keys=["userId"], stored_as_scd_type=2)
    project.run()
    assert [r for r in project.rows("scd2") if r["__END_AT"] is None] == []


def test_e3_snapshot_files_several_versions_then_a_new_file_then_an_old_one(project, tmp_path):
    if project.engine != "duckdb":
        pytest.skip("E3 reads CSV files through DuckDB's read_csv")
    files = tmp_path / "snapshots"
    files.mkdir()
    for name in ["snapshot_1.csv", "snapshot_2.csv"]:
        shutil.copy(REPO / "integration_tests" / "fixtures" / "e3" / name, files / name)
    sql = (f"select \"userId\", city, cast(regexp_extract(filename, 'snapshot_([0-9]+)[.]csv', 1) as integer) as version "
           f"from read_csv('{files}/snapshot_*.csv', filename = true, header = true, "
           "columns = {'userId': 'integer', 'city': 'varchar'})")
    project.model("all_files", sql, **CFG, stored_as_scd_type=2)
    project.model("new_files", "select * from (" + sql + ") f where {{ auto_cdc.last_snapshot_version() }} is null "
                  "or version > {{ auto_cdc.last_snapshot_version() }}", **CFG, stored_as_scd_type=2)
    cols = ["userId", "city", "__START_AT", "__END_AT"]
    after_2 = ordered([(1, "Oaxaca", 1, 2), (2, "Monterrey", 1, 2), (2, "Carmel", 2, None), (3, "Tijuana", 1, 2),
                       (3, "Los Angeles", 2, None), (4, "Death Valley", 2, None)])
    project.run()
    assert target_rows(project, "all_files", cols) == after_2 == target_rows(project, "new_files", cols)
    (files / "snapshot_4.csv").write_text("userId,city\n2,Carmel\n4,Death Valley\n5,Sacramento\n")
    project.run()
    after_4 = ordered([(1, "Oaxaca", 1, 2), (2, "Monterrey", 1, 2), (2, "Carmel", 2, None), (3, "Tijuana", 1, 2),
                       (3, "Los Angeles", 2, 4), (4, "Death Valley", 2, None), (5, "Sacramento", 4, None)])
    assert target_rows(project, "all_files", cols) == after_4 == target_rows(project, "new_files", cols)
    (files / "snapshot_3.csv").write_text("userId,city\n1,Oaxaca\n")
    result = project.run()
    assert "'all_files': skipped out-of-order snapshot version(s) 1, 2, 3" in result.output
    assert target_rows(project, "all_files", cols) == after_4 == target_rows(project, "new_files", cols)


def test_bad_snapshots_fail_and_apply_nothing(project):
    project.table("snap", SNAP, [(1, "a", 1), (2, "b", 1)])
    project.feed_model("t", "snap", **CFG, max_delete_fraction=0.5)
    project.run()
    before = project.rows("t"), project.rows("t__auto_cdc_log")
    for rows, message in [([(1, "a", 2), (1, "b", 2), (2, "b", 2)], "duplicate keys within one snapshot, 1 case(s): (userId=1) in version 2"),
                          ([(None, "a", 2), (2, "b", 2)], "NULL in key column 'userId': 1 row(s)"),
                          ([], None),
                          ([(3, "c", 2)], "snapshot version 2 would delete 2 of 2 keys, more than max_delete_fraction = 0.5")]:
        project.table("snap", SNAP, rows)
        result = project.run(check=False)
        if message is None:  # an empty model returns no version at all: nothing to apply
            assert result.ok
        else:
            assert not result.ok and message in result.output, result.output[-3000:]
        assert (project.rows("t"), project.rows("t__auto_cdc_log")) == before


def _snapshot_reads(project, model: str) -> list[str]:
    """The queries (`select`s) of the last run of `model` that read the staged snapshot's rows."""
    sqls = statements(project.path / "logs" / "dbt.log")[f"model.auto_cdc_it.{model}"]
    plain = [strip_comment(q) for q in sqls]
    return [q for q in plain if q.lower().startswith("select") and re.search(r'from\s+"[^\s]*__auto_cdc_snapshot"', q)]


def test_duplicate_keys_are_found_whatever_the_versions_and_key_columns(project):
    """The snapshot's checks take one pass over it when it holds one version and has one key column;
    a duplicate key among several versions, or of several key columns, still fails the run, named."""
    project.table("snap", SNAP, [(1, "a", 1), (2, "b", 1)])
    project.feed_model("t", "snap", **CFG)
    project.feed_model("two_keys", "snap", **{**CFG, "keys": ["userId", "city"]})
    project.run(extra=["--log-format-file", "json"])
    project.table("snap", SNAP, [(1, "a", 2), (2, "c", 2)])
    project.run(extra=["--log-format-file", "json"])
    assert len(_snapshot_reads(project, "t")) == 1  # the checks and the version in one statement
    assert len(_snapshot_reads(project, "two_keys")) == 2  # the key columns grouped to find duplicates
    for rows, model, message in [
            ([(1, "b", 3), (2, "b", 3), (1, "c", 4), (1, "d", 4)], "t", "1 case(s): (userId=1) in version 4"),
            ([(1, "b", 5), (1, "b", 5), (2, "c", 5)], "two_keys", "1 case(s): (userId=1, city=b) in version 5")]:
        before = project.rows(model), project.rows(f"{model}__auto_cdc_log")
        project.table("snap", SNAP, rows)
        result = project.run(model, check=False)
        assert not result.ok and f"'{model}': bad snapshot, nothing was applied" in result.output, result.output[-3000:]
        assert f"duplicate keys within one snapshot, {message}" in result.output, result.output[-3000:]
        assert (project.rows(model), project.rows(f"{model}__auto_cdc_log")) == before


def test_versions_one_per_run_or_all_at_once_give_the_same_target(project):
    snaps = {1: E2_V0, 2: E2_V1, 3: [(2, "Carmel"), (7, "Napa")]}
    project.table("all_at_once", SNAP, [(*r, v) for v, rows in snaps.items() for r in rows])
    project.table("one_per_run", SNAP)
    for scd in (1, 2):
        project.feed_model(f"once_{scd}", "all_at_once", **CFG, stored_as_scd_type=scd)
        project.feed_model(f"runs_{scd}", "one_per_run", **CFG, stored_as_scd_type=scd)
    for v, rows in snaps.items():
        project.insert("one_per_run", ["userId", "city", "version"], [(*r, v) for r in rows])
        project.run()
    for scd in (1, 2):
        cols = ["userId", "city"] + (["__START_AT", "__END_AT"] if scd == 2 else [])
        assert target_rows(project, f"once_{scd}", cols) == target_rows(project, f"runs_{scd}", cols)


@st.composite
def snapshot_cases(draw, index, scd=None, runs=None):
    versions = draw(st.lists(st.integers(0, 9), min_size=1, max_size=4, unique=True))
    snapshots = {}
    for v in versions:
        # a version with no rows cannot exist in a table of versioned rows: snapshots are never empty here
        keys = draw(st.lists(st.integers(1, 5), min_size=1, max_size=4, unique=True))
        snapshots[v] = [dict(k=k, c=draw(st.sampled_from([None, "x", "y"])), d=draw(st.sampled_from([None, 0, 1])))
                        for k in keys]
    runs = draw(st.integers(1, 3)) if runs is None else runs
    delivered = {v: draw(st.integers(0, runs - 1)) for v in versions}
    scd = draw(st.sampled_from([1, 2])) if scd is None else scd
    return SnapshotCase(name=f"snap_{index}", scd=scd, snapshots=snapshots, delivered=delivered,
                        tracked=draw(st.sampled_from([None, ["c"]])) if scd == 2 else None,
                        use_last_version=draw(st.booleans()))


def test_random_snapshot_series_equal_the_reference_model(make_project):
    """Generated snapshot series (auto_cdc_testkit.cases.generate: the session's seed), SCD1 and SCD2 in
    turn, applied together in one project."""
    generated = generate(lambda i: snapshot_cases(i, scd=1 + i % 2), salt=2)
    for n, batch in enumerate(in_batches(generated)):
        check_batch(make_project(f"batch{n}"), batch)


def test_a_snapshot_version_type_that_changes_between_runs_is_a_clear_error(project):
    project.table("snap", SNAP, [(1, "a", 1)])
    project.feed_model("t", "snap", **CFG)
    project.run()
    project.table("snap", [("userId", "integer"), ("city", "varchar"), ("version", "varchar")], [(1, "b", "2")])
    result = project.run(check=False)
    assert not result.ok and "changed type from" in result.output, result.output[-2000:]
    assert project.rows("t") == [{"userId": 1, "city": "a"}]


def _diff_statement(project) -> str:
    """The statement of the last run that built the diff's events."""
    (sql,) = [q for q in statements(project.path / "logs" / "dbt.log")["model.auto_cdc_it.t"]
              if re.search(r'create\s+(or\s+replace\s+)?temporary\s+table\s+\S*__auto_cdc_batch"\s+(on commit drop\s+)?as', q, re.I)]
    return " ".join(sql.lower().split())


def test_one_new_version_is_diffed_by_a_join_several_by_a_window(project):
    """A run with one new version joins it with the current rows (deletes of keys it lacks, a key that
    comes back, a changed row); a run with several keeps the pass ordered by version. Same history."""
    project.feed_model("t", "snap", **CFG, stored_as_scd_type=2)
    delivered = [[(1, "a", 0), (2, "a", 0), (3, "a", 0)],
                 [(1, "b", 1), (2, "a", 1)],                                  # one version: 3 deleted, 1 changed
                 [(1, "b", 2), (2, "a", 2), (3, "c", 2), (2, "d", 3)],        # two: 3 back, then 1 and 3 deleted
                 [(1, "e", 4), (2, "d", 4)]]                                  # one version: 1 back
    paths = []
    for rows in delivered:
        project.table("snap", SNAP, rows)
        project.run(extra=["--log-format-file", "json"])
        paths.append("join" if " full join " in _diff_statement(project) else
                     "window" if " over " in _diff_statement(project) else "?")
    assert paths[1:] == ["join", "window", "join"]
    assert target_rows(project, "t", ["userId", "city", "__START_AT", "__END_AT"]) == ordered([
        (1, "a", 0, 1), (1, "b", 1, 3), (1, "e", 4, None), (2, "a", 0, 3), (2, "d", 3, None),
        (3, "a", 0, 1), (3, "c", 2, 3)])
