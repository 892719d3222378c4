"""Named fixtures for the rules of docs/semantics.md (R1-R4, R7) on every engine, beyond the E1 examples."""
from auto_cdc_testkit.harness import target_rows

FEED = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("a", "varchar"), ("b", "varchar")]
COLS = ["id", "seq", "op", "a", "b"]
BASE = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
            except_column_list=["op", "seq"])


def test_absorbed_run_is_split_by_a_late_tracked_event(project):
    # R4: A@5, untracked change A'@10 (absorbed in place), then late tracked B@7
    project.table("feed", FEED, [(1, 5, "U", "A", "x"), (1, 10, "U", "A", "x2")])
    project.feed_model("t", "feed", **BASE, stored_as_scd_type=2, track_history_column_list=["a"])
    project.run()
    assert target_rows(project, "t", ["id", "a", "b", "__START_AT", "__END_AT"]) == [(1, "A", "x2", 5, None)]
    project.insert("feed", COLS, [(1, 7, "U", "B", "y")])
    project.run()
    assert target_rows(project, "t", ["id", "a", "b", "__START_AT", "__END_AT"]) == [
        (1, "A", "x", 5, 7), (1, "A", "x2", 10, None), (1, "B", "y", 7, 10)]


def test_late_update_after_delete_does_not_resurrect_key(project):
    project.table("feed", FEED, [(1, 1, "U", "a1", None), (1, 5, "D", None, None), (2, 1, "U", "keep", None)])
    project.feed_model("t1", "feed", **BASE)
    project.feed_model("t2", "feed", **BASE, stored_as_scd_type=2)
    project.run()
    project.insert("feed", COLS, [(1, 3, "U", "late", None)])
    project.run()
    assert target_rows(project, "t1", ["id", "a"]) == [(2, "keep")]
    # SCD2: the late event lands in its place, inside the closed history
    assert target_rows(project, "t2", ["id", "a", "__START_AT", "__END_AT"]) == [
        (1, "a1", 1, 3), (1, "late", 3, 5), (2, "keep", 1, None)]
    # an upsert with a greater sequence does bring the key back
    project.insert("feed", COLS, [(1, 9, "U", "back", None)])
    project.run()
    assert target_rows(project, "t1", ["id", "a"]) == [(1, "back"), (2, "keep")]


def test_truncate_voids_earlier_events_even_when_it_arrives_late(project):
    project.table("feed", FEED, [(1, 1, "U", "old", None), (2, 4, "U", "new", None)])
    project.feed_model("t", "feed", **BASE, apply_as_truncates="op = 'T'")
    project.run()
    project.insert("feed", COLS, [(None, 3, "T", None, None)])
    project.run()
    assert target_rows(project, "t", ["id", "a"]) == [(2, "new")]
    # events before the truncate that arrive later have no effect; later ones apply
    project.insert("feed", COLS, [(3, 2, "U", "too late", None), (4, 3, "U", "at the truncate", None)])
    project.run()
    assert target_rows(project, "t", ["id", "a"]) == [(2, "new"), (4, "at the truncate")]


def test_multi_column_sequence_orders_like_a_struct(project):
    feed = [("id", "integer"), ("major", "integer"), ("minor", "integer"), ("a", "varchar")]
    project.table("feed", feed, [(1, 1, 9, "first"), (1, 2, 0, "third"), (1, 1, 10, "second")])
    cfg = dict(materialized="auto_cdc", keys=["id"], sequence_by=["major", "minor"], except_column_list=["major", "minor"])
    project.feed_model("t1", "feed", **cfg)
    project.feed_model("t2", "feed", **cfg, stored_as_scd_type=2)
    project.run()
    assert target_rows(project, "t1", ["id", "a"]) == [(1, "third")]
    if project.engine == "duckdb":
        start = "struct_extract(\"__START_AT\", 'major'), struct_extract(\"__START_AT\", 'minor')"
        end = "struct_extract(\"__END_AT\", 'major'), struct_extract(\"__END_AT\", 'minor')"
    else:
        start = '("__START_AT")."major", ("__START_AT")."minor"'
        end = '("__END_AT")."major", ("__END_AT")."minor"'
    rows = project.fetch(f"select a, {start}, {end} from {project.relation('t2')} order by \"__START_AT\"")
    assert rows == [("first", 1, 9, 1, 10), ("second", 1, 10, 2, 0), ("third", 2, 0, None, None)]


