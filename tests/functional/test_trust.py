"""Running the package safely (docs/operations.md): a partly missing history is an error, not a rebuild;
--full-refresh can be refused; every writer takes the model's lock; grants stay on the target; commit
versions only grow; long names fit the engine's limit in bytes; text sequences are reported."""
import json
import threading
import time

import pytest

from auto_cdc_testkit.harness import target_rows, wait_for

FEED = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("a", "varchar")]
COLS = [c for c, _ in FEED]
BASE = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
            except_column_list=["op", "seq"], stored_as_scd_type=2)
HISTORY = ["id", "a", "__START_AT", "__END_AT"]
EVENTS = [(1, 1, "U", "a"), (1, 2, "U", "a2"), (2, 1, "U", "b"), (2, 3, "D", None), (3, 1, "U", "c")]
EXPECTED = [(1, "a", 1, 2), (1, "a2", 2, None), (2, "b", 1, 3), (3, "c", 1, None)]


def built(project, **config):
    """An SCD2 model `t` over `feed`, run once; then the source forgets every event but key 3's."""
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **{**BASE, **config})
    project.model("v", "select * from {{ ref('t') }}", materialized="view")
    project.run()
    assert target_rows(project, "t", HISTORY) == EXPECTED
    project.table("feed", FEED, [(3, 1, "U", "c"), (3, 2, "U", "c2")])


@pytest.mark.parametrize("dropped", ["t__auto_cdc_log", "t__auto_cdc_runs", "t"])
def test_a_missing_bookkeeping_relation_fails_the_run_and_keeps_the_history(project, dropped):
    built(project)
    if dropped == "t":
        project.execute(f"drop view {project.relation('v')}")
    project.execute(f"drop table {project.relation(dropped)}")
    result = project.run("t", check=False)
    assert not result.ok
    out = " ".join(result.output.split())
    assert "auto_cdc model 't':" in out and f'."{dropped}" is missing' in out, out[-3000:]
    assert "restore" in out and "--full-refresh" in out and "events it no longer holds are lost" in out
    assert "nothing was changed" in out
    for name in {"t", "t__auto_cdc_log", "t__auto_cdc_runs"} - {dropped}:
        assert project.exists(name)
    if dropped != "t":
        assert target_rows(project, "t", HISTORY) == EXPECTED  # nothing rebuilt, no view dropped
        assert project.exists("v")
    # rebuilding knowingly: --full-refresh recomputes from what the source still holds
    project.run("t", full_refresh=True)
    assert target_rows(project, "t", HISTORY) == [(3, "c", 1, 2), (3, "c2", 2, None)]


def test_an_emptied_run_log_beside_a_dropped_target_fails_the_run_as_a_dropped_one_does(project):
    """A run's relations commit together on DuckDB and Postgres, so an empty run log beside a log is no first
    run stopped part way (as on Spark, docs/spark.md) but an emptied one: the run does not rebuild from a
    source that no longer holds key 2's delete."""
    built(project)
    project.execute(f"delete from {project.relation('t__auto_cdc_runs')}")
    project.execute(f"drop view {project.relation('v')}")
    project.execute(f"drop table {project.relation('t')}")
    result = project.run("t", check=False)
    out = " ".join(result.output.split())
    assert not result.ok and '."t" is missing while its event log' in out and "nothing was changed" in out, out[-3000:]
    assert len(project.rows("t__auto_cdc_log")) == 5


def test_allow_full_refresh_false_refuses_a_full_refresh(project):
    built(project, allow_full_refresh=False)
    result = project.run("t", full_refresh=True, check=False)
    out = " ".join(result.output.split())
    assert not result.ok and "--full-refresh is refused because the model sets allow_full_refresh: false" in out, out[-3000:]
    assert "events the source no longer holds are lost" in out
    assert target_rows(project, "t", HISTORY) == EXPECTED
    # a plain run goes on applying new events
    project.run("t")
    assert target_rows(project, "t", HISTORY) == [(1, "a", 1, 2), (1, "a2", 2, None), (2, "b", 1, 3),
                                                  (3, "c", 1, 2), (3, "c2", 2, None)]
    # dbt's own full_refresh: false makes dbt ignore the flag: the run is incremental
    project.feed_model("t", "feed", **BASE, full_refresh=False)
    project.run("t", full_refresh=True)
    assert len(target_rows(project, "t", HISTORY)) == 5


