"""docs/configuration.md "Where the bookkeeping lives": a model's event log and run log
go into the schema its `bookkeeping_schema` names (set on the model, or for many models in dbt_project.yml),
created if missing; the target and its change feed stay where the model puts them. Runs, erase_keys,
compact, matches_log and log_grants all find the logs there, and a changed bookkeeping_schema stops the
run instead of rebuilding the history."""
import json

import pytest

from auto_cdc_testkit import fixtures as fx
from auto_cdc_testkit.harness import target_rows
from test_compact import compact
from test_trust import postgres_only

LOGS = ["__auto_cdc_log", "__auto_cdc_runs"]
SNAP_COLUMNS = [("id", "integer"), ("a", "varchar"), ("version", "integer")]
SNAPSHOTS = [[(1, "a", 1), (2, "b", 1)], [(1, "a", 2), (2, "B", 2), (3, "c", 2)], [(2, "B", 3), (3, "c", 3)]]
SNAP_SCD2 = [(1, "a", 1, 3), (2, "B", 2, None), (2, "b", 1, 2), (3, "c", 2, None)]


def tables_in(project, schema):
    return sorted(r[0] for r in project.fetch(
        f"select table_name from information_schema.tables where table_schema = '{schema}'"))


def count(project, schema, name):
    return project.fetch(f'select count(*) from "{schema}"."{name}"')[0][0]


@pytest.fixture
def schemas(project):
    """Two schemas of the project's own for bookkeeping (dropped after the test on Postgres; DuckDB's
    database file goes with the project)."""
    names = (project.schema + "_bk", project.schema + "_own")
    yield names
    if project.engine == "postgres":
        for name in names:
            project.execute(f'drop schema if exists "{name}" cascade')


def test_the_logs_live_in_the_bookkeeping_schema_and_the_targets_follow_the_reference(project, schemas):
    """E1's four models take the project-level default from dbt_project.yml; one more sets its own
    schema on the model and keeps a change feed, which stays beside its target."""
    bk, own = schemas
    with open(project.path / "dbt_project.yml", "a") as f:
        f.write("models:\n  auto_cdc_it:\n    +bookkeeping_schema: \"{{ target.schema }}_bk\"\n")
    project.table("feed", fx.E1_COLUMNS)
    project.table("feed_truncate", fx.E1_COLUMNS)
    models = {name: (config, "feed_truncate" if truncated else "feed", cols, expected)
              for name, (config, truncated, cols, expected) in fx.E1_MODELS.items()}
    for name, (config, feed, _, _) in models.items():
        project.feed_model(name, feed, materialized="auto_cdc", **config)
    project.feed_model("own", "feed", materialized="auto_cdc", **fx.E1_SCD2_CONFIG, bookkeeping_schema=own,
                       change_data_feed=True)
    # a snapshot model reading only versions after the last one applied, which it finds in its run log
    project.table("snaps", SNAP_COLUMNS)
    last = "{{ auto_cdc.last_snapshot_version() }}"
    project.model("snap", f"select * from {project.relation('snaps')} where {last} is null or version > {last}",
                  materialized="auto_cdc_snapshot", keys=["id"], snapshot_version="version", stored_as_scd_type=2)
    (project.path / "models" / "tests.yml").write_text("version: 2\nmodels:\n" + "".join(
        f"  - name: {name}\n    data_tests:\n      - auto_cdc.matches_log\n" for name in [*models, "own", "snap"]))
    columns = [c for c, _ in fx.E1_COLUMNS]
    for i, batch in enumerate([fx.E1_FEED[:3], fx.E1_FEED[3:6], fx.E1_FEED[6:]]):
        project.insert("feed", columns, batch)
        project.insert("feed_truncate", columns, batch + ([fx.E1_TRUNCATE] if i == 1 else []))
        project.insert("snaps", [c for c, _ in SNAP_COLUMNS], SNAPSHOTS[i])
        project.run()
        compiled = (project.path / "target" / "compiled" / "auto_cdc_it" / "models" / "snap.sql").read_text()
        assert ("null is null" if i == 0 else f'"{bk}"."snap__auto_cdc_runs"') in compiled, compiled
    assert target_rows(project, "snap", ["id", "a", "__START_AT", "__END_AT"]) == SNAP_SCD2
    for name, (_, _, cols, expected) in models.items():
        assert target_rows(project, name, cols) == sorted(expected, key=lambda r: tuple((v is not None, v or 0) for v in r)), name
    assert target_rows(project, "own", fx.E1_SCD2_COLUMNS) == target_rows(project, "e1_scd2", fx.E1_SCD2_COLUMNS)
    # nothing of the bookkeeping beside the targets: the change feed only
    assert tables_in(project, project.schema) == sorted(["feed", "feed_truncate", "snaps", "snap", "own",
                                                         "own__auto_cdc_changes", *models])
    assert tables_in(project, bk) == sorted(name + suffix for name in [*models, "snap"] for suffix in LOGS)
    assert tables_in(project, own) == ["own" + suffix for suffix in LOGS]
    assert count(project, bk, "e1_scd2__auto_cdc_runs") == 3 and count(project, own, "own__auto_cdc_runs") == 3
    result = project.dbt("test", check=False)
    assert result.ok and result.output.count("PASS auto_cdc_matches_log_") == 6, result.output[-4000:]


