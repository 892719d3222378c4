"""DML on targets (docs/semantics.md, "DML on targets"): rows inserted, updated or deleted by hand are respected by
later runs, including runs whose events touch the edited keys. Every feed model here re-reads the
whole feed each run, so re-read events must stay duplicates after edits."""
from decimal import Decimal

from auto_cdc_testkit.harness import sorted_rows, target_rows

FEED = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("name", "varchar"), ("city", "varchar")]
COLS = ["id", "seq", "op", "name", "city"]
BASE = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
            except_column_list=["op", "seq"])
SCD2_COLS = ["id", "name", "__START_AT", "__END_AT"]


def paths_taken(project, model: str = "t") -> list[tuple]:
    """Each run's (fast_keys, replayed_keys, edited_keys) from the model's run log, in order."""
    return project.fetch(f"select fast_keys, replayed_keys, edited_keys from {project.relation(model + '__auto_cdc_runs')} "
                         "order by run_id")


def test_seed_hand_inserted_scd2_row_survives_and_is_split_by_later_events(project):
    project.table("feed", FEED, [(1, 1, "U", "Ann", "x")])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2)
    project.run()
    # the documented statement (here with the target's columns): an open version starting at 5
    project.execute(f'insert into {project.relation("t")} (id, name, "__START_AT", "__END_AT") values (123, \'John Doe\', 5, NULL)')
    # a run that does not touch key 123 leaves it alone
    project.insert("feed", COLS, [(1, 2, "U", "Bob", "x")])
    project.run()
    assert target_rows(project, "t", SCD2_COLS) == [(1, "Ann", 1, 2), (1, "Bob", 2, None), (123, "John Doe", 5, None)]
    # a later event closes the hand row at its sequence
    project.insert("feed", COLS, [(123, 7, "U", "John Smith", "y")])
    project.run()
    assert target_rows(project, "t", SCD2_COLS)[2:] == [(123, "John Doe", 5, 7), (123, "John Smith", 7, None)]
    # late events split it in their place: one inside it, one before it
    project.insert("feed", COLS, [(123, 6, "U", "Johnny", "y"), (123, 3, "U", "J.", "y")])
    project.run()
    assert target_rows(project, "t", SCD2_COLS)[2:] == [
        (123, "J.", 3, 5), (123, "John Doe", 5, 6), (123, "John Smith", 7, None), (123, "Johnny", 6, 7)]
    # the edit is in the history for good: a run with nothing new changes nothing
    before = target_rows(project, "t", SCD2_COLS + ["city"])
    project.run()
    assert target_rows(project, "t", SCD2_COLS + ["city"]) == before
    runs = project.fetch(f'select run_id, edited_keys from {project.relation("t__auto_cdc_runs")} order by run_id')
    assert [r[1] for r in runs] == [0, 0, 1, 0, 0]


def test_scd2_hand_update_and_delete_of_versions_are_kept_by_later_runs(project):
    project.table("feed", FEED, [(1, 1, "U", "a1", "x"), (1, 3, "U", "a3", "x"), (1, 5, "U", "a5", "x"),
                                 (2, 1, "U", "b1", "x"), (2, 4, "U", "b4", "x")])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2)
    project.run()
    t = project.relation("t")
    # key 1: rename the middle version; key 2: delete its closed first version (a gap before 4)
    project.execute(f"update {t} set name = 'A3!' where id = 1 and \"__START_AT\" = 3")
    project.execute(f'delete from {t} where id = 2 and "__START_AT" = 1')
    project.insert("feed", COLS, [(1, 7, "U", "a7", "x"), (2, 6, "U", "b6", "x"), (1, 4, "U", "late", "x")])
    project.run()
    assert target_rows(project, "t", SCD2_COLS) == [
        (1, "A3!", 3, 4), (1, "a1", 1, 3), (1, "a5", 5, 7), (1, "a7", 7, None), (1, "late", 4, 5),
        (2, "b4", 4, 6), (2, "b6", 6, None)]
    # deleting every version of a key leaves a tombstone at its last sequence: older events stay out
    project.execute(f"delete from {t} where id = 2")
    project.insert("feed", COLS, [(2, 8, "U", "b8", "x")])
    project.run()
    assert [r for r in target_rows(project, "t", SCD2_COLS) if r[0] == 2] == [(2, "b8", 8, None)]


