"""Bounded state (docs/operations.md "Bounded state: compaction"): `auto_cdc.compact` removes the log's
events at or below a horizon that can no longer change the target, records the horizon in the run log,
and later runs ignore events at or below it. Every feed model here re-reads the whole feed each run, so
re-read compacted events must be ignored, never applied again."""
import pytest

from auto_cdc_testkit import reference as ref
from auto_cdc_testkit.cases import Case, check_batch, generate, in_batches
from auto_cdc_testkit.harness import target_rows

FEED = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("name", "varchar"), ("city", "varchar")]
COLS = ["id", "seq", "op", "name", "city"]
BASE = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
            except_column_list=["op", "seq"])
SCD1_COLS = ["id", "name", "city"]
SCD2_COLS = ["id", "name", "city", "__START_AT", "__END_AT"]
# key 1: updates then a delete (a tombstone); key 2: updates, some only in the untracked column city; key 3:
# one upsert; key 4: deletes around an upsert
EVENTS = [(1, 1, "U", "a", "x"), (1, 2, "U", "b", "x"), (1, 3, "U", "b", "y"), (1, 4, "D", None, None),
          (2, 1, "U", "p", "x"), (2, 2, "U", "p", "y"), (2, 3, "U", "p", "z"), (2, 5, "U", "q", "z"),
          (2, 6, "U", "q", "w"), (3, 2, "U", "c", "x"),
          (4, 1, "D", None, None), (4, 2, "U", "d", "x"), (4, 3, "D", None, None), (4, 4, "D", None, None)]


def compact(project, model, older_than, check=True):
    return project.dbt("run-operation", "auto_cdc.compact", "--args", f"{{model: {model}, older_than: {older_than}}}",
                       check=check)


def log_rows(project, model):
    return project.fetch(f'select count(*) from {project.relation(model + "__auto_cdc_log")}')[0][0]


def state(project, model, cols):
    """The target and the change feed, which compaction must leave as they are."""
    changes = project.fetch(f'select * from {project.relation(model + "__auto_cdc_changes")}')
    return target_rows(project, model, cols), sorted(changes, key=repr)


def test_compaction_shrinks_the_scd1_log_and_changes_neither_the_target_nor_the_change_feed(project):
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **BASE, change_data_feed=True)
    project.run()
    before, size = state(project, "t", SCD1_COLS), log_rows(project, "t")
    result = compact(project, "t", 5)
    # keys 1 and 4 end in a delete: their events and the tombstone go; key 2 keeps its latest event at or
    # below 5 (and the one above), key 3 its only one
    assert log_rows(project, "t") == size - 11 == 3
    assert "auto_cdc.compact t: horizon 5, removed 11 of 14 log row(s)" in result.output, result.output
    assert state(project, "t", SCD1_COLS) == before
    horizon = project.fetch(f'select horizon, events_read from {project.relation("t__auto_cdc_runs")} '
                            'where horizon is not null')
    assert horizon == [(5, 0)]
    # the next run re-reads every compacted event: all are ignored, nothing changes
    project.run()
    assert state(project, "t", SCD1_COLS) == before


def test_compaction_keeps_every_scd2_version_and_the_change_feed(project):
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2, track_history_column_list=["name"],
                       change_data_feed=True)
    project.run()
    before = state(project, "t", SCD2_COLS)
    compact(project, "t", 5)
    # key 2: p@2 is absorbed between p@1 (which opens the version) and p@3 (its last upsert, whose values
    # the row holds); key 4: the delete at 1 follows no upsert, nor does the one at 4. Key 1's b@3 is its
    # version's last upsert and stays, like the delete that ends it.
    assert log_rows(project, "t") == 14 - 3
    assert state(project, "t", SCD2_COLS) == before
    project.run()
    assert state(project, "t", SCD2_COLS) == before


def reference_events(rows):
    ops = {"U": ref.UPSERT, "D": ref.DELETE}
    return [ref.Event((r[0],), r[1], ops[r[2]], {"name": r[3], "city": r[4]}) for r in rows]


# after a compaction at 5: late events at or below it (key 1 after its tombstone, key 2 inside its
# version, key 3 at the horizon itself) and events above it (key 1 comes back, key 2 and 4 go on)
LATER = [(1, 5, "U", "late", "x"), (2, 4, "U", "late", "x"), (3, 5, "U", "at", "x"),
         (1, 6, "U", "back", "x"), (2, 7, "U", "r", "x"), (4, 8, "U", "e", "x")]


@pytest.mark.parametrize("scd", [1, 2])
def test_events_after_a_compaction_give_the_reference_result_and_late_ones_below_it_are_ignored(project, scd):
    project.table("feed", FEED, EVENTS)
    track = dict(track_history_column_list=["name"]) if scd == 2 else {}
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=scd, **track)
    project.run()
    compact(project, "t", 5)
    project.insert("feed", COLS, LATER)
    result = project.run()
    config = ref.Config(columns=("id", "name", "city"), key_columns=("id",), scd_type=scd,
                        tracked=("name",) if scd == 2 else None)
    expected = ref.apply_in_runs([reference_events(EVENTS), ref.Compact(5), reference_events(LATER)], config)
    cols = SCD1_COLS if scd == 1 else SCD2_COLS
    assert target_rows(project, "t", cols) == [tuple(r[c] for c in cols) for r in expected]
    # the three late events (and the fourteen re-read ones) are counted as ignored
    assert "ignored_events=17" in result.output, result.output
    runs = project.fetch(f'select events_read, events_applied from {project.relation("t__auto_cdc_runs")} order by run_id')
    assert runs[-1] == (20, 3)
    # a compaction at a greater horizon later folds the events above the first one too
    before = target_rows(project, "t", cols)
    compact(project, "t", 8)
    assert target_rows(project, "t", cols) == before
    project.run()
    assert target_rows(project, "t", cols) == before


def test_a_compaction_with_bad_arguments_fails_naming_the_model_and_changes_nothing(project):
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **BASE)
    project.model("bi", f"select *, seq as st from {project.relation('feed')}", **BASE, stored_as_scd_type="bitemporal",
                  system_sequence_by="st")
    project.feed_model("partial", "feed", **BASE, ignore_null_updates=True)
    project.run()
    size = log_rows(project, "t")
    compact(project, "t", 3)
    after = log_rows(project, "t")
    assert after < size
    cases = {
        "{model: t}": "auto_cdc.compact model 't': cannot compact:\n  - give `older_than`",
        "{model: t, older_than: abc}": "older_than: 'abc' is not a value of the sequence column 'seq'",
        "{model: t, older_than: 7}": "auto_cdc.compact model 't': older_than 7 is above the greatest sequence value applied (6)",
        "{model: t, older_than: 2}": "auto_cdc.compact model 't': older_than 2 is below the model's horizon (3)",
        "{model: bi, older_than: 2}": "auto_cdc.compact model 'bi': cannot compact:\n  - bitemporal targets",
        "{model: partial, older_than: 2}": "auto_cdc.compact model 'partial': cannot compact:\n  - ignore_null_updates:",
        "{model: nope, older_than: 2}": "auto_cdc.compact: no model named 'nope'",
    }
    for args, message in cases.items():
        result = project.dbt("run-operation", "auto_cdc.compact", "--args", args, check=False)
        out = " ".join(result.output.split())
        assert not result.ok and " ".join(message.split()) in out, (args, out[-2000:])
    assert log_rows(project, "t") == after
    assert len(project.fetch(f'select * from {project.relation("t__auto_cdc_runs")} where horizon is not null')) == 1
