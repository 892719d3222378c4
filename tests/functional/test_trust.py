"""Running the package safely (docs/operations.md): a partly missing history is an error, not a rebuild;
--full-refresh can be refused; every writer takes the model's lock; grants stay on the target; commit
versions only grow; long names fit the engine's limit in bytes; text sequences are reported."""
import pytest

from auto_cdc_testkit.harness import target_rows

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
