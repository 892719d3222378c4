"""Named fixtures at the edges where single-line mistakes hide: the cursor boundary, a multi-column
sequence that ties on its first column, a snapshot key that leaves and comes back within one run, an
SCD2 upsert right after a delete with unchanged tracked values, and one bitemporal event learned at
two system times in one batch. Each expected table is written out by hand and checked against the
reference model too."""
import pytest

from auto_cdc_testkit.cases import Case, SnapshotCase
from auto_cdc_testkit.harness import ordered, target_rows

pytestmark = pytest.mark.quick

FEED = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("a", "varchar"), ("loaded_at", "integer")]
COLS = [c for c, _ in FEED]
BASE = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
            except_column_list=["op", "seq", "loaded_at"])
HISTORY = ["id", "a", "__START_AT", "__END_AT"]


def test_cursor_reads_rows_with_the_cursor_value_already_applied(project):
    """A later delivery whose cursor equals the greatest one applied (the same load batch, still being
    written when the run read it) is read and applied: the cursor filter includes its boundary."""
    project.table("feed", FEED, [(1, 1, "U", "a1", 10), (2, 1, "U", "b1", 10)])
    project.feed_model("t1", "feed", **BASE, cursor_column="loaded_at")
    project.feed_model("t2", "feed", **BASE, cursor_column="loaded_at", stored_as_scd_type=2)
    project.run()
    # same cursor value 10 as the rows applied above: an update, a new key and a delete
    project.insert("feed", COLS, [(1, 2, "U", "a2", 10), (3, 1, "U", "c1", 10), (2, 2, "D", None, 10)])
    project.run()
    assert target_rows(project, "t1", ["id", "a"]) == [(1, "a2"), (3, "c1")]
    assert target_rows(project, "t2", HISTORY) == [(1, "a1", 1, 2), (1, "a2", 2, None), (2, "b1", 1, 2),
                                                   (3, "c1", 1, None)]
    # a later run with a greater cursor value still applies exactly the new rows
    project.insert("feed", COLS, [(3, 2, "U", "c2", 11)])
    project.run()
    assert target_rows(project, "t1", ["id", "a"]) == [(1, "a2"), (3, "c2")]
    runs = project.rows("t1__auto_cdc_runs")
    assert max(int(r["cursor_value"]) for r in runs if r["cursor_value"] is not None) == 11


def _tied_first_column_rows():
    """Twelve keys, each with three events that share the first sequence column and differ in the
    second, delivered in a different order per key (so no tie-break on arrival order can pass)."""
    orders = [(0, 1, 2), (2, 1, 0), (1, 0, 2), (2, 0, 1), (0, 2, 1), (1, 2, 0)]
    rows = []
    for key in range(1, 13):
        order = orders[(key - 1) % len(orders)]
        for minor in order:
            # the values do not sort like the sequence, nor like the arrival
            rows.append(dict(k1=key, k2=None, s1=5, s2=minor, op="U", a=None,
                             b=["m", "z", "a"][(minor + key) % 3] + str(minor), cols=None, st=0, loaded=0))
    return rows


@pytest.mark.parametrize("scd", [1, 2])
def test_multi_column_sequence_ties_on_its_first_column_are_ordered_by_the_next(project, scd):
    case = Case(name=f"t{scd}", scd=scd, key_columns=["k1"], seq_columns=["s1", "s2"], rows=_tied_first_column_rows())
    case.install(project)
    case.deliver(project, 0)
    project.run()
    labels = {key: {minor: r["b"] for r in case.rows if r["k1"] == key for minor in [r["s2"]]} for key in range(1, 13)}
    if scd == 1:
        expected = ordered((key, None, labels[key][2]) for key in labels)
    else:  # versions (5,0) -> (5,1) -> (5,2), each ending where the next starts
        expected = ordered((key, None, labels[key][m], (5, m), (5, m + 1) if m < 2 else None)
                           for key in labels for m in range(3))
    assert case.expected() == expected
    assert case.actual(project) == expected


