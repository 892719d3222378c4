"""dbt's own model configs keep their meaning on auto_cdc models (docs/configuration.md)."""
import os
import signal
import subprocess
import time

import pytest

from auto_cdc_testkit.harness import DBT, target_rows

FEED = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("a", "varchar"), ("loaded", "integer")]
COLS = [c for c, _ in FEED]
BASE = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
            except_column_list=["op", "seq", "loaded"])


def test_full_refresh_rebuilds_from_the_whole_feed_unless_disabled(project):
    project.table("feed", FEED, [(1, 1, "U", "a", 1), (2, 1, "U", "b", 1)])
    project.feed_model("t", "feed", **BASE, cursor_column="loaded")
    project.feed_model("kept", "feed", **BASE, full_refresh=False)
    project.run()
    # the feed is rewritten upstream: key 2 never existed, key 1 changed at an already-applied sequence
    project.table("feed", FEED, [(1, 1, "U", "rewritten", 1), (3, 1, "U", "c", 1)])
    project.run("t", full_refresh=True)
    assert target_rows(project, "t", ["id", "a"]) == [(1, "rewritten"), (3, "c")]
    assert [r["run_id"] for r in project.rows("t__auto_cdc_runs")] == [1]
    # full_refresh: false keeps the target and its history: the rewritten event conflicts with it
    result = project.run("kept", full_refresh=True, check=False)
    assert not result.ok and "conflicting events" in result.output
    assert target_rows(project, "kept", ["id", "a"]) == [(1, "a"), (2, "b")]


def test_is_incremental_is_true_on_later_runs(project):
    project.table("feed", FEED, [(1, 1, "U", "a", 1)])
    project.model("t", "select id, seq, op, a, loaded, "
                  "{% if is_incremental() %}'incremental'{% else %}'first'{% endif %} as mode "
                  f"from {project.relation('feed')}"
                  "{% if is_incremental() %} where loaded > 1{% endif %}", **BASE)
    project.run()
    assert target_rows(project, "t", ["id", "a", "mode"]) == [(1, "a", "first")]
    project.insert("feed", COLS, [(2, 1, "U", "b", 2)])
    project.run()
    assert target_rows(project, "t", ["id", "a", "mode"]) == [(1, "a", "first"), (2, "b", "incremental")]
    project.run(full_refresh=True)
    assert target_rows(project, "t", ["id", "a", "mode"]) == [(1, "a", "first"), (2, "b", "first")]


def test_hooks_and_persist_docs(project):
    project.table("feed", FEED, [(1, 1, "U", "a", 1)])
    project.execute(f"create table {project.relation('audit')} (what varchar)")
    audit = project.relation("audit")
    project.feed_model("t", "feed", **BASE, pre_hook=f"insert into {audit} values ('pre')",
                       post_hook=f"insert into {audit} select 'post ' || count(*) from {{{{ this }}}}",
                       persist_docs={"relation": True})
    (project.path / "models" / "t.yml").write_text(
        "version: 2\nmodels:\n  - name: t\n    description: 'users, latest state'\n")
    project.run()
    assert sorted(r[0] for r in project.fetch(f"select what from {audit}")) == ["post 1", "pre"]
    if project.engine == "duckdb":
        comment = project.fetch("select comment from duckdb_tables() where table_name = 't'")[0][0]
    else:
        comment = project.fetch(f"select obj_description('{project.relation('t')}'::regclass)")[0][0]
    assert comment == "users, latest state"


def test_grants_reach_the_target_and_log_grants_its_bookkeeping(project):
    if project.engine != "postgres":
        pytest.skip("DuckDB has no roles or grants")
    project.execute("do $$ begin create role auto_cdc_reader; exception when duplicate_object then null; end $$")
    project.execute("do $$ begin create role auto_cdc_other; exception when duplicate_object then null; end $$")
    project.table("feed", FEED, [(1, 1, "U", "a", 1)])
    project.feed_model("t", "feed", **BASE, grants={"select": ["auto_cdc_reader"]}, log_grants={"select": ["auto_cdc_reader"]})
    project.run()
    for rel in ["t", "t__auto_cdc_log", "t__auto_cdc_runs"]:
        name = project.relation(rel)
        assert project.fetch(f"select has_table_privilege('auto_cdc_reader', '{name}', 'select')")[0][0], rel
        assert not project.fetch(f"select has_table_privilege('auto_cdc_other', '{name}', 'select')")[0][0], rel


