"""`dbt build` in the package's own root: the SPEC's E1 seeds, models and equality tests."""
import os
import subprocess
import uuid

from dbt_auto_cdc.harness import DBT, REPO


def test_dbt_build_in_the_package_root_passes(engine, request, tmp_path):
    env = {**os.environ, "DO_NOT_TRACK": "1", "DBT_TARGET": engine,
           "DBT_DUCKDB_PATH": str(tmp_path / "build.duckdb")}
    if engine == "postgres":
        env.update(request.getfixturevalue("pg_env"), DBT_PG_SCHEMA="build_" + uuid.uuid4().hex[:8])
    proc = subprocess.run([DBT, "build", "--project-dir", str(REPO), "--profiles-dir", str(REPO),
                           "--target-path", str(tmp_path / "target"), "--log-path", str(tmp_path / "logs")],
                          cwd=REPO, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-5000:]
    # E1 (4 targets), E2 (2) and E4 (1) on every engine; E3 reads CSV files through DuckDB (2)
    assert proc.stdout.count("PASS auto_cdc_equal_rows_e") == (9 if engine == "duckdb" else 7), proc.stdout[-5000:]


def test_equal_rows_fails_on_a_wrong_table(project):
    project.table("actual", [("id", "integer"), ("__START_AT", "integer")], [(1, 1), (2, 5)])
    project.table("wrong", [("id", "integer"), ("__START_AT", "integer")], [(1, 1), (2, 6)])
    project.model("m", f"select * from {project.relation('actual')}", materialized="view")
    project.model("m_expected", f"select * from {project.relation('wrong')}", materialized="view")
    (project.path / "models" / "m.yml").write_text(
        "version: 2\nmodels:\n  - name: m\n    data_tests:\n      - auto_cdc.equal_rows:\n"
        "          arguments: {expected: ref('m_expected')}\n")
    result = project.dbt("build", check=False)
    assert not result.ok and "Got 2 results" in result.output