# -- the model's lock (Postgres: DuckDB's file lock already keeps a second process out) -----------------

def postgres_only(project):
    if project.engine != "postgres":
        pytest.skip("DuckDB opens a database file in one process at a time")


# AUTO_CDC_HOLD (an environment variable, read at run time: unlike --vars it keeps dbt's saved parse valid)
HOLD = ("{% if env_var('AUTO_CDC_HOLD', '') %}do $$ begin while not exists (select 1 from {{ target.schema }}.go) loop "
        "perform pg_sleep(0.05); end loop; end $${% else %}select 1{% endif %}")


def waiting_on_lock(project, query_like):
    return lambda: project.fetch("select count(*) from pg_stat_activity where pid <> pg_backend_pid() and datname = current_database() "
                                 f"and wait_event_type = 'Lock' and query like '{query_like}'")[0][0] > 0


def operation_waits_for(run, what, *args):
    """Start a run-operation (`args`) while `run` holds the model's lock: it must wait for the lock
    until the run commits. Returns the finished process and its output."""
    project = run.project
    proc = project.start("run-operation", *args)
    try:
        wait_for(waiting_on_lock(project, "%pg_advisory_xact_lock%"), f"{what} waits for the model's lock", proc)
        time.sleep(1)
        assert proc.poll() is None
        run.release()
        return proc, proc.communicate(timeout=300)[0]
    finally:
        if proc.poll() is None:
            proc.kill()


class HeldRun:
    """A `dbt run` held open inside its transaction (after it took the model's lock) until release()."""

    def __init__(self, project):
        self.project = project
        project.execute(f"create table if not exists {project.relation('go')} (x integer)")
        project.execute(f"delete from {project.relation('go')}")
        self.proc = project.start("run", "--select", "t", env={"AUTO_CDC_HOLD": "1"})
        wait_for(lambda: project.fetch("select count(*) from pg_stat_activity where pid <> pg_backend_pid() and datname = current_database() "
                                       "and query like '%while not exists%'")[0][0] > 0, "the run holds its lock", self.proc)

    def release(self):
        self.project.execute(f"insert into {self.project.relation('go')} values (1)")
        out = self.proc.communicate(timeout=300)[0]
        assert self.proc.returncode == 0, out[-4000:]
        return out

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.project.execute(f"insert into {self.project.relation('go')} values (1)")
            self.proc.wait(timeout=300)


@pytest.mark.dbt_subprocess  # a second dbt process races the run
def test_erase_keys_waits_for_a_run_of_the_model_and_is_not_undone(project):
    postgres_only(project)
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **BASE, change_data_feed=True, pre_hook={"sql": HOLD, "transaction": True})
    project.run()
    # the person's events leave the source; the run has other new events to apply
    project.execute(f"delete from {project.relation('feed')} where id = 2")
    project.insert("feed", COLS, [(1, 5, "U", "a5"), (3, 4, "U", "c4")])
    with HeldRun(project) as run:
        erase, out = operation_waits_for(run, "the erase", "auto_cdc.erase_keys", "--args", '{model: t, where: "id = 2"}')
    assert erase.returncode == 0 and "1 key(s) erased from t: 1 row(s), t__auto_cdc_log: 2 row(s)" in out, out[-3000:]
    for name in ["t", "t__auto_cdc_log"]:
        assert [r for r in project.rows(name) if r["id"] == 2] == []
    assert [(r["_change_type"], r["a"]) for r in project.rows("t__auto_cdc_changes") if r["id"] == 2] == [("delete", None)]
    project.run("t")
    assert target_rows(project, "t", HISTORY) == [(1, "a", 1, 2), (1, "a2", 2, 5), (1, "a5", 5, None),
                                                  (3, "c", 1, 4), (3, "c4", 4, None)]