@pytest.mark.parametrize("scd", [1, 2])
def test_new_source_column_is_appended_without_reversioning_keys(project, scd):
    project.table("feed", FEED, [(1, 1, "U", "a", 1), (2, 1, "U", "b", 1)])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=scd)
    project.run()
    project.execute(f"alter table {project.relation('feed')} add column email varchar")
    project.insert("feed", COLS + ["email"], [(1, 2, "U", "a", 2, "a@x")])
    project.run()
    cols = ["id", "a", "email"] + (["__START_AT", "__END_AT"] if scd == 2 else [])
    expected = {1: [(1, "a", "a@x"), (2, "b", None)],
                2: [(1, "a", None, 1, 2), (1, "a", "a@x", 2, None), (2, "b", None, 1, None)]}[scd]
    assert target_rows(project, "t", cols) == expected
    # the new column is appended at the end, after the history columns (README "Target shapes")
    assert list(project.rows("t")[0]) == (["id", "a", "__START_AT", "__END_AT", "email"] if scd == 2 else cols)


def test_on_schema_change_fail_ignore_and_sync(project):
    project.table("feed", FEED + [("extra", "varchar")], [(1, 1, "U", "a", 1, "e")])
    for mode in ["fail", "ignore", "sync_all_columns"]:
        project.feed_model(mode, "feed", **BASE, on_schema_change=mode)
    project.run()
    project.execute(f"alter table {project.relation('feed')} drop column extra")
    project.execute(f"alter table {project.relation('feed')} add column email varchar")
    project.insert("feed", COLS + ["email"], [(2, 1, "U", "b", 2, "b@x")])
    result = project.run(check=False)
    assert "on_schema_change is 'fail'" in result.output and "new: email; missing: extra" in result.output
    assert target_rows(project, "fail", ["id", "a", "extra"]) == [(1, "a", "e")]
    assert target_rows(project, "ignore", ["id", "a", "extra"]) == [(1, "a", "e"), (2, "b", None)]
    assert "email" not in project.rows("ignore")[0]
    assert target_rows(project, "sync_all_columns", ["id", "a", "email"]) == [(1, "a", None), (2, "b", "b@x")]
    assert "extra" not in project.rows("sync_all_columns")[0]


@pytest.mark.dbt_subprocess  # the run is killed: a real process
def test_run_killed_mid_apply_leaves_everything_as_it_was(project):
    """R8: the apply runs in one transaction; a post-hook inside it stalls the run so that the
    process can be killed after every apply statement ran but before the commit."""
    stall = ("select pg_sleep(30)" if project.engine == "postgres"
             else "select count(*) from range(100000000000) t(i) where i % 7 = 3")
    project.table("feed", FEED, [(1, 1, "U", "a", 1), (2, 1, "U", "b", 1)])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2)
    project.run()
    before = (target_rows(project, "t", ["id", "a", "__START_AT", "__END_AT"]),
              len(project.rows("t__auto_cdc_log")), len(project.rows("t__auto_cdc_runs")))
    project.insert("feed", COLS, [(1, 2, "U", "a2", 2), (3, 1, "U", "c", 2), (2, 3, "D", None, 2)])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2,
                       post_hook={"sql": stall, "transaction": True})
    env = {**os.environ, "DO_NOT_TRACK": "1", **project.pg_env}
    proc = subprocess.Popen([DBT, "run", "--project-dir", str(project.path), "--profiles-dir", str(project.path)],
                            cwd=project.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    log = project.path / "logs" / "dbt.log"
    deadline = time.time() + 120
    while time.time() < deadline:
        if log.exists() and stall.split(" from")[0] in log.read_text() and "__auto_cdc_runs\" (run_id" in log.read_text():
            break
        time.sleep(0.2)
    else:
        pytest.fail("the run never reached its post-hook")
    time.sleep(0.5)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    if project.engine == "postgres":
        time.sleep(1)  # the server notices the dead connection and rolls its transaction back
    after = (target_rows(project, "t", ["id", "a", "__START_AT", "__END_AT"]),
             len(project.rows("t__auto_cdc_log")), len(project.rows("t__auto_cdc_runs")))
    assert after == before
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2)
    project.run()
    assert target_rows(project, "t", ["id", "a", "__START_AT", "__END_AT"]) == [
        (1, "a", 1, 2), (1, "a2", 2, None), (2, "b", 1, 3), (3, "c", 1, None)]


def test_a_sequence_type_that_changes_between_runs_is_a_clear_error(project):
    project.table("feed", FEED, [(1, 1, "U", "a", 1)])
    project.feed_model("t", "feed", **BASE)
    project.run()
    before = target_rows(project, "t", ["id", "a"])
    project.table("feed", [("id", "integer"), ("seq", "varchar"), ("op", "varchar"), ("a", "varchar"),
                           ("loaded", "integer")], [(1, "10", "U", "b", 2)])
    result = project.run(check=False)
    assert not result.ok and "the sequence column 'seq' changed type from" in result.output, result.output[-2000:]
    assert "events it no longer holds are lost" in " ".join(result.output.split())  # what --full-refresh costs
    assert target_rows(project, "t", ["id", "a"]) == before