def test_scd2_hand_edit_of_a_closed_version_is_folded_in_when_the_key_is_next_replayed(project):
    """The fast path compares a key's open version only: a closed version edited to equal its predecessor
    stays as written through in-order runs, and is merged with it when a late event replays the key."""
    project.table("feed", FEED, [(1, 10, "U", "a", "x"), (1, 20, "U", "b", "x"), (1, 30, "U", "c", "x")])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2)
    project.run()
    project.execute(f"""update {project.relation('t')} set name = 'a' where "__START_AT" = 20""")
    project.insert("feed", COLS, [(1, 40, "U", "d", "x")])
    project.run()
    assert target_rows(project, "t", SCD2_COLS) == [(1, "a", 10, 20), (1, "a", 20, 30), (1, "c", 30, 40), (1, "d", 40, None)]
    project.insert("feed", COLS, [(1, 35, "U", "e", "x")])
    project.run()
    assert target_rows(project, "t", SCD2_COLS) == [(1, "a", 10, 30), (1, "c", 30, 35), (1, "d", 40, None), (1, "e", 35, 40)]
    runs = paths_taken(project)
    assert runs[1:] == [(1, 0, 0), (0, 1, 1)]


def test_scd2_hand_delete_or_insert_of_a_closed_version_is_folded_in_by_the_next_run_that_touches_the_key(project):
    """The fast path counts an SCD2 key's versions against the ones its events make: a closed version deleted
    or inserted by hand sends the key to the replay in the next run that touches it, which folds the edit into
    the log then (unlike a hand update of a closed version's values, above)."""
    project.table("feed", FEED, [(1, 10, "U", "a", "x"), (1, 20, "U", "b", "x"), (2, 20, "U", "p", "x")])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2)
    project.run()
    t = project.relation("t")
    # key 1: its closed version deleted; key 2: a closed version inserted before its first (a gap after it)
    project.execute(f'delete from {t} where id = 1 and "__START_AT" = 10')
    project.execute(f"insert into {t} (id, name, city, \"__START_AT\", \"__END_AT\") values (2, 'o', 'x', 5, 10)")
    project.insert("feed", COLS, [(1, 30, "U", "c", "x"), (2, 30, "U", "q", "x")])
    project.run()
    assert target_rows(project, "t", SCD2_COLS) == [
        (1, "b", 20, 30), (1, "c", 30, None), (2, "o", 5, 10), (2, "p", 20, 30), (2, "q", 30, None)]
    runs = paths_taken(project)
    assert runs[1:] == [(0, 2, 2)], "both keys are replayed and their edits folded in by the run that touches them"


def test_scd2_closed_version_whose_times_are_edited_past_a_new_event_sends_its_key_to_the_replay(project):
    """A hand update of a closed version's __END_AT or __START_AT leaves the key's open version and its number
    of versions as they were, so only the versions' times tell the fast path that the key's rows no longer
    come before its new event: such a key is replayed, and the edited times become events like any hand row
    (an upsert at the start, a delete at an end no other version starts at)."""
    project.table("feed", FEED, [(1, 10, "U", "a", "x"), (1, 30, "U", "c", "x"),
                                 (2, 10, "U", "p", "x"), (2, 30, "U", "q", "x")])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2)
    project.run()
    t = project.relation("t")
    # key 1: its closed version's end moved past the coming event; key 2: its closed version moved after it
    project.execute(f'update {t} set "__END_AT" = 45 where id = 1 and "__START_AT" = 10')
    project.execute(f'update {t} set "__START_AT" = 50, "__END_AT" = 60 where id = 2 and "__START_AT" = 10')
    project.insert("feed", COLS, [(1, 40, "U", "d", "x"), (2, 40, "U", "r", "x")])
    project.run()
    assert target_rows(project, "t", SCD2_COLS) == [
        (1, "a", 10, 30), (1, "c", 30, 40), (1, "d", 40, 45),
        (2, "p", 50, 60), (2, "q", 30, 40), (2, "r", 40, 50)]
    runs = paths_taken(project)
    assert runs[1:] == [(0, 2, 2)]