@pytest.mark.dbt_subprocess  # a second dbt process races the run
def test_a_hand_update_during_a_run_waits_for_its_commit_and_is_kept(project):
    postgres_only(project)
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **BASE, pre_hook={"sql": HOLD, "transaction": True})
    project.run()
    project.insert("feed", COLS, [(1, 5, "U", "a5")])
    t = project.relation("t")
    done = {}

    def hand_update():
        import psycopg2
        e = project.pg_env
        con = psycopg2.connect(host=e["DBT_PG_HOST"], port=int(e["DBT_PG_PORT"]), user=e["DBT_PG_USER"],
                               password=e["DBT_PG_PASSWORD"], dbname=e["DBT_PG_DBNAME"])
        con.autocommit = True
        with con.cursor() as cur:
            cur.execute(f"update {t} set a = 'A!' where id = 1 and \"__END_AT\" is null")
            done["rows"] = cur.rowcount
        con.close()

    with HeldRun(project) as run:
        editor = threading.Thread(target=hand_update)
        editor.start()
        wait_for(waiting_on_lock(project, "update %"), "the hand UPDATE waits for the run")
        time.sleep(1)
        assert "rows" not in done  # readers read, writers wait
        assert target_rows(project, "t", HISTORY) == EXPECTED
        run.release()
        editor.join(timeout=60)
    # the edit applied to the run's result, and later runs keep it
    assert done["rows"] == 1
    assert target_rows(project, "t", HISTORY) == [(1, "A!", 5, None), (1, "a", 1, 2), (1, "a2", 2, 5),
                                                  (2, "b", 1, 3), (3, "c", 1, None)]
    project.insert("feed", COLS, [(1, 9, "U", "a9")])
    project.run("t")
    assert target_rows(project, "t", HISTORY)[:4] == [(1, "A!", 5, 9), (1, "a", 1, 2), (1, "a2", 2, 5), (1, "a9", 9, None)]
    assert project.fetch(f"select edited_keys from {project.relation('t__auto_cdc_runs')} order by run_id desc limit 1") == [(1,)]


@pytest.mark.dbt_subprocess  # a second dbt process races the run
def test_lock_timeout_fails_the_run_naming_the_session_that_holds_the_lock(project):
    postgres_only(project)
    import psycopg2
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **BASE, lock_timeout="2s", statement_timeout="10min")
    project.run()
    e = project.pg_env
    other = psycopg2.connect(host=e["DBT_PG_HOST"], port=int(e["DBT_PG_PORT"]), user=e["DBT_PG_USER"],
                             password=e["DBT_PG_PASSWORD"], dbname=e["DBT_PG_DBNAME"], application_name="forgotten_session")
    try:
        with other.cursor() as cur:  # an uncommitted hand edit, then a session holding the model's lock
            cur.execute("select pg_backend_pid()")
            pid = cur.fetchone()[0]
            cur.execute(f"update {project.relation('t')} set a = 'x' where id = 3")
            result = project.run("t", check=False)
            out = " ".join(result.output.split())
            assert not result.ok and "auto_cdc model 't': timed out (lock_timeout 2s) waiting for" in out, out[-3000:]
            assert f"held by pid {pid} (application_name 'forgotten_session'" in out
            other.rollback()
            db = project.fetch("select current_database()")[0][0]
            cur.execute("select pg_advisory_xact_lock(hashtext('auto_cdc'), hashtext(%s))",
                        (f'"{db}"."{project.schema}"."t"',))
            result = project.run("t", check=False)
            out = " ".join(result.output.split())
            assert not result.ok and "waiting for the model's lock, held by pid " + str(pid) in out, out[-3000:]
            other.rollback()
        project.run("t")
    finally:
        other.close()
    assert target_rows(project, "t", HISTORY) == EXPECTED


def test_postgres_run_turns_jit_off_for_its_own_transaction_only(project):
    """The lock statement also sets jit off for the run's transaction (the planner misjudges the run's
    temp tables, and compiling the apply's joins took longer than running them)."""
    postgres_only(project)
    project.table("feed", FEED, EVENTS)
    project.execute(f"create table {project.relation('seen')} (jit text)")
    project.feed_model("t", "feed", **BASE, post_hook=f"insert into {project.relation('seen')} select current_setting('jit')")
    project.run()
    assert project.fetch(f"select jit from {project.relation('seen')}") == [("off",)]
    assert project.fetch("select current_setting('jit')") == [("on",)]  # the server's default, elsewhere