def test_erase_keys_and_compact_work_on_the_logs_in_the_bookkeeping_schema(project, schemas):
    bk, _ = schemas
    project.table("feed", fx.E1_COLUMNS, fx.E1_FEED)
    project.feed_model("t", "feed", materialized="auto_cdc", **fx.E1_SCD2_CONFIG, bookkeeping_schema=bk,
                       change_data_feed=True)
    project.run()
    log_before = count(project, bk, "t__auto_cdc_log")
    out = project.dbt("run-operation", "auto_cdc.erase_keys", "--args",
                      json.dumps({"model": "t", "where": '"userId" = 123'})).output
    assert "1 key(s) erased from t: 2 row(s), t__auto_cdc_log: 3 row(s)" in out, out
    assert count(project, bk, "t__auto_cdc_log") == log_before - 3
    assert not project.fetch(f'select 1 from "{bk}"."t__auto_cdc_log" where "userId" = 123')
    runs = project.fetch(f'select operation from "{bk}"."t__auto_cdc_runs" order by run_id')
    assert runs == [(None,), ("erase_keys",)]
    size = count(project, bk, "t__auto_cdc_log")
    result = compact(project, "t", 6)
    removed = size - count(project, bk, "t__auto_cdc_log")
    assert f"auto_cdc.compact t: horizon 6, removed {removed} of {size} log row(s)" in result.output, result.output
    assert project.fetch(f'select operation from "{bk}"."t__auto_cdc_runs" order by run_id')[-1] == ("compact",)
    # nothing was created beside the target but the change feed
    assert tables_in(project, project.schema) == ["feed", "t", "t__auto_cdc_changes"]


def test_changing_bookkeeping_schema_on_a_built_model_fails_naming_the_config(project, schemas):
    bk, _ = schemas
    project.table("feed", fx.E1_COLUMNS, fx.E1_FEED)
    project.feed_model("t", "feed", materialized="auto_cdc", **fx.E1_SCD1_CONFIG)
    project.run()
    before = target_rows(project, "t", fx.E1_SCD1_COLUMNS)
    project.feed_model("t", "feed", materialized="auto_cdc", **fx.E1_SCD1_CONFIG, bookkeeping_schema=bk)
    result = project.run(check=False)
    out = " ".join(result.output.split())
    assert not result.ok, out[-3000:]
    assert "its event log" in out and "bookkeeping_schema changed" in out and f"move both logs into {bk}" in out, out[-3000:]
    assert "--full-refresh" in out
    # nothing moved, nothing rebuilt: the target and its logs are where they were
    assert target_rows(project, "t", fx.E1_SCD1_COLUMNS) == before
    assert all(project.exists("t" + suffix) for suffix in LOGS)
    assert tables_in(project, bk) == []


def test_postgres_log_grants_apply_to_the_logs_in_the_bookkeeping_schema(project, schemas):
    postgres_only(project)
    bk, _ = schemas
    role = "auto_cdc_bk_reader"
    project.execute(f"do $$ begin create role {role}; exception when duplicate_object then null; end $$")
    project.table("feed", fx.E1_COLUMNS, fx.E1_FEED)
    project.feed_model("t", "feed", materialized="auto_cdc", **fx.E1_SCD1_CONFIG, bookkeeping_schema=bk,
                       log_grants={"select": [role]})
    project.run()

    def readable():
        return [project.fetch(f"select has_table_privilege('{role}', '\"{bk}\".\"t{suffix}\"', 'select')")[0][0]
                for suffix in LOGS]
    assert readable() == [True, True]
    # removed from the config, the grant is revoked on the next run, in that schema too
    project.feed_model("t", "feed", materialized="auto_cdc", **fx.E1_SCD1_CONFIG, bookkeeping_schema=bk)
    project.run()
    assert readable() == [False, False]