def test_scd2_hand_updated_version_is_not_split_by_an_upsert_it_had_absorbed(project):
    """An upsert that changed no tracked value was absorbed into its version. After a hand update of that
    version, the upsert no longer agrees with the row, so folding the edit in must not copy it: the version
    stays whole when a late event replays the key."""
    project.table("feed", FEED, [(1, 4, "U", "a", "x"), (1, 5, "U", "a", "x"), (1, 6, "D", "a", "x")])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2)
    project.run()
    assert target_rows(project, "t", SCD2_COLS) == [(1, "a", 4, 6)]
    project.execute(f"""update {project.relation('t')} set name = 'edited' where id = 1 and "__START_AT" = 4""")
    project.insert("feed", COLS, [(1, 2, "U", "z", "x")])
    project.run()
    assert target_rows(project, "t", SCD2_COLS) == [(1, "edited", 4, 6), (1, "z", 2, 4)]


def test_scd2_delete_after_a_delete_of_a_hand_edited_key_is_kept_by_a_later_late_event(project):
    """A delete that follows another delete leaves no trace in an SCD2 key's rows, so the rows alone cannot
    carry it: after the key's hand edit is folded in, a later late event must still see it in the history."""
    project.table("feed", FEED, [(2, 0, "U", "a", "p"), (2, 2, "U", "b", "p")])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2)
    project.run()
    project.execute(f'update {project.relation("t")} set city = \'edited\' where id = 2 and "__START_AT" = 0')
    project.insert("feed", COLS, [(2, 8, "D", "b", "q"), (2, 3, "D", "a", "p")])
    project.run()
    assert target_rows(project, "t", SCD2_COLS + ["city"]) == [(2, "a", 0, 2, "edited"), (2, "b", 2, 3, "p")]
    project.insert("feed", COLS, [(2, 6, "U", "b", "p")])
    project.run()
    assert target_rows(project, "t", SCD2_COLS + ["city"]) == [
        (2, "a", 0, 2, "edited"), (2, "b", 2, 3, "p"), (2, "b", 6, 8, "p")]


def test_scd1_hand_edits_keep_their_sequence(project):
    project.table("feed", FEED, [(1, 5, "U", "a", "x"), (2, 5, "U", "b", "x"), (3, 5, "U", "c", "x")])
    project.feed_model("t", "feed", **BASE)
    project.run()
    t = project.relation("t")
    project.execute(f"update {t} set name = 'A!' where id = 1")
    project.execute(f"delete from {t} where id = 2")
    project.execute(f"insert into {t} (id, name, city) values (9, 'hand', 'z')")
    # late events: no effect on the edited key 1, no resurrection of the deleted key 2;
    # key 9 has no sequence of its own, so its first event replaces the hand row
    project.insert("feed", COLS, [(1, 3, "U", "late", "x"), (2, 4, "U", "late", "x"), (9, 1, "U", "nine", "n"),
                                  (3, 6, "U", "c6", "x")])
    project.run()
    assert target_rows(project, "t", ["id", "name", "city"]) == [(1, "A!", "x"), (3, "c6", "x"), (9, "nine", "n")]
    # newer events win over the edits
    project.insert("feed", COLS, [(1, 8, "U", "a8", "x"), (2, 8, "U", "b8", "x")])
    project.run()
    assert target_rows(project, "t", ["id", "name", "city"]) == [(1, "a8", "x"), (2, "b8", "x"), (3, "c6", "x"), (9, "nine", "n")]


def test_scd1_hand_row_with_its_own_sequence_orders_by_it(project):
    project.table("feed", FEED, [(1, 5, "U", "a", "x")])
    project.feed_model("t", "feed", **{**BASE, "except_column_list": ["op"]})
    project.run()
    project.execute(f"insert into {project.relation('t')} (id, seq, name, city) values (7, 10, 'hand', 'z')")
    project.insert("feed", COLS, [(7, 9, "U", "older", "x")])
    project.run()
    assert target_rows(project, "t", ["id", "seq", "name"]) == [(1, 5, "a"), (7, 10, "hand")]
    project.insert("feed", COLS, [(7, 11, "U", "newer", "x")])
    project.run()
    assert target_rows(project, "t", ["id", "seq", "name"]) == [(1, 5, "a"), (7, 11, "newer")]