# -- who can read what ------------------------------------------------------------------------------

def test_grants_reach_the_target_and_its_change_feed_and_log_grants_the_logs_until_removed(project):
    postgres_only(project)
    import psycopg2
    project.execute("do $$ begin create role auto_cdc_trust_reader login password 'r'; "
                    "exception when duplicate_object then null; end $$")
    project.execute(f'grant usage on schema "{project.schema}" to auto_cdc_trust_reader')
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **BASE, change_data_feed=True, grants={"select": ["auto_cdc_trust_reader"]})
    project.run()
    e = project.pg_env
    reader = psycopg2.connect(host=e["DBT_PG_HOST"], port=int(e["DBT_PG_PORT"]), user="auto_cdc_trust_reader",
                              password="r", dbname=e["DBT_PG_DBNAME"])
    reader.autocommit = True
    try:
        with reader.cursor() as cur:
            for readable in ["t", "t__auto_cdc_changes"]:
                cur.execute(f"select count(*) from {project.relation(readable)}")
                assert cur.fetchone()[0] > 0
            for hidden in ["t__auto_cdc_log", "t__auto_cdc_runs"]:
                with pytest.raises(psycopg2.errors.InsufficientPrivilege):
                    cur.execute(f"select * from {project.relation(hidden)}")
        # a log that holds the target's grantee (given by hand here, as an older version did) loses it on
        # the next run; log_grants says who may read the logs
        project.execute(f"grant select on {project.relation('t__auto_cdc_log')} to auto_cdc_trust_reader")
        project.run()
        assert not project.fetch("select has_table_privilege('auto_cdc_trust_reader', "
                                 f"'{project.relation('t__auto_cdc_log')}', 'select')")[0][0]
        project.feed_model("t", "feed", **BASE, change_data_feed=True, grants={"select": ["auto_cdc_trust_reader"]},
                           log_grants={"select": ["auto_cdc_trust_reader"]})
        project.run()
        with reader.cursor() as cur:
            for name in ["t__auto_cdc_log", "t__auto_cdc_runs"]:
                cur.execute(f"select count(*) from {project.relation(name)}")
                assert cur.fetchone()[0] > 0
        # reproduction: log_grants removed from the config, the reader kept SELECT on the logs; and the
        # change feed's readers follow change_data_feed_grants (`{}`: its owner only)
        project.feed_model("t", "feed", **BASE, change_data_feed=True, grants={"select": ["auto_cdc_trust_reader"]},
                           change_data_feed_grants={})
        project.run()
        for name, readable in [("t", True), ("t__auto_cdc_log", False), ("t__auto_cdc_runs", False), ("t__auto_cdc_changes", False)]:
            assert project.fetch("select has_table_privilege('auto_cdc_trust_reader', "
                                 f"'{project.relation(name)}', 'select')")[0][0] == readable, name
        project.feed_model("t", "feed", **BASE, change_data_feed=True, change_data_feed_grants={"select": ["auto_cdc_trust_reader"]})
        project.run()
        with reader.cursor() as cur:
            cur.execute(f"select count(*) from {project.relation('t__auto_cdc_changes')}")
            assert cur.fetchone()[0] > 0
    finally:
        reader.close()


# -- commit versions ----------------------------------------------------------------------------------

def test_commit_versions_keep_increasing_after_the_latest_commit_is_erased(project):
    project.table("feed", FEED, [(1, 1, "U", "a")])
    project.feed_model("t", "feed", **BASE, change_data_feed=True)
    project.run()
    project.insert("feed", COLS, [(2, 1, "U", "b")])
    project.run()
    assert sorted({r["_commit_version"] for r in project.rows("t__auto_cdc_changes")}) == [1, 2]
    # every row of commit 2 belongs to key 2: erase it (from the source too)
    project.execute(f"delete from {project.relation('feed')} where id = 2")
    project.dbt("run-operation", "auto_cdc.erase_keys", "--args", '{model: t, where: "id = 2"}')
    # commit 2 is gone; the erasure is commit 3, a delete carrying only the key
    changes = project.rows("t__auto_cdc_changes")
    assert sorted((r["id"], r["_change_type"], r["_commit_version"], r["a"]) for r in changes) == [
        (1, "insert", 1, "a"), (2, "delete", 3, None)]
    project.insert("feed", COLS, [(3, 1, "U", "c")])
    project.run()
    changes = project.rows("t__auto_cdc_changes")
    assert sorted((r["id"], r["_commit_version"]) for r in changes) == [(1, 1), (2, 3), (3, 4)]
    runs = sorted(project.rows("t__auto_cdc_runs"), key=lambda r: r["run_id"])
    assert [r["commit_version"] for r in runs] == [1, 2, 3, 4]


