"""Change data feed (table_changes) and run metrics (docs/configuration.md)."""
import json

from auto_cdc_testkit import fixtures as fx
from auto_cdc_testkit.harness import target_rows

FEED, BASE = fx.CDF_COLUMNS, fx.CDF_CONFIG
DOWNSTREAM = fx.CDF_DOWNSTREAM_SQL


def changes(project, name):
    return sorted(project.fetch(f'select id, a, {"" if name == "scd1" else chr(34) + "__START_AT" + chr(34) + ", " + chr(34) + "__END_AT" + chr(34) + ", "}'
                         f'_change_type, _commit_version from {project.relation(name + "__auto_cdc_changes")} '
                         'order by _commit_version, id, _change_type'), key=repr)


def test_table_changes_of_two_runs_and_a_downstream_model(project):
    project.table("feed", FEED, fx.CDF_BATCHES[0])
    project.feed_model("scd1", "feed", **BASE)
    project.feed_model("scd2", "feed", **BASE, stored_as_scd_type=2)
    project.model("scd1_copy", DOWNSTREAM.format(cols="id, a", up="scd1"), keys=["id"], **fx.CDF_DOWNSTREAM_CONFIG)
    project.model("scd2_copy", DOWNSTREAM.format(cols='id, a, "__START_AT" as start_at, "__END_AT" as end_at', up="scd2"),
                  keys=["id", "start_at"], **fx.CDF_DOWNSTREAM_CONFIG)
    project.run()
    # run 2: key 1 updated, key 2 deleted, key 3 inserted; then a late event for key 1 (SCD2: splits history)
    for batch in fx.CDF_BATCHES[1:]:
        project.insert("feed", ["id", "seq", "op", "a"], batch)
        project.run()
    assert changes(project, "scd1") == sorted(fx.CDF_SCD1_CHANGES, key=repr)
    assert changes(project, "scd2") == sorted(fx.CDF_SCD2_CHANGES, key=repr)
    project.run()  # the downstream models catch up with the last change
    assert target_rows(project, "scd1_copy", ["id", "a"]) == target_rows(project, "scd1", ["id", "a"])
    assert target_rows(project, "scd2_copy", ["id", "a", "start_at", "end_at"]) == target_rows(
        project, "scd2", ["id", "a", "__START_AT", "__END_AT"])


def _metrics(project, name):
    return [(r["num_upserted_rows"], r["num_deleted_rows"], r["late_events"], r["events_read"] - r["events_applied"])
            for r in sorted(project.rows(name + "__auto_cdc_runs"), key=lambda r: r["run_id"])]


def test_e1_metrics_in_one_run_and_over_three_runs(project):
    project.table("once", fx.E1_COLUMNS, fx.E1_FEED)
    project.table("split", fx.E1_COLUMNS)
    for feed in ("once", "split"):
        project.feed_model(f"{feed}_scd1", feed, materialized="auto_cdc", **fx.E1_SCD1_CONFIG)
        project.feed_model(f"{feed}_scd2", feed, materialized="auto_cdc", **fx.E1_SCD2_CONFIG)
    cols = [c for c, _ in fx.E1_COLUMNS]
    for batch in (fx.E1_FEED[:3], fx.E1_FEED[3:6], fx.E1_FEED[6:]):
        project.insert("split", cols, batch)
        result = project.run()
    # (num_upserted_rows, num_deleted_rows, late_events, ignored_events) per run
    assert _metrics(project, "once_scd1") == [(3, 0, 0, 0), (0, 0, 0, 8), (0, 0, 0, 8)]
    assert _metrics(project, "once_scd2") == [(7, 0, 0, 0), (0, 0, 0, 8), (0, 0, 0, 8)]
    assert _metrics(project, "split_scd1") == [(3, 0, 0, 0), (2, 1, 0, 3), (0, 0, 2, 6)]
    assert _metrics(project, "split_scd2") == [(3, 0, 0, 0), (4, 0, 0, 3), (4, 0, 2, 6)]
    assert "num_upserted_rows=4 num_deleted_rows=0 late_events=2 ignored_events=6" in result.output
    run_results = json.loads((project.path / "target" / "run_results.json").read_text())
    responses = {r["unique_id"].split(".")[-1]: r["adapter_response"] for r in run_results["results"]}
    assert responses["split_scd1"]["_message"] == "num_upserted_rows=0 num_deleted_rows=0 late_events=2 ignored_events=6"
    assert responses["split_scd2"]["rows_affected"] == 4


def test_table_changes_reads_as_written_in_databricks_with_or_without_an_alias(project):
    """`select * from {{ auto_cdc.table_changes(ref('m'), v) }}` needs no alias and takes one (PostgreSQL
    before 16 rejects an unaliased subquery in FROM)."""
    project.table("feed", FEED, fx.CDF_BATCHES[0])
    project.feed_model("scd1", "feed", **BASE)
    project.run()
    project.insert("feed", ["id", "seq", "op", "a"], fx.CDF_BATCHES[1])
    project.run()
    reads = {
        "no_alias": "select * from {{ auto_cdc.table_changes(ref('scd1'), 2) }}",
        "bare_alias": "select c.* from {{ auto_cdc.table_changes(ref('scd1'), 2) }} c",
        "as_alias": "select c.id, c.a, c._change_type, c._commit_version, c._commit_timestamp "
                    "from {{ auto_cdc.table_changes(ref('scd1'), 2) }} as c",
        "up_to_version_1": "select * from {{ auto_cdc.table_changes(ref('scd1'), 0, 1) }} where id > 0",
    }
    for name, sql in reads.items():
        project.model(name, sql, materialized="table")
    project.run(*reads)
    columns = ["id", "a", "_change_type", "_commit_version"]
    version_2 = [c for c in sorted(fx.CDF_SCD1_CHANGES, key=repr) if c[3] == 2]
    for name in ("no_alias", "bare_alias", "as_alias"):
        assert list(project.rows(name)[0]) == columns + ["_commit_timestamp"], name
        assert sorted(target_rows(project, name, columns), key=repr) == version_2, name
    assert sorted(target_rows(project, "up_to_version_1", columns), key=repr) == [
        c for c in sorted(fx.CDF_SCD1_CHANGES, key=repr) if c[3] == 1]