def test_hand_set_null_is_kept_by_ignore_null_updates(project):
    project.table("feed", FEED, [(1, 1, "U", "a", "x")])
    project.feed_model("t", "feed", **BASE, ignore_null_updates=True)
    project.feed_model("t2", "feed", **BASE, ignore_null_updates=True, stored_as_scd_type=2,
                       track_history_column_list=["name"])
    project.run()
    for name in ("t", "t2"):
        project.execute(f"update {project.relation(name)} set city = NULL where id = 1")
    project.insert("feed", COLS, [(1, 2, "U", None, None), (1, 3, "U", "b", None)])
    project.run()
    assert target_rows(project, "t", ["id", "name", "city"]) == [(1, "b", None)]
    assert target_rows(project, "t2", ["id", "name", "city", "__START_AT", "__END_AT"]) == [
        (1, "a", None, 1, 3), (1, "b", None, 3, None)]


def test_truncate_reaches_hand_inserted_keys(project):
    project.table("feed", FEED, [(1, 1, "U", "a", "x")])
    project.feed_model("t", "feed", **BASE, apply_as_truncates="op = 'T'")
    project.run()
    project.execute(f"insert into {project.relation('t')} (id, name, city) values (9, 'hand', 'z')")
    project.insert("feed", COLS, [(None, 3, "T", None, None), (2, 4, "U", "b", "y")])
    project.run()
    assert target_rows(project, "t", ["id", "name"]) == [(2, "b")]


def test_source_event_at_the_same_sequence_replaces_a_hand_row(project):
    project.table("feed", FEED, [(1, 1, "U", "a", "x")])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2)
    project.run()
    project.execute(f'insert into {project.relation("t")} (id, name, city, "__START_AT", "__END_AT") values (5, \'hand\', \'z\', 5, NULL)')
    project.insert("feed", COLS, [(5, 6, "U", "six", "y")])
    project.run()
    project.insert("feed", COLS, [(5, 5, "U", "source", "y")])
    project.run()
    assert [r for r in target_rows(project, "t", SCD2_COLS) if r[0] == 5] == [(5, "six", 6, None), (5, "source", 5, 6)]


def test_invalid_hand_rows_fail_with_a_clear_error(project):
    project.table("feed", FEED, [(1, 1, "U", "a", "x")])
    project.feed_model("t", "feed", **BASE)
    project.feed_model("t2", "feed", **BASE, stored_as_scd_type=2)
    project.run()
    project.execute(f"insert into {project.relation('t')} (id, name) values (1, 'twin')")
    project.execute(f'insert into {project.relation("t2")} (id, name, "__START_AT", "__END_AT") values (1, \'bad\', 4, 2)')
    project.insert("feed", COLS, [(1, 2, "U", "b", "x")])
    result = project.run(check=False)
    assert not result.ok
    assert "auto_cdc model 't'" in result.output and "hold two rows for one key" in result.output and "id=1" in result.output
    assert "auto_cdc model 't2'" in result.output and "not a valid history" in result.output


def test_scd2_hand_edit_with_the_sequence_as_an_output_column(project):
    # the version's seq column shows its last absorbed event (track_history on name only)
    project.table("feed", FEED, [(1, 1, "U", "a", "x"), (1, 3, "U", "a", "y"), (1, 6, "U", "b", "y")])
    project.feed_model("t", "feed", **{**BASE, "except_column_list": ["op"]}, stored_as_scd_type=2,
                       track_history_column_list=["name"])
    project.run()
    cols = ["id", "seq", "name", "city", "__START_AT", "__END_AT"]
    assert target_rows(project, "t", cols) == [(1, 3, "a", "y", 1, 6), (1, 6, "b", "y", 6, None)]
    project.execute(f"update {project.relation('t')} set city = 'Y!' where \"__START_AT\" = 1")
    project.insert("feed", COLS, [(1, 8, "U", "c", "z")])
    project.run()
    assert target_rows(project, "t", cols) == [(1, 3, "a", "Y!", 1, 6), (1, 6, "b", "y", 6, 8), (1, 8, "c", "z", 8, None)]
    # a late event inside the edited version is absorbed after the hand row's own sequence
    project.insert("feed", COLS, [(1, 4, "U", "a", "late")])
    project.run()
    assert target_rows(project, "t", cols)[0] == (1, 4, "a", "late", 1, 6)