# -- names ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["ü" * 26, "é" * 25])
def test_long_non_ascii_model_names_fit_the_identifier_limit_in_bytes(project, name):
    from auto_cdc_testkit.names import NAMES, side_identifier
    project.table("feed", FEED, EVENTS[:3])
    project.feed_model(name, "feed", **BASE, change_data_feed=True)
    project.run()
    project.insert("feed", COLS, EVENTS[3:])
    project.run()
    assert target_rows(project, name, HISTORY) == EXPECTED
    for suffix in ["log_suffix", "runs_suffix", "changes_suffix"]:
        assert project.exists(side_identifier(name, NAMES[suffix]))
    assert len(project.rows(side_identifier(name, NAMES["runs_suffix"]))) == 2


@pytest.mark.parametrize("length", [41, 61])
def test_a_target_name_past_the_identifier_limit_in_bytes_fails_before_anything_is_created(project, length):
    """Reproduction: a model named with 41-61 Cyrillic characters (82-122 bytes) was cut by Postgres to 63
    bytes, and every later run failed. DuckDB keeps such a name whole."""
    name = ("журнал_заказов_" * 5)[:length]
    project.table("feed", FEED, EVENTS)
    project.feed_model(name, "feed", **BASE)
    if project.engine == "duckdb":
        project.run()
        project.run()
        assert target_rows(project, name, HISTORY) == EXPECTED
        return
    for _ in range(2):  # the first run, and the next, alike: nothing was left behind
        result = project.run(check=False)
        out = " ".join(result.output.split())
        assert not result.ok and f"the target's name '{name}' is {len(name.encode())} bytes of UTF-8, more than the engine's " \
            "identifier limit of 63 bytes" in out and "Nothing was created" in out, out[-3000:]
    assert project.fetch(f"select count(*) from pg_class c join pg_namespace s on s.oid = c.relnamespace "
                         f"where s.nspname = '{project.schema}' and c.relname <> 'feed'")[0][0] == 0
    # an alias within the limit
    project.feed_model(name, "feed", **BASE, alias=name[:20])
    project.run()
    assert target_rows(project, name[:20], HISTORY) == EXPECTED


# -- emptied bookkeeping ----------------------------------------------------------------------------

@pytest.mark.parametrize("emptied", ["t__auto_cdc_runs", "t__auto_cdc_log"])
def test_an_emptied_run_log_or_event_log_fails_the_run_as_a_dropped_one_does(project, emptied):
    """Reproduction: an emptied event log went unnoticed (on DuckDB a deleted key came back)."""
    built(project)
    project.execute(f"delete from {project.relation(emptied)}")
    before = {name: sorted(map(repr, project.rows(name))) for name in ["t", "t__auto_cdc_log", "t__auto_cdc_runs"]}
    result = project.run("t", check=False)
    out = " ".join(result.output.split())
    what = "run log" if emptied.endswith("runs") else "event log"
    assert not result.ok and f"auto_cdc model 't': its {what} is empty while its" in out and "nothing was changed" in out, out[-3000:]
    assert "--full-refresh" in out
    assert {name: sorted(map(repr, project.rows(name))) for name in before} == before
    project.run("t", full_refresh=True)
    assert target_rows(project, "t", HISTORY) == [(3, "c", 1, 2), (3, "c2", 2, None)]


