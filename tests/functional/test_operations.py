"""The operations on a model's state are writers like a run (docs/operations.md "Erasing keys", "Bounded
state: compaction", "Locking and timeouts"): erase_keys takes one condition over the model's columns and
erases the keys it selects whole, from the target, the log and the change feed, which records the erasure
for its consumers; erase_keys and compact run in one transaction under the model's lock, with its
lock_timeout and statement_timeout, so a failed or killed one changes nothing. The fault trials of both
are in test_operation_faults.py."""
import json
import os
import signal
import time

import pytest

from auto_cdc_testkit import faults
from auto_cdc_testkit import fixtures as fx
from auto_cdc_testkit.harness import target_rows, wait_for
from test_compact import EVENTS as COMPACT_EVENTS, FEED as COMPACT_FEED, BASE as COMPACT_BASE, reference_events
from test_trust import HOLD, postgres_only

FEED = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("name", "varchar"), ("email", "varchar")]
COLS = [c for c, _ in FEED]
BASE = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
            except_column_list=["op"], stored_as_scd_type=2, track_history_column_list=["email"], change_data_feed=True)
# key 1: two emails; key 2: one email, then a name change (absorbed); key 3: two emails; key 4: deleted
EVENTS = [(1, 1, "U", "ann", "ann@old"), (1, 3, "U", "ann", "ann@new"),
          (2, 1, "U", "bob", "bob@x"), (2, 2, "U", "bobby", "bob@x"),
          (3, 1, "U", "cy", "cy@old"), (3, 2, "U", "cy", "cy@new"),
          (4, 1, "U", "di", "di@x"), (4, 2, "D", None, None)]
TARGET = ["id", "seq", "name", "email", "__START_AT", "__END_AT"]
SIDES = ["", "__auto_cdc_log", "__auto_cdc_runs", "__auto_cdc_changes"]


def erase(project, model, check=True, **args):
    return project.dbt("run-operation", "auto_cdc.erase_keys", "--args", json.dumps({"model": model, **args}), check=check)


def state(project, model="t"):
    """The target and everything beside it, as sorted rows (None for a relation that does not exist)."""
    return {suffix: sorted(map(repr, project.rows(model + suffix))) if project.exists(model + suffix) else None
            for suffix in SIDES}


def key_rows(project, key, model="t"):
    """Rows of `key` in the target, the log and the change feed."""
    return tuple(len([r for r in project.rows(model + s) if r["id"] == key]) for s in ["", "__auto_cdc_log", "__auto_cdc_changes"])


def built(project, **config):
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **{**BASE, **config})
    project.run()


# -- the condition -------------------------------------------------------------------------------

# the reproductions, and two of tests/unit/test_erase_condition.py's cases, through dbt
REFUSED = {
    "1=1; drop table victim": "`;`: give one condition, not statements",
    "1=0; drop table if exists victim": "`;`: give one condition, not statements",
    "id in (select id from victim)": "a subquery (`select`)",
    "pg_sleep(5) is null or id = 1": "`pg_sleep(`: a condition calls only",
}


def test_erase_refuses_anything_but_one_condition_over_the_models_columns(project):
    built(project)
    project.table("victim", [("id", "integer")], [(1,)])
    before = state(project)
    for where, problem in REFUSED.items():
        result = erase(project, "t", check=False, where=where)
        out = " ".join(result.output.split())
        assert not result.ok and "auto_cdc.erase_keys model 't': cannot erase; nothing was changed" in out, (where, out[-2000:])
        assert problem in out, (where, out[-2000:])
    result = erase(project, "t", check=False, where="", vacuum="yes")
    out = " ".join(result.output.split())
    assert "give `where`, a condition over the model's columns: id, seq, name, email" in out and "vacuum: true or false" in out
    if project.engine == "duckdb":
        result = erase(project, "t", check=False, where="id = 1", vacuum=True)
        assert not result.ok and "vacuum: only Postgres rewrites" in result.output
    assert state(project) == before and project.rows("victim") == [{"id": 1}]