def test_scd2_hand_set_sequence_outside_its_version_makes_no_event(project):
    """A version's sequence column (an output column, not tracked) shows the last event the version absorbed, so
    a value inside the version is folded in as an event there. A value outside the version is no event of it:
    a sequence edited past the version's end must not start a version of its own, nor one edited before its
    start move the version's start, when the key is replayed."""
    project.table("feed", FEED, [(1, 1, "U", "a", "x"), (1, 3, "U", "a", "y"), (1, 6, "U", "b", "y"),
                                 (2, 2, "U", "a", "x"), (2, 3, "U", "a", "y"), (2, 6, "U", "b", "y")])
    project.feed_model("t", "feed", **{**BASE, "except_column_list": ["op"]}, stored_as_scd_type=2,
                       track_history_column_list=["name"])
    project.run()
    cols = ["id", "seq", "name", "city", "__START_AT", "__END_AT"]
    t = project.relation("t")
    project.execute(f"update {t} set seq = 9, city = 'Y!' where id = 1 and \"__START_AT\" = 1")
    project.execute(f"update {t} set seq = 1, city = 'Y!' where id = 2 and \"__START_AT\" = 2")
    project.insert("feed", COLS, [(1, 8, "U", "c", "z"), (2, 8, "U", "c", "z")])
    project.run()
    assert target_rows(project, "t", cols) == [
        (1, 1, "a", "Y!", 1, 6), (1, 6, "b", "y", 6, 8), (1, 8, "c", "z", 8, None),
        (2, 2, "a", "Y!", 2, 6), (2, 6, "b", "y", 6, 8), (2, 8, "c", "z", 8, None)]


def test_erase_keys_removes_every_trace_of_a_key(project):
    project.table("feed", FEED, [(1, 1, "U", "a", "x"), (1, 2, "D", None, None), (2, 1, "U", "b", "y"),
                                 (3, 1, "U", "c", "z")])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2, change_data_feed=True)
    project.run()
    project.execute(f'update {project.relation("t")} set name = \'C!\' where id = 3')
    project.insert("feed", COLS, [(3, 2, "U", "c2", "z")])
    project.run()
    result = project.dbt("run-operation", "auto_cdc.erase_keys", "--args", "{model: t, where: 'id in (1, 3)'}")
    assert "2 key(s) erased from t: 3 row(s), t__auto_cdc_log: 6 row(s)" in result.output, result.output
    for name in ("t", "t__auto_cdc_log"):
        assert {r["id"] for r in project.rows(name)} == {2}, name
    # the change feed keeps only the erasure: a delete of each erased row, with its key and nothing else
    erasure = [(r["id"], r["__START_AT"], r["_change_type"], r["name"], r["city"], r["__END_AT"])
               for r in project.rows("t__auto_cdc_changes") if r["id"] != 2]
    assert sorted(erasure) == [(1, 1, "delete", None, None, None), (3, 1, "delete", None, None, None),
                               (3, 2, "delete", None, None, None)]
    # the feed still holds key 1 and 3's events: erase them there too, or the next run applies them again
    project.table("feed", FEED, [(2, 1, "U", "b", "y")])
    project.run()
    assert target_rows(project, "t", SCD2_COLS) == [(2, "b", 1, None)]
    bad = project.dbt("run-operation", "auto_cdc.erase_keys", "--args", "{model: feed_missing, where: 'id = 1'}", check=False)
    assert not bad.ok and "no model named 'feed_missing'" in bad.output


def test_widened_source_types_widen_the_target_and_the_log(project):
    feed = [("id", "integer"), ("seq", "integer"), ("amount", "decimal(6,2)"), ("code", "varchar(3)"), ("n", "integer")]
    project.table("feed", feed, [(1, 1, "1.50", "abc", 7)])
    for mode in ("append_new_columns", "sync_all_columns", "fail"):
        project.feed_model(f"t_{mode}", "feed", materialized="auto_cdc", keys=["id"], sequence_by="seq",
                           stored_as_scd_type=2, on_schema_change=mode)
    project.run()
    project.execute(f'drop table {project.relation("feed")}')
    wide = [("id", "bigint"), ("seq", "integer"), ("amount", "decimal(12,3)"), ("code", "varchar(20)"), ("n", "bigint")]
    project.table("feed", wide, [(1, 1, "1.50", "abc", 7), (10_000_000_000, 2, "123456.125", "a longer code", 2**40)])
    result = project.run(check=False)
    assert "auto_cdc model 't_fail'" in result.output and "widened: " in result.output
    for mode in ("append_new_columns", "sync_all_columns"):
        rows = target_rows(project, f"t_{mode}", ["id", "amount", "code", "n"])
        # values compare as numbers: Postgres widens numeric(6,2) and numeric(12,3) to plain numeric
        assert [(r[0], Decimal(str(r[1])), r[2], r[3]) for r in rows] == [
            (1, Decimal("1.5"), "abc", 7), (10_000_000_000, Decimal("123456.125"), "a longer code", 2**40)], mode


