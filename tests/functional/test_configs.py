"""R9: wrong configs fail before anything runs, naming the model and every problem at once."""
import pytest

FEED = [("id", "integer"), ("seq", "integer"), ("op", "varchar"), ("a", "varchar"), ("st", "integer"),
        ("cols", "varchar")]
OK = dict(materialized="auto_cdc", keys=["id"], sequence_by="seq")

INVALID = {
    "missing_keys_and_sequence": (dict(materialized="auto_cdc"), ["keys: required", "sequence_by: required"]),
    "unknown_columns": (dict(OK, keys=["nope"], except_column_list=["missing"], cursor_column="gone"),
                        ["keys: unknown column 'nope'", "except_column_list: unknown column 'missing'",
                         "cursor_column: unknown column 'gone'"]),
    "both_column_lists": (dict(OK, column_list=["id", "a"], except_column_list=["op"]),
                          ["column_list and except_column_list"]),
    "both_track_history": (dict(OK, stored_as_scd_type=2, track_history_column_list=["a"],
                                track_history_except_column_list=["op"]),
                           ["track_history_column_list and track_history_except_column_list"]),
    "two_ignore_null_forms": (dict(OK, ignore_null_updates=True, ignore_null_updates_column_list=["a"]),
                              ["choose one ignore_null_updates form"]),
    "track_history_with_scd1": (dict(OK, track_history_column_list=["a"]), ["only for stored_as_scd_type 2"]),
    "truncates_with_scd2": (dict(OK, stored_as_scd_type=2, apply_as_truncates="op = 'T'"),
                            ["apply_as_truncates: only for stored_as_scd_type 1"]),
    "system_sequence_without_bitemporal": (dict(OK, system_sequence_by="st"),
                                           ["system_sequence_by: only for stored_as_scd_type 'bitemporal'"]),
    "bitemporal_without_system_sequence": (dict(OK, stored_as_scd_type="bitemporal"),
                                           ["requires system_sequence_by"]),
    "columns_to_update_with_ignore_nulls": (dict(OK, columns_to_update="cols", ignore_null_updates=True),
                                            ["columns_to_update: cannot be combined with ignore_null_updates"]),
    "columns_to_update_with_bitemporal": (dict(OK, columns_to_update="cols", stored_as_scd_type="bitemporal",
                                               system_sequence_by="st"),
                                          ["columns_to_update: not supported with stored_as_scd_type 'bitemporal'"]),
    "unknown_scd_type": (dict(OK, stored_as_scd_type=3), ["stored_as_scd_type: unknown value '3'"]),
    "unknown_on_schema_change": (dict(OK, on_schema_change="merge"), ["on_schema_change: unknown value 'merge'"]),
    "key_excluded_from_output": (dict(OK, except_column_list=["id"]), ["key column 'id' must be an output column"]),
}


@pytest.fixture(scope="module")
def failed_run(tmp_path_factory):
    """One dbt invocation runs every invalid model (DuckDB: config checks do not depend on the engine)."""
    from auto_cdc_testkit.harness import Project
    project = Project(tmp_path_factory.mktemp("configs"), "duckdb", in_process=True)
    project.table("feed", FEED, [(1, 1, "U", "a", 1, None)])
    project.execute(f"create table {project.relation('reserved_feed')} as select 1 as id, 1 as seq, 1 as \"__START_AT\"")
    for name, (config, _) in INVALID.items():
        project.feed_model(name, "feed", **config)
    project.feed_model("reserved_column", "reserved_feed", **OK)
    project.feed_model("valid", "feed", **OK, except_column_list=["op", "st", "cols"])
    result = project.run(check=False)
    yield project, result
    project.clean()


def _error_of(output: str, model: str) -> str:
    start = output.index(f"Failure in model {model} ")
    end = output.find("Failure in model", start + 1)
    return output[start:end if end > 0 else None]


@pytest.mark.parametrize("name", sorted(INVALID))
def test_invalid_config_fails_naming_the_model_and_every_problem(failed_run, name):
    project, result = failed_run
    assert not result.ok
    error = _error_of(result.output, name)
    assert f"auto_cdc model '{name}' has invalid configuration" in error
    for fragment in INVALID[name][1]:
        assert fragment in error, error
    assert not project.exists(name), "nothing may be created for an invalid model"


def test_source_column_named_like_a_reserved_column_is_an_error(failed_run):
    _, result = failed_run
    assert "column '__START_AT': reserved" in _error_of(result.output, "reserved_column")


def test_valid_model_in_the_same_run_succeeds(failed_run):
    project, result = failed_run
    assert "OK created sql auto_cdc model main.valid" in result.output
    assert project.rows("valid") == [{"id": 1, "seq": 1, "a": "a"}]