def test_composite_keys_and_unusual_identifiers_are_quoted_everywhere(project):
    feed = [("Region", "varchar"), ("user id", "integer"), ("Seq Num", "integer"), ("select", "varchar"),
            ("Op", "varchar")]
    project.table("feed", feed, [("EU", 1, 1, "x", "U"), ("US", 1, 1, "y", "U"), ("EU", 1, 2, "z", "U"),
                                 ("US", 1, 3, None, "D")])
    cfg = dict(materialized="auto_cdc", keys=["Region", "user id"], sequence_by="Seq Num",
               apply_as_deletes='"Op" = \'D\'', except_column_list=["Op"])
    project.feed_model("t1", "feed", **cfg)
    project.feed_model("t2", "feed", **cfg, stored_as_scd_type=2, track_history_except_column_list=["Seq Num"])
    project.run()
    assert target_rows(project, "t1", ["Region", "user id", "Seq Num", "select"]) == [("EU", 1, 2, "z")]
    assert target_rows(project, "t2", ["Region", "user id", "select", "__START_AT", "__END_AT"]) == [
        ("EU", 1, "x", 1, 2), ("EU", 1, "z", 2, None), ("US", 1, "y", 1, 3)]


def _state(project, name):
    return (target_rows(project, name, ["id", "a"]),
            sorted(map(repr, project.rows(name + "__auto_cdc_log"))))


def test_every_kind_of_bad_input_is_reported_in_one_run_with_examples_and_what_to_do(project):
    """One run names every kind of bad input its batch holds, each with its count, a few example keys
    and what to do, and applies nothing; the NULL checks of the other shapes' columns too."""
    feed = FEED + [("cols", "varchar"), ("st", "integer")]
    cols = [c for c, _ in feed]
    project.table("feed", feed, [(1, 1, "U", "a", None, None, 1), (2, 1, "U", "b", None, None, 1)])
    project.feed_model("t", "feed", **{**BASE, "except_column_list": ["op", "seq", "st"]}, columns_to_update="cols")
    project.feed_model("bt", "feed", **{**BASE, "except_column_list": ["op", "seq", "cols"]},
                       stored_as_scd_type="bitemporal", system_sequence_by="st")
    project.run()
    before = {name: _state(project, name) for name in ("t", "bt")}
    project.insert("feed", cols, [
        (None, 3, "U", "x", None, None, 2), (None, 4, "D", None, None, None, 2),   # NULL keys
        (4, None, "U", "x", None, None, 2),                                         # a NULL sequence
        (5, 2, "U", "x", None, None, 2), (5, 2, "U", "y", None, None, 2),           # a conflict in the batch
        (1, 1, "U", "changed", None, None, 1),                                      # a conflict with the log
        (6, 2, "U", "x", None, "a,nope", None),                                     # an unknown column; a NULL system time
    ])
    result = project.run(check=False)
    out = " ".join(result.output.split())
    assert not result.ok, out[-3000:]
    expected = {
        "t": ["NULL in key column 'id': 2 row(s): (id=NULL, seq=3), (id=NULL, seq=4). What to do: leave such rows out in the model",
              "NULL in sequence column 'seq': 1 row(s): (id=4, seq=NULL). What to do: leave such rows out in the model or fill the sequence in",
              "for 2 key/sequence pair(s): ",
              "(id=5, seq=2) in this batch", "(id=1, seq=1) against an applied event",
              "What to do: drop the duplicates in the model, or make the sequence unique per key",
              "names unknown columns in 1 case(s): 'nope' for (id=6). What to do: name only the model's output columns"],
        "bt": ["NULL in key column 'id': 2 row(s)", "NULL in sequence column 'seq': 1 row(s)",
               "NULL in system_sequence_by column 'st': 1 row(s): (id=6, seq=2, st=NULL). What to do:",
               "(id=5, seq=2) in this batch"],
    }
    for name, fragments in expected.items():
        error = out[out.index(f"auto_cdc model '{name}': bad input"):]
        for fragment in fragments:
            assert fragment in error, (fragment, error[:3000])
        assert _state(project, name) == before[name]