# -- property: hand edits, then random later events in random runs ------------------------------------------
# After a first run, random rows of the targets are edited by hand (a column set to a fresh value, or the row
# deleted). The rest of the feed then arrives in random order over two more runs, late events included. The
# expected table follows the rules above, written with the reference model: a key whose rows were edited and
# whose later events reach it is the replay of the edit events (SCD1: the row, or a tombstone, at the key's
# last sequence; SCD2: an upsert at each row's start, a delete at each end no row starts at, a tombstone when
# no row is left, and the earlier events the rows agree with but carry no trace of: a delete where no row is,
# an upsert inside a row with its values) followed by those events; an edited key that no later event reaches
# keeps its hand rows.
from hypothesis import strategies as st  # noqa: E402

from auto_cdc_testkit import reference as ref  # noqa: E402
from auto_cdc_testkit.cases import generate, in_batches, property_seed  # noqa: E402

EDIT_COLS = ["k", "s", "op", "a", "b", "loaded"]


@st.composite
def edit_cases(draw, index, scd=None):
    scd = draw(st.sampled_from([1, 2])) if scd is None else scd
    rows = []
    for k in draw(st.lists(st.integers(1, 4), min_size=1, max_size=4, unique=True)):
        for s in draw(st.lists(st.integers(0, 12), min_size=1, max_size=5, unique=True)):
            rows.append(dict(k=k, s=s, op=draw(st.sampled_from("UUUD")), a=draw(st.integers(0, 1)),
                             b=draw(st.sampled_from(["p", "q"])), loaded=draw(st.integers(0, 2))))
    edits = draw(st.lists(st.tuples(st.integers(0, 9), st.sampled_from(["update", "delete"])), min_size=1, max_size=3))
    return dict(name=f"edit_{index}", scd=scd, rows=draw(st.permutations(rows)), edits=edits)


def _event(r):
    return ref.Event(key=(r["k"],), seq=(r["s"],), op=ref.DELETE if r["op"] == "D" else ref.UPSERT,
                     values={"a": r["a"], "b": r["b"]})


def _edit_events(key, hand_rows, last_seq, scd, earlier=()):
    if scd == 1:
        if hand_rows:
            return [ref.Event(key=key, seq=(last_seq,), op=ref.UPSERT, values={"a": hand_rows[0]["a"], "b": hand_rows[0]["b"]})]
        return [ref.Event(key=key, seq=(last_seq,), op=ref.DELETE, values={})]
    starts = {r["__START_AT"] for r in hand_rows}
    out = [] if hand_rows else [ref.Event(key=key, seq=(last_seq,), op=ref.DELETE, values={})]
    for r in hand_rows:
        out.append(ref.Event(key=key, seq=(r["__START_AT"],), op=ref.UPSERT, values={"a": r["a"], "b": r["b"]}))
        if r["__END_AT"] is not None and r["__END_AT"] not in starts:
            out.append(ref.Event(key=key, seq=(r["__END_AT"],), op=ref.DELETE, values={}))
    # the earlier events the rows agree with but carry no trace of are kept: a delete where no row is, an
    # upsert inside a row with its values
    def inside(r, s, closed):
        end = r["__END_AT"]
        return (r["__START_AT"] <= s if closed else r["__START_AT"] < s) and (end is None or (s <= end if closed else s < end))
    for e in earlier:
        if any(o.seq == e.seq and o.op == e.op for o in out):
            continue
        if e.op == ref.DELETE and not any(inside(r, e.seq[0], True) for r in hand_rows):
            out.append(e)
        elif e.op == ref.UPSERT and any(inside(r, e.seq[0], False) and (r["a"], r["b"]) == (e.values["a"], e.values["b"])
                                        for r in hand_rows):
            out.append(e)
    return out


def test_hand_edits_then_random_later_events_follow_the_rules(make_project):
    """Generated cases (auto_cdc_testkit.cases.generate: the session's seed), SCD1 and SCD2 in turn, each
    with at least one hand edit, applied together in one project."""
    generated = generate(lambda i: edit_cases(i, scd=1 + i % 2), salt=4)
    for n, batch in enumerate(in_batches(generated)):
        _check_edit_batch(make_project(f"batch{n}"), batch)