def test_a_condition_on_any_column_erases_its_keys_whole(project):
    """Reproductions: a condition on an earlier value (the email a key no longer has) and one naming a column
    the log does not hold (__END_AT) erase every event and change-feed row of the keys they select."""
    built(project)
    assert key_rows(project, 1) == (2, 2, 2) and key_rows(project, 3) == (2, 2, 2)
    out = erase(project, "t", where="email = 'ann@old'").output
    assert "1 key(s) erased from t: 2 row(s), t__auto_cdc_log: 2 row(s), t__auto_cdc_changes: 2 row(s)" in out, out
    out = erase(project, "t", where='id = 3 and "__END_AT" is null').output
    assert "1 key(s) erased from t: 2 row(s)" in out, out
    # a deleted key (only a closed version in the target) and one that was never there
    erase(project, "t", where="name = 'di' or id = 99")
    for key in (1, 3, 4):
        assert key_rows(project, key)[:2] == (0, 0)
        erasure = [(r["_change_type"], r["name"], r["email"], r["__END_AT"]) for r in project.rows("t__auto_cdc_changes") if r["id"] == key]
        assert erasure and set(erasure) == {("delete", None, None, None)}, erasure
    assert key_rows(project, 2) == (1, 2, 1)
    # each erase is a commit of the change feed, recorded in the run log
    runs = sorted(project.rows("t__auto_cdc_runs"), key=lambda r: r["run_id"])
    assert [(r["operation"], r["commit_version"], r["num_deleted_rows"]) for r in runs] == [
        (None, 1, 0), ("erase_keys", 2, 2), ("erase_keys", 3, 2), ("erase_keys", 4, 1)]
    # erased from the source too, the keys stay gone; key 2 goes on
    project.execute(f"delete from {project.relation('feed')} where id <> 2")
    project.insert("feed", COLS, [(2, 5, "U", "bob", "bob@y")])
    project.run()
    assert target_rows(project, "t", TARGET) == [(2, 2, "bobby", "bob@x", 1, 5), (2, 5, "bob", "bob@y", 5, None)]


def test_consumers_of_the_change_feed_follow_an_erasure(project):
    project.table("feed", fx.CDF_COLUMNS, fx.CDF_BATCHES[0] + fx.CDF_BATCHES[1])
    project.feed_model("scd1", "feed", **fx.CDF_CONFIG)
    project.feed_model("scd2", "feed", **fx.CDF_CONFIG, stored_as_scd_type=2)
    project.model("scd1_copy", fx.CDF_DOWNSTREAM_SQL.format(cols="id, a", up="scd1"), keys=["id"], **fx.CDF_DOWNSTREAM_CONFIG)
    project.model("scd2_copy", fx.CDF_DOWNSTREAM_SQL.format(cols='id, a, "__START_AT" as start_at, "__END_AT" as end_at', up="scd2"),
                  keys=["id", "start_at"], **fx.CDF_DOWNSTREAM_CONFIG)
    project.run()
    project.run()  # the copies catch up
    assert {r["id"] for r in project.rows("scd1_copy")} == {1, 3}
    project.execute(f"delete from {project.relation('feed')} where id in (1, 2)")
    for model in ("scd1", "scd2"):
        erase(project, model, where="id in (1, 2)")
    project.run()
    assert target_rows(project, "scd1_copy", ["id", "a"]) == target_rows(project, "scd1", ["id", "a"]) == [(3, "c5")]
    assert target_rows(project, "scd2_copy", ["id", "a", "start_at", "end_at"]) == target_rows(
        project, "scd2", ["id", "a", "__START_AT", "__END_AT"]) == [(3, "c5", 5, None)]


# -- one transaction ----------------------------------------------------------------------------------

def test_a_run_with_a_pre_hook_outside_its_transaction_is_still_one_transaction(project):
    """dbt commits before a hook outside the transaction, with a COMMIT that psycopg2 does not see: the run's
    lock statement begins the run's own transaction (writer.sql), so its statements do not commit one by one."""
    faults.install(project, raising=True)
    project.table("feed", FEED, EVENTS[:4])
    project.feed_model("t", "feed", **BASE, pre_hook={"sql": "select 1", "transaction": False})
    project.run()
    project.insert("feed", COLS, EVENTS[4:])
    before = state(project)
    result = project.dbt("run", env={faults.PLAN_ENV: json.dumps({"t": 10 ** 6})}, check=False)
    assert not result.ok and "auto_cdc fault point: failing after statement" in result.output
    assert state(project) == before
    project.run()
    assert len(target_rows(project, "t", TARGET)) == 6


