"""Bitemporal targets (R6, example E4) on every engine."""
from auto_cdc_testkit import fixtures as fx
from auto_cdc_testkit.harness import ordered, target_rows


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


def test_as_of_answers_the_seed_pages_two_questions(project):
    """What was the value at business time 12:10 (as known now), and what did the system believe about
    12:10 at system time 12:22 (before the late XFv3 arrived at 12:25)?"""
    project.table("feed", fx.E4_COLUMNS, fx.E4_FEED)
    project.feed_model("t", "feed", materialized="auto_cdc", **fx.E4_CONFIG)
    bt = "cast('2025-07-18 12:10:00' as timestamp)"
    st = "cast('2025-07-18 12:22:00' as timestamp)"
    project.model("now_at_1210", "select \"CompanyId\", datapoints from {{ auto_cdc.as_of(ref('t'), business_time=\"" + bt + "\") }} as x",
                  materialized="table")
    project.model("believed_at_1222", "select \"CompanyId\", datapoints from {{ auto_cdc.as_of(ref('t'), business_time=\"" + bt
                  + "\", system_time=\"" + st + "\") }} as x", materialized="table")
    project.model("history_believed_at_1222", "select datapoints, \"__START_AT\" from {{ auto_cdc.as_of(ref('t'), system_time=\""
                  + st + "\") }} as x", materialized="table")
    project.run()
    assert project.rows("now_at_1210") == [{"CompanyId": "A", "datapoints": "XFv3"}]
    assert project.rows("believed_at_1222") == [{"CompanyId": "A", "datapoints": "XFv1"}]
    assert sorted(r["datapoints"] for r in project.rows("history_believed_at_1222")) == ["XFv1", "XFv2"]
