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


def _targets_and_their_consumers(project):
    """An SCD1 and an SCD2 target of the feed's first batch, each with a downstream auto_cdc model that reads
    its change feed by _commit_version (the obvious consumer) and rebuilds the target from it."""
    project.table("feed", FEED, fx.CDF_BATCHES[0])
    project.feed_model("scd1", "feed", **BASE)
    project.feed_model("scd2", "feed", **BASE, stored_as_scd_type=2)
    project.model("scd1_copy", DOWNSTREAM.format(cols="id, a", up="scd1"), keys=["id"], **fx.CDF_DOWNSTREAM_CONFIG)
    project.model("scd2_copy", DOWNSTREAM.format(cols='id, a, "__START_AT" as start_at, "__END_AT" as end_at', up="scd2"),
                  keys=["id", "start_at"], **fx.CDF_DOWNSTREAM_CONFIG)


def _assert_consumers_hold_their_targets(project):
    assert target_rows(project, "scd1_copy", ["id", "a"]) == target_rows(project, "scd1", ["id", "a"])
    assert target_rows(project, "scd2_copy", ["id", "a", "start_at", "end_at"]) == target_rows(
        project, "scd2", ["id", "a", "__START_AT", "__END_AT"])


def test_table_changes_of_two_runs_and_a_downstream_model(project):
    _targets_and_their_consumers(project)
    project.run()
    # run 2: key 1 updated, key 2 deleted, key 3 inserted; then a late event for key 1 (SCD2: splits history)
    for batch in fx.CDF_BATCHES[1:]:
        project.insert("feed", ["id", "seq", "op", "a"], batch)
        project.run()
    assert changes(project, "scd1") == sorted(fx.CDF_SCD1_CHANGES, key=repr)
    assert changes(project, "scd2") == sorted(fx.CDF_SCD2_CHANGES, key=repr)
    project.run()  # the downstream models catch up with the last change
    _assert_consumers_hold_their_targets(project)


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


def _columns(project, name):
    return [r[0] for r in project.fetch(
        "select column_name from information_schema.columns "
        f"where table_schema = '{project.schema}' and table_name = '{name}' order by ordinal_position")]


def test_table_changes_of_a_model_whose_change_feed_has_no_rows_yet_reads_none_with_the_right_columns(project):
    """A model whose change feed is turned on after its first run, by a run that brings nothing new, and a
    model whose first run changed nothing: a reader in the same dbt run gets no rows, with the target's
    columns and the change columns, not the engine's "table does not exist"."""
    project.table("feed", FEED, fx.CDF_BATCHES[0])
    project.table("nothing", FEED)
    project.feed_model("later", "feed", **{**BASE, "change_data_feed": False})
    project.feed_model("idle", "nothing", **BASE, stored_as_scd_type=2)
    project.run()
    project.feed_model("later", "feed", **BASE)
    for up in ("later", "idle"):
        project.model(f"{up}_changes", f"select * from {{{{ auto_cdc.table_changes(ref('{up}'), 0) }}}}",
                      materialized="table")
    project.run()
    changes = ["_change_type", "_commit_version", "_commit_timestamp"]
    assert _columns(project, "later_changes") == ["id", "a"] + changes
    assert _columns(project, "idle_changes") == ["id", "a", "__START_AT", "__END_AT"] + changes
    assert project.rows("later_changes") == [] and project.rows("idle_changes") == []
    # the next change is version 1
    project.insert("feed", ["id", "seq", "op", "a"], fx.CDF_BATCHES[1])
    project.run("later")
    assert sorted({r["_commit_version"] for r in project.rows("later__auto_cdc_changes")}) == [1]


def test_a_full_refresh_keeps_the_change_feed_and_records_what_it_changed_as_the_next_version(project):
    """A full refresh does not start the versions again, and keeps the change feed where the rebuilt target has
    the columns it records: a consumer reading by _commit_version gets the rebuild's version, which holds the
    difference between the rows before and after it, and replaying the feed from its first version still gives
    the target. A rebuild that changes the target's columns starts the change feed again, its versions going on."""
    _targets_and_their_consumers(project)
    project.run()
    project.insert("feed", ["id", "seq", "op", "a"], fx.CDF_BATCHES[1])
    project.run()
    # the source now holds other events: key 1 has another value at 5, key 3 is gone, key 4 is new
    project.table("feed", FEED, [(1, 1, "U", "a1"), (1, 5, "U", "A5"), (2, 1, "U", "b1"), (2, 5, "D", None),
                                 (4, 6, "U", "d6")])
    project.run("scd1", "scd2", full_refresh=True)
    assert [r["commit_version"] for r in project.rows("scd1__auto_cdc_runs")] == [3]
    assert [c for c in changes(project, "scd1") if c[-1] == 3] == sorted([
        (1, "a5", "update_preimage", 3), (1, "A5", "update_postimage", 3), (3, "c5", "delete", 3),
        (4, "d6", "insert", 3)], key=repr)
    assert [c for c in changes(project, "scd2") if c[-1] == 3] == sorted([
        (1, "a5", 5, None, "update_preimage", 3), (1, "A5", 5, None, "update_postimage", 3),
        (3, "c5", 5, None, "delete", 3), (4, "d6", 6, None, "insert", 3)], key=repr)
    assert sorted({c[-1] for c in changes(project, "scd1")}) == [1, 2, 3]
    project.run("scd1_copy", "scd2_copy")  # the consumers read on from their cursor, version 2
    _assert_consumers_hold_their_targets(project)
    # a consumer that starts now reads every version from the first and holds the target too
    project.run("scd1_copy", "scd2_copy", full_refresh=True)
    _assert_consumers_hold_their_targets(project)
    # and the next run goes on from the rebuild's version
    project.insert("feed", ["id", "seq", "op", "a"], [(4, 7, "U", "d7")])
    project.run("scd1")
    assert sorted({r["_commit_version"] for r in project.rows("scd1__auto_cdc_changes")}) == [1, 2, 3, 4]
    # a rebuild with another column starts the change feed again; its version goes on from the dropped ones
    project.model("scd1", f"select *, 'x' as extra from {project.relation('feed')}", **BASE)
    project.run("scd1", full_refresh=True)
    assert sorted({r["_commit_version"] for r in project.rows("scd1__auto_cdc_changes")}) == [5]
