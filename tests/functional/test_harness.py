"""The test harness itself (auto_cdc_testkit.harness): what makes the suite fast must not change what
dbt does."""
import pytest

from auto_cdc_testkit import harness

FULL_PARSE = "Unable to do partial parsing"


def test_a_new_project_starts_from_the_saved_parse_of_the_package(project):
    """The fixtures' projects reuse one parse of the package: the first run parses only the project's own
    files (no full parse), and gives the same target as a project that parses everything itself."""
    if harness.FULL_PARSE or harness.FORCE_SUBPROCESS:
        pytest.skip("the saved parse is turned off (AUTO_CDC_FULL_PARSE, AUTO_CDC_DBT_SUBPROCESS)")
    own = harness.Project(project.path.parent / (project.path.name + "_own"), project.engine, project.pg_env,
                          in_process=True)
    try:
        for p in (project, own):
            p.table("feed", [("k", "integer"), ("s", "integer"), ("a", "varchar")], [(1, 1, "x"), (1, 2, "y")])
            p.feed_model("m", "feed", materialized="auto_cdc", keys=["k"], sequence_by="s", stored_as_scd_type=2)
            p.run()
        assert FULL_PARSE not in (project.path / "logs" / "dbt.log").read_text()
        assert FULL_PARSE in (own.path / "logs" / "dbt.log").read_text()
        columns = ["k", "a", "__START_AT", "__END_AT"]
        assert harness.target_rows(project, "m", columns) == harness.target_rows(own, "m", columns) == [
            (1, "x", 1, 2), (1, "y", 2, None)]
    finally:
        own.clean()