def test_bad_input_fails_the_run_and_applies_nothing(project):
    project.table("feed", FEED, [(1, 1, "U", "a", None), (2, 1, "U", "b", None)])
    project.feed_model("t", "feed", **BASE)
    project.run()
    before = _state(project, "t")
    cases = {
        "NULL in key column 'id': 2 row(s)": [(None, 3, "U", "x", None), (None, 4, "D", None, None)],
        "NULL in sequence column 'seq': 1 row(s)": [(3, None, "U", "x", None)],
        "conflicting events": [(3, 2, "U", "x", None), (3, 2, "U", "y", None)],
    }
    for message, rows in cases.items():
        project.table("feed", FEED, [(1, 1, "U", "a", None), (2, 1, "U", "b", None), (5, 9, "U", "new", None), *rows])
        result = project.run(check=False)
        assert not result.ok
        assert "auto_cdc model 't'" in result.output and message in result.output, result.output[-3000:]
        assert _state(project, "t") == before
    # a conflict with an event applied in an earlier run fails the same way, naming the key
    project.table("feed", FEED, [(1, 1, "U", "changed", None)])
    result = project.run(check=False)
    assert not result.ok and "conflicting events" in result.output and "id=1" in result.output
    assert _state(project, "t") == before
    # and so does a conflict inside the batch at a key and sequence the log holds, one of the two
    # events being the one applied
    project.table("feed", FEED, [(1, 1, "U", "a", None), (1, 1, "U", "changed", None), (5, 9, "U", "new", None)])
    result = project.run(check=False)
    assert not result.ok and "conflicting events" in result.output and "id=1" in result.output
    assert _state(project, "t") == before
    # duplicates, even with different excluded columns or delete payloads, are harmless
    project.table("feed", FEED, [(1, 1, "U", "a", None), (1, 1, "U", "a", None), (2, 1, "U", "b", None),
                                 (2, 5, "D", "p", None), (2, 5, "D", "q", "r")])
    project.run()
    assert target_rows(project, "t", ["id", "a"]) == [(1, "a")]


def test_user_columns_named_like_internal_aliases_work_in_every_shape(project):
    """Builders use table aliases and helper columns; user columns with the same names must not clash."""
    names = ["v", "island", "version", "rank", "events", "x", "d", "l", "a", "b", "t", "s", "r", "src", "merged"]
    feed = [("k", "integer"), ("seq", "integer"), ("st", "integer")] + [(c, "varchar") for c in names]
    project.table("feed", feed, [(1, 1, 1, *["one"] * len(names)), (1, 2, 2, *["two"] * len(names))])
    base = dict(materialized="auto_cdc", keys=["k"], sequence_by="seq", except_column_list=["st"])
    project.feed_model("scd1", "feed", **base, ignore_null_updates=True)
    project.feed_model("scd2", "feed", **base, stored_as_scd_type=2)
    project.feed_model("bitemporal", "feed", **base, stored_as_scd_type="bitemporal", system_sequence_by="st")
    project.table("snaps", [("k", "integer")] + [(c, "varchar") for c in names] + [("ver", "integer")],
                  [(1, *["one"] * len(names), 1), (1, *["two"] * len(names), 2)])
    project.feed_model("snapshot", "snaps", materialized="auto_cdc_snapshot", keys=["k"], snapshot_version="ver",
                       stored_as_scd_type=2)
    project.run()
    assert target_rows(project, "scd1", ["k", *names]) == [(1, *["two"] * len(names))]
    for model in ("scd2", "snapshot"):
        assert target_rows(project, model, ["k", "v", "__START_AT", "__END_AT"]) == [(1, "one", 1, 2), (1, "two", 2, None)], model
    assert target_rows(project, "bitemporal", ["k", "v", "__START_AT", "__END_AT", "__SYSTEM_START_AT", "__SYSTEM_END_AT"]) == [
        (1, "one", 1, None, 1, 2), (1, "one", 1, 2, 2, None), (1, "two", 2, None, 2, None)]
