"""R5 (partial updates): each partial-update method tells an absent column from an explicit NULL.

Feed: user 1 is inserted as (Ann, Paris) at 1; at 2 an event carries name = NULL, city = NULL.
- ignore_null_updates: every NULL means "absent": nothing changes (an explicit NULL cannot be written).
- ignore_null_updates_column_list = ['name']: name's NULL is absent, city's NULL is written.
- ignore_null_updates_except_column_list = ['name']: the reverse: name's NULL is written, city's is absent.
- columns_to_update: the event lists ['city']: city's NULL is written, name is absent whatever it holds.
"""
import pytest

from auto_cdc_testkit.harness import ordered, target_rows

FEED = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("name", "varchar"), ("city", "varchar"),
        ("cols", "varchar")]
COLS = [c for c, _ in FEED]
BASE = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
            except_column_list=["op", "seq", "cols"])
METHODS = {
    "ignore_all": (dict(ignore_null_updates=True), ("Ann", "Paris")),
    "ignore_name": (dict(ignore_null_updates_column_list=["name"]), ("Ann", None)),
    "ignore_all_but_name": (dict(ignore_null_updates_except_column_list=["name"]), (None, "Paris")),
    "columns_to_update": (dict(columns_to_update="cols", except_column_list=["op", "seq"]), ("Ann", None)),
}


@pytest.mark.parametrize("scd", [1, 2])
def test_each_method_tells_an_absent_column_from_an_explicit_null(project, scd):
    project.table("feed", FEED, [(1, 1, "U", "Ann", "Paris", "name,city"),
                                 (1, 2, "U", None, None, "city")])
    for name, (config, _) in METHODS.items():
        project.feed_model(name, "feed", **{**BASE, **config}, stored_as_scd_type=scd)
    project.run()
    for name, (_, (expected_name, expected_city)) in METHODS.items():
        if scd == 1:
            assert target_rows(project, name, ["id", "name", "city"]) == [(1, expected_name, expected_city)], name
        else:
            history = target_rows(project, name, ["id", "name", "city", "__START_AT", "__END_AT"])
            if (expected_name, expected_city) == ("Ann", "Paris"):  # the merged state did not change
                assert history == [(1, "Ann", "Paris", 1, None)], name
            else:
                assert history == ordered([(1, "Ann", "Paris", 1, 2), (1, expected_name, expected_city, 2, None)]), name


def test_columns_to_update_ignores_unlisted_values_and_accepts_arrays(project):
    feed = [("id", "integer"), ("seq", "integer"), ("name", "varchar"), ("city", "varchar"), ("cols", "varchar[]")]
    project.table("feed", feed)
    project.execute(f"insert into {project.relation('feed')} values "
                    "(1, 1, 'Ann', 'Paris', array['name', 'city']), (1, 2, 'ignored', null, array['City'])")
    project.feed_model("t", "feed", materialized="auto_cdc", keys=["id"], sequence_by="seq",
                       columns_to_update="cols", except_column_list=["seq"])
    project.run()
    assert project.rows("t") == [{"id": 1, "name": "Ann", "city": None}]


def test_late_partial_event_writes_only_columns_no_later_event_wrote(project):
    project.table("feed", FEED, [(1, 1, "U", "Ann", "Paris", "name,city"), (1, 5, "U", "Anne", None, "name")])
    project.feed_model("t", "feed", **{**BASE, "except_column_list": ["op", "seq"]}, columns_to_update="cols")
    project.run()
    assert target_rows(project, "t", ["id", "name", "city"]) == [(1, "Anne", "Paris")]
    # late at 3: name was written later (at 5) so it stays; city was not, so the late value lands
    project.insert("feed", COLS, [(1, 3, "U", "Annie", "Rome", "name,city")])
    project.run()
    assert target_rows(project, "t", ["id", "name", "city"]) == [(1, "Anne", "Rome")]


def test_delete_then_partial_upsert_does_not_bring_back_old_values(project):
    project.table("feed", FEED, [(1, 1, "U", "Ann", "Paris", None), (1, 2, "D", None, None, None),
                                 (1, 3, "U", None, "Rome", None)])
    project.feed_model("ignore", "feed", **BASE, ignore_null_updates=True)
    project.feed_model("listed", "feed", **{**BASE, "except_column_list": ["op", "seq"]}, columns_to_update="cols")
    project.insert("feed", COLS, [])
    project.run()
    assert target_rows(project, "ignore", ["id", "name", "city"]) == [(1, None, "Rome")]
    # columns_to_update NULL means every column is written
    assert target_rows(project, "listed", ["id", "name", "city"]) == [(1, None, "Rome")]


def test_unknown_column_in_columns_to_update_fails_naming_key_and_name(project):
    project.table("feed", FEED, [(1, 1, "U", "Ann", "Paris", "name,country")])
    project.feed_model("t", "feed", **{**BASE, "except_column_list": ["op", "seq"]}, columns_to_update="cols")
    result = project.run(check=False)
    assert not result.ok
    assert "names unknown columns" in result.output and "'country' for (id=1)" in result.output
    assert not project.exists("t")