@pytest.mark.parametrize("scd", [1, 2])
def test_snapshot_key_that_leaves_and_comes_back_within_one_run(project, scd):
    """Versions 1-4 in one run: key 1 is in v1, missing from v2 and v3, back in v4 with the same values;
    key 2 leaves in v2 and comes back changed in v3. A key that comes back is a new row (SCD2: a new
    version after a gap), not the one it had before."""
    snaps = {1: [dict(k=1, c="x", d=0), dict(k=2, c="y", d=0), dict(k=3, c="z", d=0)],
             2: [dict(k=3, c="z", d=0)],
             3: [dict(k=2, c="y2", d=0), dict(k=3, c="z", d=0)],
             4: [dict(k=1, c="x", d=0), dict(k=2, c="y2", d=0), dict(k=3, c="z", d=0)]}
    case = SnapshotCase(name="s", scd=scd, snapshots=snaps, delivered={v: 0 for v in snaps})
    case.install(project)
    case.deliver(project, 0)
    project.run()
    if scd == 1:
        expected = [(1, "x", 0), (2, "y2", 0), (3, "z", 0)]
    else:
        expected = ordered([(1, "x", 0, 1, 2), (1, "x", 0, 4, None), (2, "y", 0, 1, 2), (2, "y2", 0, 3, None),
                            (3, "z", 0, 1, None)])
    assert case.expected() == expected
    assert case.actual(project) == expected


@pytest.mark.parametrize("one_run", [True, False], ids=["one_run", "delete_then_upsert_in_the_next_run"])
def test_scd2_upsert_right_after_a_delete_with_unchanged_values_opens_a_new_version(project, one_run):
    """A key deleted at 2 and upserted at 3 with the same tracked values it had (key 1: the delete row
    carries them too; key 3: they are NULL, like a delete's): the history has a gap [2, 3); the upsert
    is not absorbed into the version the delete closed."""
    events = [(1, 1, "U", "a", 1), (1, 2, "D", "a", 1), (1, 3, "U", "a", 2), (2, 1, "U", "b", 1),
              (3, 1, "U", None, 1), (3, 2, "D", None, 1), (3, 3, "U", None, 2)]
    project.table("feed", FEED)
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2)
    project.feed_model("t_tracked", "feed", **BASE, stored_as_scd_type=2, track_history_column_list=["a"])
    if one_run:
        project.insert("feed", COLS, events)
        project.run()
    else:
        project.insert("feed", COLS, [e for e in events if e[4] == 1])
        project.run()
        project.insert("feed", COLS, [e for e in events if e[4] == 2])
        project.run()
    expected = [(1, "a", 1, 2), (1, "a", 3, None), (2, "b", 1, None), (3, None, 1, 2), (3, None, 3, None)]
    rows = [dict(k1=i, k2=None, s1=s, s2=None, op=op, a=None, b=v, cols=None, st=0, loaded=0)
            for i, s, op, v, _ in events]
    for tracked in (None, ["b"]):
        reference = Case(name="r", scd=2, key_columns=["k1"], seq_columns=["s1"], rows=rows, tracked=tracked)
        assert [(r[0], r[2], r[3], r[4]) for r in reference.expected()] == ordered(expected)
    assert target_rows(project, "t", HISTORY) == ordered(expected)
    assert target_rows(project, "t_tracked", HISTORY) == ordered(expected)


def test_bitemporal_event_learned_at_two_system_times_in_one_batch_counts_from_the_earliest(project):
    """The same event (key, business time, values) arrives twice in one run, learned at system times 7
    and 3: it is one version, known from 3. Another event's pair arrives earliest-last."""
    rows = [dict(k1=1, k2=None, s1=1, s2=None, op="U", a=None, b="v1", cols=None, st=1, loaded=0),
            dict(k1=1, k2=None, s1=5, s2=None, op="U", a=None, b="v5", cols=None, st=7, loaded=0),
            dict(k1=1, k2=None, s1=5, s2=None, op="U", a=None, b="v5", cols=None, st=3, loaded=0),
            dict(k1=2, k2=None, s1=2, s2=None, op="U", a=None, b="w", cols=None, st=2, loaded=0),
            dict(k1=2, k2=None, s1=2, s2=None, op="U", a=None, b="w", cols=None, st=6, loaded=0)]
    case = Case(name="bt", scd="bitemporal", key_columns=["k1"], seq_columns=["s1"], rows=rows)
    case.install(project)
    case.deliver(project, 0)
    project.run()
    # (k1, a, b, __START_AT, __END_AT, __SYSTEM_START_AT, __SYSTEM_END_AT)
    expected = ordered([(1, None, "v1", 1, None, 1, 3), (1, None, "v1", 1, 5, 3, None), (1, None, "v5", 5, None, 3, None),
                        (2, None, "w", 2, None, 2, None)])
    assert case.expected() == expected
    assert case.actual(project) == expected
