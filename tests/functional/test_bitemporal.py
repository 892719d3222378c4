"""Bitemporal targets (R6, SPEC E4) on every engine."""
from dbt_auto_cdc import fixtures as fx
from dbt_auto_cdc.harness import ordered, target_rows


def test_e4_in_one_run_gives_the_six_rows(project):
    project.table("feed", fx.E4_COLUMNS, fx.E4_FEED)
    project.feed_model("t", "feed", materialized="auto_cdc", **fx.E4_CONFIG)
    project.run()
    assert target_rows(project, "t", fx.E4_TARGET_COLUMNS) == ordered(fx.E4_AFTER[-1])


def test_e4_one_event_per_run_gives_each_intermediate_table(project):
    project.table("feed", fx.E4_COLUMNS)
    project.feed_model("t", "feed", materialized="auto_cdc", **fx.E4_CONFIG)
    for event, expected in zip(fx.E4_FEED, fx.E4_AFTER):
        project.insert("feed", [c for c, _ in fx.E4_COLUMNS], [event])
        project.run()
        assert target_rows(project, "t", fx.E4_TARGET_COLUMNS) == ordered(expected)
