"""Concurrent runs (docs/operations.md "Locking and timeouts"): two `dbt run` of the same model at the same time, and
different models in parallel (--threads 4).

Postgres: the second run of a model waits for the first (a transaction-level advisory lock on the
target, macros/materializations/helpers.sql), says so, then applies only what the first did not.
DuckDB: a database file is open in one process at a time, so the second dbt process fails at once
with DuckDB's lock error; the first run is unaffected and a later run applies what is left.

The first run is held open inside its transaction by a post-hook that waits for the test's go (a
flag row on Postgres, a named pipe on DuckDB), so the overlap does not depend on timing."""
import os

import pytest

from auto_cdc_testkit.harness import target_rows, wait_for

# two dbt processes at once: real processes
pytestmark = pytest.mark.dbt_subprocess

FEED = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("a", "varchar")]
COLS = [c for c, _ in FEED]
BASE = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
            except_column_list=["op", "seq"], stored_as_scd_type=2, change_data_feed=True)
HISTORY = ["id", "a", "__START_AT", "__END_AT"]


def hold_hook(project) -> str:
    """A post-hook (inside the transaction) that, when the environment variable AUTO_CDC_HOLD is set, waits
    for the test's go (an environment variable read at run time, unlike --vars, keeps dbt's saved parse valid)."""
    if project.engine == "postgres":
        wait = (f"do $$ begin while not exists (select 1 from {project.relation('go')}) loop "
                "perform pg_sleep(0.05); end loop; end $$")
    else:
        wait = "select length(content) from read_text('{{ env_var(\"AUTO_CDC_HOLD\") }}')"
    return "{% if env_var('AUTO_CDC_HOLD', '') %}" + wait + "{% else %}select 1{% endif %}"


def setup(project, first_run: bool, tmp_path):
    project.table("feed", FEED, [(1, 1, "U", "a"), (2, 1, "U", "b")])
    project.feed_model("t", "feed", **BASE, post_hook={"sql": hold_hook(project), "transaction": True})
    if project.engine == "postgres":
        project.execute(f"create table {project.relation('go')} (x integer)")
        hold = "yes"
    else:
        hold = str(tmp_path / "go.fifo")
        os.mkfifo(hold)
    if not first_run:
        project.run()
    project.insert("feed", COLS, [(1, 2, "U", "a2"), (3, 1, "U", "c"), (2, 3, "D", None)])
    return hold


def release(project, hold) -> None:
    if project.engine == "postgres":
        project.execute(f"insert into {project.relation('go')} values (1)")
    else:
        with open(hold, "w") as fh:
            fh.write("go")


EXPECTED = [(1, "a", 1, 2), (1, "a2", 2, None), (2, "b", 1, 3), (3, "c", 1, None)]


def held(project, log_offset: int):
    """True once the first run is waiting in its post-hook."""
    if project.engine == "postgres":
        return lambda: project.fetch("select count(*) from pg_stat_activity where pid <> pg_backend_pid() and datname = current_database() "
                                     "and query like '%do $$ begin while not exists%'")[0][0] > 0
    log = project.path / "logs" / "dbt.log"
    return lambda: log.exists() and "read_text(" in log.read_text()[log_offset:]


@pytest.mark.parametrize("first_run", [False, True], ids=["incremental", "first_run"])
def test_two_runs_of_the_same_model_at_the_same_time(project, tmp_path, first_run):
    hold = setup(project, first_run, tmp_path)
    log = project.path / "logs" / "dbt.log"
    offset = len(log.read_text()) if log.exists() else 0
    first = project.start("run", env={"AUTO_CDC_HOLD": hold})
    procs = [first]
    try:
        _two_runs(project, hold, offset, procs)
    finally:  # a failed test must not leave a run holding its transaction open
        if project.engine == "postgres" and not project.fetch(f"select count(*) from {project.relation('go')}")[0][0]:
            release(project, hold)
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def _two_runs(project, hold, offset, procs):
    first = procs[0]
    wait_for(held(project, offset), "the first run holds its transaction open", first)
    second = project.start("run")
    procs.append(second)
    if project.engine == "postgres":
        # the second run waits for the model's lock (and says so) until the first run commits
        wait_for(lambda: project.fetch("select count(*) from pg_stat_activity where pid <> pg_backend_pid() and datname = current_database() and wait_event_type = 'Lock' "
                                       "and query like '%pg_advisory_xact_lock%'")[0][0] > 0,
                 "the second run waits for the model's lock", second)
        release(project, hold)
        out_first, out_second = first.communicate(timeout=300)[0], second.communicate(timeout=300)[0]
        assert first.returncode == 0, out_first[-4000:]
        assert second.returncode == 0, out_second[-4000:]
        assert "auto_cdc model 't': another run of this model is applying to" in out_second
        runs = sorted(project.rows("t__auto_cdc_runs"), key=lambda r: r["run_id"])
        assert runs[-1]["events_applied"] == 0 and runs[-1]["commit_version"] is None  # nothing left to apply
    else:
        # DuckDB: the second process cannot open the database file at all
        out_second = second.communicate(timeout=300)[0]
        assert second.returncode != 0
        assert "Could not set lock on file" in out_second, out_second[-4000:]
        release(project, hold)
        out_first = first.communicate(timeout=300)[0]
        assert first.returncode == 0, out_first[-4000:]
        project.run()  # the retry finds nothing left to apply
    assert target_rows(project, "t", HISTORY) == EXPECTED
    versions = sorted({r["_commit_version"] for r in project.rows("t__auto_cdc_changes")})
    assert versions == list(range(1, len(versions) + 1))


def test_different_models_in_parallel_do_not_interfere(project):
    """Twelve models over four feeds, every shape, with --threads 4; each equals its own expected rows."""
    project.table("feed", FEED, [(1, 1, "U", "a"), (2, 1, "U", "b"), (1, 2, "U", "a2"), (3, 1, "U", "c"),
                                 (2, 3, "D", None)])
    project.table("snaps", [("k", "integer"), ("c", "varchar"), ("v", "integer")],
                  [(1, "x", 1), (2, "y", 1), (1, "x2", 2)])
    for i in range(4):
        project.feed_model(f"scd1_{i}", "feed", **dict(BASE, stored_as_scd_type=1))
        project.feed_model(f"scd2_{i}", "feed", **BASE)
        project.model(f"snap_{i}", f"select * from {project.relation('snaps')}", materialized="auto_cdc_snapshot",
                      keys=["k"], snapshot_version="v", stored_as_scd_type=2)
    for later in [[], [(4, "d", 1, 2)]]:  # a first run, then an incremental one with new events
        project.run(extra=["--threads", "4"])
        for i in range(4):
            assert target_rows(project, f"scd1_{i}", ["id", "a"]) == [(1, "a2"), (3, "c")]
            assert target_rows(project, f"scd2_{i}", HISTORY) == EXPECTED + later
            assert target_rows(project, f"snap_{i}", ["k", "c", "__START_AT", "__END_AT"]) == [
                (1, "x", 1, 2), (1, "x2", 2, None), (2, "y", 1, 2)]
        project.insert("feed", COLS, [(4, 1, "U", "d"), (4, 2, "D", None)])
    assert all(len(project.rows(f"scd2_{i}__auto_cdc_runs")) == 2 for i in range(4))