def _check_edit_batch(project, batch):
    config = {1: ref.Config(columns=("k", "a", "b"), key_columns=("k",)),
              2: ref.Config(columns=("k", "a", "b"), key_columns=("k",), scd_type=2)}
    target_cols = {1: ["k", "a", "b"], 2: ["k", "a", "b", "__START_AT", "__END_AT"]}
    for case in batch:
        project.table(case["name"] + "_feed", [("k", "integer"), ("s", "integer"), ("op", "varchar"), ("a", "integer"),
                                               ("b", "varchar"), ("loaded", "integer")])
        project.feed_model(case["name"], case["name"] + "_feed", materialized="auto_cdc", keys=["k"], sequence_by="s",
                           apply_as_deletes="op = 'D'", except_column_list=["op", "s", "loaded"],
                           stored_as_scd_type=case["scd"])
    hand = {}
    for run in range(3):
        for case in batch:
            project.insert(case["name"] + "_feed", EDIT_COLS,
                           [tuple(r[c] for c in EDIT_COLS) for r in case["rows"] if r["loaded"] == run])
        project.run(full_refresh=(run == 0))
        if run == 0:
            # the first run, before any edit, must equal the reference: the edited keys are then told by
            # comparing the reference with the rows read back after the edits
            wrong = []
            for case in batch:
                first = [_event(r) for r in case["rows"] if r["loaded"] == 0]
                want = sorted_rows(ref.apply(first, config[case["scd"]]), target_cols[case["scd"]])
                got = target_rows(project, case["name"], target_cols[case["scd"]])
                if got != want:
                    wrong.append(f"{case!r}\nfirst run: {got!r}\nexpected:  {want!r}")
            assert not wrong, f"AUTO_CDC_PROPERTY_SEED={property_seed()}:\n" + "\n".join(wrong)
            # the hand edits, on the first run's tables
            for n, case in enumerate(batch):
                rel = project.relation(case["name"])
                rows = sorted(project.rows(case["name"]), key=lambda r: (r["k"], r.get("__START_AT") or 0))
                for i, (pick, kind) in enumerate(case["edits"]):
                    if not rows:
                        break
                    row = rows[pick % len(rows)]
                    where = f"k = {row['k']}" + (f' and "__START_AT" = {row["__START_AT"]}' if case["scd"] == 2 else "")
                    if kind == "update":
                        project.execute(f"update {rel} set b = 'edit{n}_{i}' where {where}")
                    else:
                        project.execute(f"delete from {rel} where {where}")
                    rows = sorted(project.rows(case["name"]), key=lambda r: (r["k"], r.get("__START_AT") or 0))
                hand[case["name"]] = rows
    for case in batch:
        scd, name = case["scd"], case["name"]
        first = [r for r in case["rows"] if r["loaded"] == 0]
        def by_key(rows):
            out = {}
            for r in rows:
                out.setdefault(r["k"], set()).add(tuple(r[c] for c in target_cols[scd]))
            return out
        before, after = by_key(ref.apply([_event(r) for r in first], config[scd])), by_key(hand[name])
        edited = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
        expected = []
        for k in sorted({r["k"] for r in case["rows"]} | {r["k"] for r in hand[name]}):
            key_rows = [r for r in case["rows"] if r["k"] == k]
            later = [r for r in key_rows if r["loaded"] > 0]
            if k in edited and not later:
                expected += [{c: r[c] for c in target_cols[scd]} for r in hand[name] if r["k"] == k]
            elif k in edited:
                last = max(r["s"] for r in key_rows if r["loaded"] == 0)
                earlier = [_event(r) for r in key_rows if r["loaded"] == 0]
                edits = [e for e in _edit_events((k,), [r for r in hand[name] if r["k"] == k], last, scd, earlier)
                         if e.seq[0] not in {r["s"] for r in later}]
                expected += ref.apply(edits + [_event(r) for r in later], config[scd])
            else:
                expected += ref.apply([_event(r) for r in key_rows], config[scd])
        actual, want = target_rows(project, name, target_cols[scd]), sorted_rows(expected, target_cols[scd])
        assert actual == want, f"AUTO_CDC_PROPERTY_SEED={property_seed()}: {case!r}\nhand rows: {hand[name]!r}\nactual:   {actual!r}\nexpected: {want!r}"
