"""The generic test auto_cdc.matches_log (docs/configuration.md "Generic tests for your targets"): a target
is what its event log says, recomputed for every key by the package's own builders."""
FEED = [("id", "integer"), ("seq", "integer"), ("minor", "integer"), ("op", "varchar"), ("a", "varchar"),
        ("b", "varchar"), ("cols", "varchar"), ("st", "integer")]
COLS = [c for c, _ in FEED]
BASE = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", apply_as_deletes="op = 'D'",
            except_column_list=["seq", "minor", "op", "cols", "st"])
# one model per shape and option the builders treat apart
MODELS = {
    "scd1": BASE,
    "scd1_partial": {**BASE, "except_column_list": ["seq", "minor", "op", "st"], "columns_to_update": "cols"},
    "scd1_ignore_nulls": {**BASE, "ignore_null_updates_column_list": ["b"]},
    "scd2": {**BASE, "stored_as_scd_type": 2},
    "scd2_track_a": {**BASE, "stored_as_scd_type": 2, "track_history_column_list": ["a"]},
    "scd2_two_columns": {**BASE, "stored_as_scd_type": 2, "sequence_by": ["seq", "minor"]},
    "bitemporal": {**BASE, "stored_as_scd_type": "bitemporal", "system_sequence_by": "st"},
}
SNAPSHOTS = {"snap1": 1, "snap2": 2}
RUNS = [
    [(1, 1, 0, "U", "a1", "x", None, 1), (2, 1, 0, "U", "b1", "y", None, 1), (3, 2, 0, "U", "c2", "z", None, 1),
     (1, 3, 0, "U", "a3", "x", None, 2), (2, 4, 0, "D", None, None, None, 2)],
    # late events, a key back after its delete, partial writes and NULLs
    [(1, 2, 0, "U", "a2", None, "a", 3), (3, 5, 0, "U", "c5", None, "b", 3), (4, 1, 0, "U", "d1", "w", None, 3),
     (2, 6, 0, "U", "b6", "y", None, 4), (1, 3, 0, "U", "a3", "x", None, 5)],
]
# the two-column sequence's model reads them and events that differ in the second column only
MINOR = [(3, 2, 1, "U", "c2", "z2", None, 2), (1, 2, 1, "U", "a2", "x2", None, 4)]
SNAPSHOT_ROWS = [[(1, "a", 1), (2, "b", 1), (3, "c", 1)], [(1, "a", 2), (2, "B", 2), (4, "d", 2)]]


def _tests_yml(names):
    return "version: 2\nmodels:\n" + "".join(
        f"  - name: {name}\n    data_tests:\n      - auto_cdc.matches_log\n" for name in names)


def test_matches_log_passes_on_every_shape_with_folded_hand_edits_and_fails_on_a_hand_corrupted_target(project):
    project.table("feed", FEED, RUNS[0])
    project.table("feed_minor", FEED, RUNS[0] + MINOR[:1])
    project.table("snaps", [("id", "integer"), ("a", "varchar"), ("version", "integer")], SNAPSHOT_ROWS[0])
    for name, config in MODELS.items():
        project.feed_model(name, "feed_minor" if name == "scd2_two_columns" else "feed", **config)
    for name, scd in SNAPSHOTS.items():
        project.feed_model(name, "snaps", materialized="auto_cdc_snapshot", keys=["id"], snapshot_version="version",
                           stored_as_scd_type=scd)
    names = [*MODELS, *SNAPSHOTS]
    (project.path / "models" / "tests.yml").write_text(_tests_yml(names))
    project.run()
    project.insert("feed", COLS, RUNS[1])
    project.insert("feed_minor", COLS, RUNS[1] + MINOR[1:])
    project.insert("snaps", ["id", "a", "version"], SNAPSHOT_ROWS[1])
    project.run()
    # hand edits that the next run touching their keys folds into the log (a mask over the events they replace)
    scd2 = project.relation("scd2")
    project.execute(f"update {scd2} set a = 'hand' where id = 1 and \"__START_AT\" = 2")
    project.execute(f'delete from {scd2} where id = 3 and "__START_AT" = 2')
    project.execute(f"update {project.relation('scd1')} set a = 'hand' where id = 4")
    project.insert("feed", COLS, [(1, 7, 0, "U", "a7", "x", None, 6), (3, 8, 0, "U", "c8", "z", None, 6),
                                  (1, 0, 0, "U", "early", "x", None, 6), (4, 9, 0, "U", "d9", "w", None, 6)])
    project.run()
    assert any(r["__auto_cdc_op"] == "mask" for r in project.rows("scd2__auto_cdc_log"))
    result = project.dbt("test", check=False)
    assert result.ok and result.output.count("PASS auto_cdc_matches_log_") == len(names), result.output[-4000:]
    # hand edits no run has folded in yet: the target is no longer what its log says
    project.execute(f"update {project.relation('scd1')} set a = 'corrupt' where id = 1")
    project.execute(f'delete from {scd2} where id = 1 and "__START_AT" = 1')
    project.execute(f"update {project.relation('snap2')} set a = 'corrupt' where id = 4")
    result = project.dbt("test", check=False)
    out = result.output
    assert not result.ok, out[-4000:]
    assert "FAIL 2 auto_cdc_matches_log_scd1_ " in out, out[-4000:]   # the target's row and the log's
    assert "FAIL 1 auto_cdc_matches_log_scd2_ " in out
    assert "FAIL 2 auto_cdc_matches_log_snap2_ " in out
    assert out.count("PASS auto_cdc_matches_log_") == len(names) - 3