def pg_session(project, **kwargs):
    import psycopg2
    e = project.pg_env
    return psycopg2.connect(host=e["DBT_PG_HOST"], port=int(e["DBT_PG_PORT"]), user=e["DBT_PG_USER"],
                            password=e["DBT_PG_PASSWORD"], dbname=e["DBT_PG_DBNAME"], **kwargs)


def waiting_for_a_lock(project):
    return lambda: project.fetch("select count(*) from pg_stat_activity where pid <> pg_backend_pid() and datname = current_database() "
                                 "and application_name = 'dbt' and wait_event_type = 'Lock'")[0][0] > 0


def dbt_sessions(project):
    return project.fetch("select count(*) from pg_stat_activity where pid <> pg_backend_pid() and datname = current_database() "
                         "and application_name = 'dbt'")[0][0]


def kill(proc):
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def killed_while_it_waits(project, locked, *args, while_waiting=lambda: None):
    """Start a run-operation (`args`) while another session locks the relation `locked` against writes; once
    the operation waits for that lock, call while_waiting(), then kill the operation (SIGKILL) and wait for
    its server session to end by itself (client_connection_check_interval), the other session still holding
    the lock."""
    other = pg_session(project)
    try:
        with other.cursor() as cur:
            cur.execute(f"lock table {project.relation(locked)} in exclusive mode")
            proc = project.start("run-operation", *args)
            wait_for(waiting_for_a_lock(project), f"the operation waits for {locked}", proc)
            while_waiting()
            kill(proc)
        wait_for(lambda: dbt_sessions(project) == 0, "the killed operation's server session ends", timeout=60)
    finally:
        other.rollback()
        other.close()


@pytest.mark.dbt_subprocess  # dbt is killed
def test_an_erase_killed_while_it_waits_changes_nothing_and_is_never_seen_part_way(project):
    """Reproduction: the erase waits on the log (another session locks it against writes) after it has
    deleted the key's change-feed rows; others still see the key everywhere, and once it is killed (its
    server session ends by itself: client_connection_check_interval) nothing of it remains."""
    postgres_only(project)
    built(project)
    before = state(project)

    def nothing_seen_part_way():
        assert key_rows(project, 2) == (1, 2, 1)
    killed_while_it_waits(project, "t__auto_cdc_log", "auto_cdc.erase_keys", "--args", "{model: t, where: 'id = 2'}",
                          while_waiting=nothing_seen_part_way)
    assert state(project) == before
    # and the erase goes through once nothing is in its way
    erase(project, "t", where="id = 2")
    assert key_rows(project, 2) == (0, 0, 1)


@pytest.mark.dbt_subprocess  # dbt is killed
def test_a_compaction_killed_while_it_waits_changes_nothing_and_later_runs_follow_the_reference(project):
    """Reproduction: killed while it waited for the run log, after its deletes from the log, a compaction
    left a compacted log without a horizon, and the next run brought deleted keys back."""
    postgres_only(project)
    from auto_cdc_testkit import reference as ref
    project.table("feed", COMPACT_FEED, COMPACT_EVENTS)
    project.feed_model("t", "feed", **COMPACT_BASE)
    project.run()
    before = state(project)
    killed_while_it_waits(project, "t__auto_cdc_runs", "auto_cdc.compact", "--args", "{model: t, older_than: 5}")
    assert state(project) == before
    # a late update of key 1 below its delete (at 4), and below where the compaction would have put the
    # horizon: the tombstone the compaction would have removed keeps it out
    late = [(1, 0, "U", "late", "x")]
    project.insert("feed", [c for c, _ in COMPACT_FEED], late)
    project.run()
    config = ref.Config(columns=("id", "name", "city"), key_columns=("id",), scd_type=1)
    expected = ref.apply_in_runs([reference_events(COMPACT_EVENTS), reference_events(late)], config)
    cols = ["id", "name", "city"]
    assert target_rows(project, "t", cols) == [tuple(r[c] for c in cols) for r in expected]


