"""Configs are checked by name and condition expressions against the model's columns before anything
runs; bad data fails as a run-time (database) error of the model, not a compilation error."""
import pytest

FEED = [("id", "integer"), ("seq", "integer"), ("operation", "varchar"), ("name", "varchar")]
ROWS = [(1, 1, "INSERT", "a"), (2, 1, "INSERT", "b"), (2, 2, "DELETE", None)]
OK = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq", except_column_list=["operation"])
SNAP = [("id", "integer"), ("name", "varchar")]
SNAP_OK = dict(materialized="auto_cdc_snapshot", keys=["id"])

INVALID = {
    # a misspelled config would otherwise be ignored: the DELETE would become an upsert
    "misspelled_apply_as_deletes": (dict(OK, apply_as_delete="operation = 'DELETE'"),
                                    ["apply_as_delete: unknown config", "did you mean `apply_as_deletes`?"]),
    "misspelled_sequence_by": (dict(materialized="auto_cdc", keys=["id"], sequnce_by="seq"),
                               ["sequnce_by: unknown config", "did you mean `sequence_by`?", "sequence_by: required"]),
    "unknown_column_in_condition": (dict(OK, apply_as_deletes="op = 'DELETE'"),
                                    ["apply_as_deletes: unknown column 'op' in op = 'DELETE'",
                                     "did you mean `operation`?"]),
    "unknown_column_in_truncate_condition": (dict(OK, apply_as_truncates="lower(operaton) = 'truncate'"),
                                             ["apply_as_truncates: unknown column 'operaton'",
                                              "did you mean `operation`?"]),
    "wrong_kind_of_value": (dict(OK, ignore_null_updates="yes", once="no"),
                            ["ignore_null_updates: expected true or false, got 'yes'",
                             "once: expected true or false, got 'no'"]),
    "far_from_every_config": (dict(OK, zzzzzzzz=1), ["zzzzzzzz: unknown config, neither auto_cdc's nor dbt's"]),
    "shape_rules_from_the_config_table": (dict(OK, stored_as_scd_type=2, apply_as_truncates="operation = 'T'",
                                               track_history_column_list=["name"], system_sequence_by="seq"),
                                          ["apply_as_truncates: only for stored_as_scd_type 1\n",
                                           "system_sequence_by: only for stored_as_scd_type 'bitemporal'\n"]),
}
SNAPSHOT_INVALID = {
    "snapshot_with_a_feed_config": (dict(SNAP_OK, sequence_by="id"),
                                    ["sequence_by: not a config of auto_cdc_snapshot"]),
    "snapshot_misspelled_config": (dict(SNAP_OK, max_delete_fractions=0.5),
                                   ["max_delete_fractions: unknown config", "did you mean `max_delete_fraction`?"]),
    # the shapes a config applies to are those of the materialization (a snapshot target has no bitemporal shape)
    "snapshot_track_history_on_scd1": (dict(SNAP_OK, track_history_column_list=["name"]),
                                       ["track_history_column_list: only for stored_as_scd_type 2\n"]),
    "snapshot_both_track_history_lists": (dict(SNAP_OK, stored_as_scd_type=2, track_history_column_list=["name"],
                                               track_history_except_column_list=["name"]),
                                          ["track_history_column_list and track_history_except_column_list: "
                                           "set one of them, not both"]),
}
VALID_CONDITIONS = {
    # functions, casts, typed literals, quoted names, keywords and literals that look like names
    "conditions_that_pass": dict(OK, apply_as_deletes="upper(\"operation\") in ('DELETE', 'del') and cast(seq as integer) is not null "
                                                      "and coalesce(name, 'x') <> 'operaton' and seq::varchar <> '1e5' and seq < 1e5",
                                 tags=["t"], persist_docs={"relation": True}, grants={}),
}


@pytest.fixture
def failed_run(project):
    project.table("feed", FEED, ROWS)
    project.table("snap", SNAP, [(1, "a")])
    for name, (config, _) in INVALID.items():
        project.feed_model(name, "feed", **config)
    for name, (config, _) in SNAPSHOT_INVALID.items():
        project.feed_model(name, "snap", **config)
    for name, config in VALID_CONDITIONS.items():
        project.feed_model(name, "feed", **config)
    project.table("feed_with_null_key", FEED, [(None, 1, "INSERT", "a")])
    project.feed_model("null_key", "feed_with_null_key", **OK)
    return project, project.run(check=False)


def _error_of(output: str, model: str) -> str:
    """The summary dbt prints for the model: from "Failure in model <name>" to the next one."""
    start = output.index(f"Failure in model {model} ")
    ends = [i for i in (output.find("Failure in model", start + 1), output.find("Done. PASS=", start)) if i > 0]
    return output[start:min(ends)]


def test_unknown_configs_and_columns_fail_naming_the_model_the_key_and_the_closest_name(failed_run):
    project, result = failed_run
    assert not result.ok
    for name, (_, fragments) in {**INVALID, **SNAPSHOT_INVALID}.items():
        error = _error_of(result.output, name)
        assert "Compilation Error in model " + name in error, error
        assert "model '" + name + "' has invalid configuration" in error, error
        for fragment in fragments:
            assert fragment in error, error
        assert not project.exists(name), "nothing may be created for an invalid model"
    assert "did you mean" not in _error_of(result.output, "far_from_every_config")


def test_conditions_with_functions_casts_and_literals_and_dbt_configs_pass(failed_run):
    project, result = failed_run
    assert f"OK created sql auto_cdc model {project.schema}.conditions_that_pass" in result.output
    assert project.rows("conditions_that_pass") == [{"id": 1, "seq": 1, "name": "a"}]


def test_bad_data_is_a_database_error_of_the_model_not_a_compilation_error(failed_run):
    _, result = failed_run
    error = _error_of(result.output, "null_key")
    assert "Database Error in model null_key" in error, error
    assert "NULL in key column 'id': 1 row(s)" in error
