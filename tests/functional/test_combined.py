"""One SCD1 target fed by a snapshot and a change feed in one ordering domain (apply_as_snapshot), and
`once` backfills (docs/configuration.md)."""
from hypothesis import strategies as st

from auto_cdc_testkit.cases import CombinedCase, check_batch, generate, in_batches
from auto_cdc_testkit.harness import ordered, target_rows

FEED = [("id", "integer"), ("seq", "integer"), ("name", "varchar"), ("op", "varchar"), ("is_snapshot", "boolean")]
COLS = [c for c, _ in FEED]
COMBINED = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
                apply_as_snapshot="is_snapshot", except_column_list=["seq", "op", "is_snapshot"])


def test_snapshot_at_10_with_events_at_8_12_and_15(project):
    """Snapshot at 10 holds keys 1 and 2. Event at 8 (key 1) is superseded; event at 12 (key 2) is applied;
    key 3 existed before the snapshot, is missing from it, so is deleted at 10, and is restored at 15."""
    project.table("feed", FEED, [
        (3, 5, "three", "U", False),
        (1, 8, "one at 8", "U", False),
        (1, 10, "one", None, True), (2, 10, "two", None, True),
        (2, 12, "two at 12", "U", False),
    ])
    project.feed_model("t", "feed", **COMBINED)
    project.run()
    assert target_rows(project, "t", ["id", "name"]) == [(1, "one"), (2, "two at 12")]
    project.insert("feed", COLS, [(3, 15, "three again", "U", False)])
    project.run()
    assert target_rows(project, "t", ["id", "name"]) == [(1, "one"), (2, "two at 12"), (3, "three again")]
    # the event at 8 arriving only now, and a late delete at 9, are superseded by the snapshot
    project.insert("feed", COLS, [(1, 7, "late", "U", False), (2, 9, None, "D", False)])
    project.run()
    assert target_rows(project, "t", ["id", "name"]) == [(1, "one"), (2, "two at 12"), (3, "three again")]


def test_a_newer_snapshot_wins_and_an_older_one_arriving_late_changes_nothing(project):
    project.table("feed", FEED, [(1, 10, "a", None, True), (2, 10, "b", None, True), (2, 12, "b12", "U", False)])
    project.feed_model("t", "feed", **COMBINED)
    project.run()
    project.insert("feed", COLS, [(1, 20, "a20", None, True)])  # key 2 is not in the snapshot at 20
    project.run()
    assert target_rows(project, "t", ["id", "name"]) == [(1, "a20")]
    project.insert("feed", COLS, [(2, 15, "old snapshot", None, True), (4, 15, "x", None, True)])
    project.run()
    assert target_rows(project, "t", ["id", "name"]) == [(1, "a20")]


def test_invalid_combinations_fail_with_clear_messages(project):
    project.table("feed", FEED, [(1, 10, "a", None, True)])
    project.feed_model("scd2", "feed", **COMBINED, stored_as_scd_type=2)
    project.feed_model("ignore_nulls", "feed", **COMBINED, ignore_null_updates=True)
    project.execute(f"create table {project.relation('reserved')} as select 1 as id, 1 as seq, true as is_snapshot, 1 as \"__END_AT\"")
    project.model("reserved_m", f"select * from {project.relation('reserved')}", materialized="auto_cdc", keys=["id"],
                  sequence_by="seq", apply_as_snapshot="is_snapshot", except_column_list=["is_snapshot"])
    result = project.run(check=False)
    assert "apply_as_snapshot: a snapshot and a change feed combine into an SCD type 1 target only" in result.output
    assert "apply_as_snapshot: cannot be combined with ignore_null_updates" in result.output
    assert "column '__END_AT': reserved" in result.output