@pytest.mark.dbt_subprocess  # another session holds a lock
def test_operations_honour_lock_timeout_and_statement_timeout(project):
    """Reproduction: with lock_timeout '2s' an erase and a compaction waited 17 s behind a lock."""
    postgres_only(project)
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **BASE, lock_timeout="1s")
    scd1 = {k: v for k, v in BASE.items() if k not in ("track_history_column_list", "stored_as_scd_type")}
    project.feed_model("s", "feed", **scd1, stored_as_scd_type=1, statement_timeout="1s", lock_timeout="1h")
    project.run()
    before = {m: state(project, m) for m in ("t", "s")}
    other = pg_session(project)
    try:
        with other.cursor() as cur:
            for model in ("t", "s"):
                cur.execute(f"lock table {project.relation(model + '__auto_cdc_log')} in exclusive mode")
            started = time.time()
            result = erase(project, "t", check=False, where="id = 1")
            assert not result.ok and "canceling statement due to lock timeout" in result.output, result.output[-3000:]
            result = project.dbt("run-operation", "auto_cdc.compact", "--args", "{model: s, older_than: 2}", check=False)
            assert not result.ok and "canceling statement due to statement timeout" in result.output, result.output[-3000:]
            assert time.time() - started < 120
    finally:
        other.rollback()
        other.close()
    assert {m: state(project, m) for m in ("t", "s")} == before


@pytest.mark.dbt_subprocess  # dbt is killed
def test_a_killed_runs_server_session_ends_and_releases_the_models_lock(project):
    """A killed dbt's server session notices within seconds that its client is gone, even while a statement
    runs (client_connection_check_interval, set for the writer's transaction), and releases the lock."""
    postgres_only(project)
    if int(project.fetch("show server_version_num")[0][0]) < 140000:
        pytest.skip("client_connection_check_interval is PostgreSQL 14's")
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **BASE, pre_hook={"sql": HOLD, "transaction": True})
    project.run()
    project.execute(f"create table if not exists {project.relation('go')} (x integer)")
    proc = project.start("run", "--select", "t", env={"AUTO_CDC_HOLD": "1"})
    wait_for(lambda: project.fetch("select count(*) from pg_stat_activity where pid <> pg_backend_pid() and datname = current_database() "
                                   "and query like '%while not exists%'")[0][0] > 0, "the run holds its lock", proc)
    kill(proc)
    wait_for(lambda: dbt_sessions(project) == 0, "the killed run's server session ends by itself", timeout=60)
    erase(project, "t", where="id = 4")  # the model's lock is free
    assert key_rows(project, 4)[:2] == (0, 0)


def test_vacuum_leaves_no_byte_of_the_erased_rows_in_the_databases_files(project):
    """Postgres keeps a deleted row's bytes in its page until the page is rewritten: `vacuum: true` rewrites
    the target, the log and the change feed after the erase (VACUUM FULL)."""
    postgres_only(project)
    if not project.fetch("select rolsuper from pg_roles where rolname = current_user")[0][0]:
        pytest.skip("reading the database's files takes a superuser")
    marker = "erase-me-4f1c2b"
    project.table("feed", FEED, EVENTS + [(5, 1, "U", "eve", marker)])
    project.feed_model("t", "feed", **BASE)
    project.feed_model("u", "feed", **BASE)
    project.run()

    def files_holding_marker(model):
        project.execute("checkpoint")
        found = []
        for suffix in ["", "__auto_cdc_log", "__auto_cdc_changes"]:
            rel = project.relation(model + suffix).replace("'", "''")
            oids = project.fetch(f"select c.oid from pg_class c where c.oid = '{rel}'::regclass or c.oid = (select reltoastrelid from pg_class "
                                 f"where oid = '{rel}'::regclass) or c.oid in (select indexrelid from pg_index where indrelid = '{rel}'::regclass)")
            for (oid,) in oids:
                data = project.fetch(f"select pg_read_binary_file(pg_relation_filepath({oid}))")[0][0]
                if marker.encode() in bytes(data):
                    found.append(model + suffix)
        return found

    erase(project, "t", where=f"email = '{marker}'")
    assert files_holding_marker("t")  # deleted, but still in the pages
    erase(project, "u", where=f"email = '{marker}'", vacuum=True)
    assert files_holding_marker("u") == []
    assert key_rows(project, 5, "u") == (0, 0, 1)
