"""Bounded state (docs/operations.md "Bounded state: compaction"): `auto_cdc.compact` removes the log's
events at or below a horizon that can no longer change the target, records the horizon in the run log,
and later runs ignore events at or below it. Every feed model here re-reads the whole feed each run, so
re-read compacted events must be ignored, never applied again."""
import json
from dataclasses import dataclass

import pytest
from hypothesis import strategies as st

from auto_cdc_testkit import reference as ref
from auto_cdc_testkit.cases import Case, generate, in_batches, property_seed
from auto_cdc_testkit.harness import sorted_rows, target_rows
from test_properties import cases
from test_trust import HOLD, HeldRun, operation_waits_for, postgres_only

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
    assert edited_runs(project, "t") == []  # the compacted log still yields every row of the target


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


def test_older_than_is_cast_to_the_sequence_type(project):
    """`1e3` is a number of an integer sequence (it was refused), `-5` one below every event (nothing to
    compact), `1.5` no integer: refused, never rounded to a horizon that would compact more."""
    project.table("feed", FEED, [(1, 1, "U", "a", "x"), (1, 1000, "U", "b", "x"), (1, 2000, "U", "c", "x")])
    project.feed_model("t", "feed", **BASE)
    project.run()
    result = compact(project, "t", "1.5", check=False)
    assert not result.ok and "older_than: '1.5' is not a value of the sequence column 'seq'" in result.output, result.output[-2000:]
    compact(project, "t", -5)
    assert log_rows(project, "t") == 3
    compact(project, "t", "1e3")
    assert log_rows(project, "t") == 2  # the latest event at or below 1000 stays, the one before goes
    horizons = project.fetch(f'select horizon from {project.relation("t__auto_cdc_runs")} where horizon is not null order by run_id')
    assert horizons == [(-5,), (1000,)]


def test_keys_with_folded_hand_edits_keep_their_events(project):
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **BASE)
    project.run()
    project.execute(f"update {project.relation('t')} set city = 'hand' where id = 2")
    project.insert("feed", COLS, [(2, 7, "U", "r", "x")])
    project.run()  # key 2's hand edit is folded into the log (a mask and edit events)
    key2 = f'select count(*) from {project.relation("t__auto_cdc_log")} where id = 2'
    held, before = project.fetch(key2)[0][0], target_rows(project, "t", SCD1_COLS)
    compact(project, "t", 7)
    assert project.fetch(key2)[0][0] == held
    assert log_rows(project, "t") == held + 1  # key 3's only event; keys 1 and 4 end in a delete
    assert target_rows(project, "t", SCD1_COLS) == before
    project.insert("feed", COLS, [(2, 4, "U", "late", "x"), (2, 8, "U", "s", "x")])
    project.run()
    assert target_rows(project, "t", SCD1_COLS) == [(2, "s", "x"), (3, "c", "x")]
    assert [r[0] for r in edited_runs(project, "t")] == [2]  # the run that folded the edit, no later one


@pytest.mark.dbt_subprocess  # a second dbt process races the run
def test_compaction_waits_for_a_run_of_the_model_and_sees_what_it_applied(project):
    postgres_only(project)
    project.table("feed", FEED, EVENTS)
    project.feed_model("t", "feed", **BASE, pre_hook={"sql": HOLD, "transaction": True})
    project.run()
    project.insert("feed", COLS, [(2, 7, "U", "r", "x")])
    with HeldRun(project) as run:
        # 7 is above every sequence applied before the held run commits: the compaction must wait for it
        proc, out = operation_waits_for(run, "the compaction", "auto_cdc.compact", "--args", "{model: t, older_than: 7}")
    assert proc.returncode == 0 and "auto_cdc.compact t: horizon 7" in out, out[-3000:]
    assert target_rows(project, "t", SCD1_COLS) == [(2, "r", "x"), (3, "c", "x")]
    assert log_rows(project, "t") == 2


# -- property: random feeds, a compaction at a random horizon between runs, then more runs ----------------

@dataclass
class CompactedCase(Case):
    compact_after: int = 0   # the compaction follows this run
    horizon: int = 0         # a sequence value applied by then

    def expected(self) -> list[tuple]:
        events = self.events()
        steps = []
        for run in range(self.runs):
            steps.append([e for e, r in zip(events, self.rows) if r["loaded"] == run])
            if run == self.compact_after:
                steps.append(ref.Compact(self.horizon))
        return sorted_rows(ref.apply_in_runs(steps, self.reference_config()), self.target_columns)


@st.composite
def compacted_cases(draw, index: int):
    """SCD1 (with a truncate in every other case) and SCD2, one sequence column, no partial updates."""
    scd = [1, 2][index % 2]
    case = draw(cases(index, scd=scd, partial=None, multi_seq=False, truncate=None if index % 4 else True))
    after = draw(st.integers(min(r["loaded"] for r in case.rows), case.runs - 1))
    applied = sorted({r["s1"] for r in case.rows if r["loaded"] <= after})
    return CompactedCase(**vars(case), compact_after=after, horizon=draw(st.sampled_from(applied)))


def edited_runs(project, model):
    return project.fetch(f'select run_id from {project.relation(model + "__auto_cdc_runs")} where edited_keys > 0')


COMPACT_EACH = """\
{% macro compact_each(horizons) %}
  {%- for model, horizon in horizons.items() -%}{% do auto_cdc.compact(model, horizon) %}{%- endfor -%}
{% endmacro %}
"""


def test_compaction_at_random_horizons_then_more_events_equals_the_reference_model(make_project):
    for n, batch in enumerate(in_batches(generate(compacted_cases, salt=7))):
        project = make_project(f"compact{n}")
        (project.path / "macros" / "compact_each.sql").write_text(COMPACT_EACH)
        for case in batch:
            case.install(project)
        # one run more than the feeds need: it re-reads every event, compacted ones included
        for run in range(max(c.runs for c in batch) + 1):
            for case in batch:
                case.deliver(project, run)
            project.run(full_refresh=(run == 0))
            horizons = {c.name: c.horizon for c in batch if c.compact_after == run}
            if horizons:
                project.dbt("run-operation", "compact_each", "--args", json.dumps({"horizons": horizons}))
        # and the compacted log still yields every row of the target: no run took one for a hand edit
        mismatches = [f"{case}\n  target   {case.actual(project)}\n  expected {case.expected()}"
                      f"\n  runs that found hand edits: {edited_runs(project, case.name)}"
                      for case in batch if case.actual(project) != case.expected() or edited_runs(project, case.name)]
        assert not mismatches, (f"{len(mismatches)} of {len(batch)} cases differ from the reference model "
                                f"(AUTO_CDC_PROPERTY_SEED={property_seed()} repeats them):\n" + "\n".join(mismatches))