def test_once_backfill_runs_on_the_first_run_and_on_full_refresh_only(project):
    project.table("history", FEED, [(1, 1, "from backfill", "U", False)])
    project.table("snaps", [("id", "integer"), ("name", "varchar"), ("v", "integer")], [(1, "snap", 1)])
    project.feed_model("backfill", "history", materialized="auto_cdc", keys=["id"], sequence_by="seq",
                       except_column_list=["op", "is_snapshot"], once=True)
    project.feed_model("snap_once", "snaps", materialized="auto_cdc_snapshot", keys=["id"], once=True)
    project.run()
    assert target_rows(project, "backfill", ["id", "seq", "name"]) == [(1, 1, "from backfill")]
    assert target_rows(project, "snap_once", ["id", "name", "v"]) == [(1, "snap", 1)]
    project.table("history", FEED, [(1, 2, "changed", "U", False), (2, 2, "new", "U", False)])
    project.table("snaps", [("id", "integer"), ("name", "varchar"), ("v", "integer")], [(2, "other", 2)])
    project.run()
    assert target_rows(project, "backfill", ["id", "seq", "name"]) == [(1, 1, "from backfill")]
    assert target_rows(project, "snap_once", ["id", "name", "v"]) == [(1, "snap", 1)]
    project.run(full_refresh=True)
    assert target_rows(project, "backfill", ["id", "seq", "name"]) == ordered([(1, 2, "changed"), (2, 2, "new")])
    assert target_rows(project, "snap_once", ["id", "name", "v"]) == [(2, "other", 2)]


def test_once_snapshot_flow_with_a_change_feed(project):
    """The documented backfill pattern: the snapshot branch is read once (not is_incremental()), the change
    feed on every run; a full refresh reads the snapshot again."""
    project.table("snap", [("id", "integer"), ("name", "varchar"), ("v", "integer")], [(1, "s1", 10), (2, "s2", 10)])
    project.table("cdf", FEED[:4], [(2, 11, "c2", "U")])
    sql = (f"select id, name, v as seq, cast(null as varchar) as op, true as is_snapshot from {project.relation('snap')}"
           " where not {{ is_incremental() }}"
           f" union all select id, name, seq, op, false from {project.relation('cdf')}")
    project.model("t", sql, **COMBINED)
    project.run()
    assert target_rows(project, "t", ["id", "name"]) == [(1, "s1"), (2, "c2")]
    project.table("snap", [("id", "integer"), ("name", "varchar"), ("v", "integer")], [(9, "not read", 20)])
    project.insert("cdf", COLS[:4], [(1, 12, "c1", "U")])
    project.run()
    assert target_rows(project, "t", ["id", "name"]) == [(1, "c1"), (2, "c2")]


@st.composite
def combined_cases(draw, index, runs=None, nonempty=False):
    """`nonempty`: at least one snapshot and one event."""
    # snapshot versions are even and event sequences odd, so an event never ties with a snapshot
    versions = draw(st.lists(st.sampled_from(range(0, 20, 2)), min_size=1 if nonempty else 0, max_size=3, unique=True))
    snapshots = {v: [dict(k=k, name=draw(st.sampled_from(["s", "t", None])))
                     for k in draw(st.lists(st.integers(1, 5), min_size=1, max_size=4, unique=True))] for v in versions}
    events = []
    for k in draw(st.lists(st.integers(1, 5), min_size=1 if nonempty else 0, max_size=4, unique=True)):
        for seq in draw(st.lists(st.sampled_from(range(1, 20, 2)), min_size=1, max_size=4, unique=True)):
            events.append(dict(k=k, seq=seq, name=draw(st.sampled_from(["a", "b", None])), op=draw(st.sampled_from("UUD"))))
    runs = draw(st.integers(1, 3)) if runs is None else runs
    for e in events:
        e["loaded"] = draw(st.integers(0, runs - 1))
    delivered = {v: draw(st.integers(0, runs - 1)) for v in versions}
    return CombinedCase(name=f"combined_{index}", events=events, snapshots=snapshots, delivered=delivered)


def test_random_snapshots_interleaved_with_events_equal_the_reference_model(make_project):
    """Generated combined cases (auto_cdc_testkit.cases.generate: the session's seed), all but every
    eighth with both snapshots and events, applied together in one project."""
    generated = generate(lambda i: combined_cases(i, nonempty=i % 8 != 7), salt=3)
    for n, batch in enumerate(in_batches(generated)):
        check_batch(make_project(f"batch{n}"), batch)