def test_a_log_emptied_by_compact_or_erase_keys_is_no_emptied_log(project):
    """A compaction removes every event of keys that ended in a delete, and an erase every event of its
    keys: an empty log after either is the model's state, and runs go on."""
    scd1 = dict(BASE, stored_as_scd_type=1)
    project.table("feed", FEED, [(1, 1, "U", "a"), (1, 2, "D", None)])
    project.table("feed2", FEED, [(1, 1, "U", "a")])
    project.feed_model("t", "feed", **scd1)
    project.feed_model("u", "feed2", **scd1)
    project.run()
    project.dbt("run-operation", "auto_cdc.compact", "--args", "{model: t, older_than: 2}")
    project.dbt("run-operation", "auto_cdc.erase_keys", "--args", "{model: u, where: 'id = 1'}")
    assert project.rows("t__auto_cdc_log") == project.rows("u__auto_cdc_log") == []
    project.execute(f"delete from {project.relation('feed2')}")
    project.run()
    project.insert("feed", COLS, [(2, 3, "U", "b")])
    project.insert("feed2", COLS, [(2, 3, "U", "b")])
    project.run()
    assert target_rows(project, "t", ["id", "a"]) == target_rows(project, "u", ["id", "a"]) == [(2, "b")]


# -- text sequences ---------------------------------------------------------------------------------

def test_a_text_sequence_fails_by_default_saying_how_to_cast_it_warns_when_told_and_is_quiet_when_ignored(project):
    project.table("feed", [("id", "integer"), ("seq", "varchar"), ("op", "varchar"), ("a", "varchar")],
                  [(1, "9", "U", "nine"), (1, "10", "U", "ten")])
    project.feed_model("t", "feed", **dict(BASE, stored_as_scd_type=1))
    project.feed_model("loud", "feed", **dict(BASE, stored_as_scd_type=1), on_text_sequence="warn")
    project.feed_model("quiet", "feed", **dict(BASE, stored_as_scd_type=1), on_text_sequence="ignore")
    result = project.run(check=False)
    out = " ".join(result.output.split())
    warning = "the sequence_by column 'seq' ("
    assert not result.ok and not project.exists("t"), out[-3000:]
    assert "auto_cdc model 't': " + warning in out and 'cast("seq" as bigint) as "seq"' in out
    assert "nothing was applied" in out
    assert out.count("auto_cdc model 'loud': " + warning) == 1
    assert "auto_cdc model 'quiet': " + warning not in out
    assert target_rows(project, "loud", ["id", "a"]) == [(1, "nine")]  # '9' sorts after '10' as text
    assert target_rows(project, "quiet", ["id", "a"]) == [(1, "nine")]
    # the warning is dbt's warning event: JSON logs give it dbt's level, and --warn-error makes it an error
    logged = project.dbt("run", "--select", "loud", "--log-format", "json")
    events = [json.loads(line) for line in logged.output.splitlines() if line.startswith("{")]
    warned = [e["info"] for e in events if "auto_cdc model 'loud': " + warning in e["info"]["msg"]]
    assert [(e["name"], e["level"]) for e in warned] == [("JinjaLogWarning", "warn")], warned
    project.insert("feed", COLS, [(2, "1", "U", "two")])
    strict = project.dbt("run", "--select", "loud", "--warn-error", check=False)
    assert not strict.ok and "auto_cdc model 'loud': " + warning in " ".join(strict.output.split())
    assert target_rows(project, "loud", ["id", "a"]) == [(1, "nine")]  # nothing applied


# -- hand edits ---------------------------------------------------------------------------------------

def test_two_hand_versions_starting_at_one_sequence_fail_with_a_clear_error(project):
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **BASE)
    project.run()
    t = project.relation("t")
    # an exact copy of a version is one version; a different row at the same start is not a history
    project.execute(f'insert into {t} (id, a, "__START_AT", "__END_AT") values (3, \'c\', 1, NULL)')
    project.execute(f'insert into {t} (id, a, "__START_AT", "__END_AT") values (1, \'twin\', 2, NULL)')
    project.insert("feed", COLS, [(1, 7, "U", "a7"), (3, 7, "U", "c7")])
    result = project.run(check=False)
    out = " ".join(result.output.split())
    assert not result.ok and "not a valid history" in out and "for 1 key(s): (id=1)" in out, out[-3000:]
