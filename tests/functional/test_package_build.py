"""The generic tests the package ships (equal_rows and the SCD2 invariants) fail on wrong tables;
tests/functional/test_integration_project.py shows them passing on every example."""


def _equal_rows_build(project, actual, expected):
    """dbt build of a view `m` over the table `actual` with an equal_rows test against a view over `expected`
    (each a (columns, rows) pair)."""
    for name, (columns, rows) in (("actual", actual), ("expected", expected)):
        project.table(name, columns, rows)
    project.model("m", f"select * from {project.relation('actual')}", materialized="view")
    project.model("m_expected", f"select * from {project.relation('expected')}", materialized="view")
    (project.path / "models" / "m.yml").write_text(
        "version: 2\nmodels:\n  - name: m\n    data_tests:\n      - auto_cdc.equal_rows:\n"
        "          arguments: {expected: ref('m_expected')}\n")
    return project.dbt("build", check=False)


def test_equal_rows_fails_on_a_wrong_table(project):
    columns = [("id", "integer"), ("__START_AT", "integer")]
    result = _equal_rows_build(project, (columns, [(1, 1), (2, 5)]), (columns, [(1, 1), (2, 6)]))
    assert not result.ok and "Got 2 results" in result.output


def test_scd2_invariant_tests_fail_on_a_broken_table(project):
    """The shipped generic tests pass on every fixture target (dbt build above) and fail here."""
    cols = [("id", "integer"), ("__START_AT", "integer"), ("__END_AT", "integer")]
    project.table("broken", cols, [(1, 1, None), (1, 2, None),      # two open versions, overlapping
                                   (2, 1, 5), (2, 4, 8),             # overlapping closed versions
                                   (3, 6, 6)])                       # an empty interval
    project.table("fine", cols, [(1, 1, 2), (1, 2, None), (2, 1, 5)])
    for name in ("broken", "fine"):
        project.model(f"{name}_m", f"select * from {project.relation(name)}", materialized="view")
    tests = ("      - auto_cdc.at_most_one_open_version:\n          arguments: {keys: ['id']}\n"
             "      - auto_cdc.no_overlapping_versions:\n          arguments: {keys: ['id']}\n"
             "      - auto_cdc.valid_version_intervals\n")
    (project.path / "models" / "m.yml").write_text(
        f"version: 2\nmodels:\n  - name: broken_m\n    data_tests:\n{tests}  - name: fine_m\n    data_tests:\n{tests}")
    result = project.dbt("build", check=False)
    assert "FAIL 1 auto_cdc_at_most_one_open_version_broken_m_id" in result.output, result.output[-3000:]
    assert "FAIL 2 auto_cdc_no_overlapping_versions_broken_m_id" in result.output
    assert "FAIL 1 auto_cdc_valid_version_intervals_broken_m" in result.output
    assert result.output.count("PASS auto_cdc_") == 3


def test_bitemporal_invariants_are_checked_per_system_time(project):
    cols = [("id", "integer"), ("__START_AT", "integer"), ("__END_AT", "integer"),
            ("__SYSTEM_START_AT", "integer"), ("__SYSTEM_END_AT", "integer")]
    # two open versions, but never believed at the same system time: valid
    project.table("fine", cols, [(1, 1, None, 1, 5), (1, 1, 3, 5, None), (1, 3, None, 5, None)])
    # at system time 5 both open versions are believed
    project.table("broken", cols, [(1, 1, None, 1, None), (1, 3, None, 5, None)])
    for name in ("broken", "fine"):
        project.model(f"{name}_m", f"select * from {project.relation(name)}", materialized="view")
    (project.path / "models" / "m.yml").write_text(
        "version: 2\nmodels:\n" + "".join(
            f"  - name: {n}_m\n    data_tests:\n      - auto_cdc.at_most_one_open_version:\n"
            "          arguments: {keys: ['id']}\n      - auto_cdc.no_overlapping_versions:\n"
            "          arguments: {keys: ['id']}\n" for n in ("broken", "fine")))
    result = project.dbt("build", check=False)
    assert "FAIL 1 auto_cdc_at_most_one_open_version_broken_m_id" in result.output, result.output[-3000:]
    assert "FAIL 1 auto_cdc_no_overlapping_versions_broken_m_id" in result.output
    assert result.output.count("PASS auto_cdc_") == 2


def test_equal_rows_between_relations_of_different_columns_names_the_columns_of_each_side(project):
    result = _equal_rows_build(project, ([("id", "integer"), ("a", "integer"), ("__START_AT", "integer")], [(1, 1, 1)]),
                               ([("id", "integer"), ("b", "integer"), ("__START_AT", "integer")], [(1, 1, 1)]))
    out = " ".join(result.output.split())
    assert not result.ok and "have different columns" in out, out[-3000:]
    assert 'm" has: a;' in out and 'm_expected" has: b.' in out, out[-3000:]
