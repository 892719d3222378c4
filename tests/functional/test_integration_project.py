"""integration_tests/: the package's dbt test project. It installs the package with `local: ../` as a
user does, switches on the documentation examples E1-E4 the package keeps in models/ and seeds/, and builds
them with their equality tests, on every engine."""
import json
import os
import shutil
import subprocess
import uuid

from auto_cdc_testkit.harness import DBT, REPO

EXAMPLES = ["e1_users_scd1", "e1_users_scd1_truncate", "e1_users_scd2", "e1_users_scd2_track_except_city",
            "e2_users_snapshot_scd1", "e2_users_snapshot_scd2", "e3_users_snapshot_files_scd1",
            "e3_users_snapshot_files_scd2", "e4_companies_bitemporal", "orders_history"]


def test_integration_project_builds_the_examples_with_their_equality_tests(engine, request, tmp_path):
    project = tmp_path / "integration_tests"
    shutil.copytree(REPO / "integration_tests", project,
                    ignore=shutil.ignore_patterns("target", "dbt_packages", "logs", "package-lock.yml"))
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    env = {**os.environ, "DO_NOT_TRACK": "1", "DBT_TARGET": engine, "DBT_DUCKDB_PATH": str(tmp_path / "it.duckdb")}
    if engine == "postgres":
        env.update(request.getfixturevalue("pg_env"), DBT_PG_SCHEMA="it_" + uuid.uuid4().hex[:8])

    def dbt(*args):
        proc = subprocess.run([DBT, "--no-use-colors", *args, "--project-dir", str(project), "--profiles-dir", str(project)],
                              cwd=project, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout[-5000:]
        return proc.stdout

    dbt("deps")
    models = dbt("ls", "--resource-type", "model", "--output", "name", "--quiet").split()
    # E3 reads CSV files through DuckDB's read_csv: DuckDB only
    assert sorted(models) == sorted(m for m in EXAMPLES if engine == "duckdb" or not m.startswith("e3_"))
    output = dbt("build")
    # E1 (4 targets), E2 (2) and E4 (1) on every engine, E3 (2) on DuckDB, and the orders example
    assert output.count("PASS example_") == (10 if engine == "duckdb" else 8), output[-5000:]
    assert "ERROR=0" in output and "WARN=0" in output


def test_installing_the_package_adds_no_model_or_seed(project):
    """The package's models/ and seeds/ hold the documentation examples, off unless the project that installs
    the package switches them on (integration_tests/ does): a user's project lists nothing of the package's."""
    assert sorted(path.name for path in (REPO / "models" / "examples").glob("*.sql"))  # there is something to hide
    assert sorted(path.name for path in (REPO / "seeds" / "examples").glob("*.csv"))
    listed = project.dbt("ls", "--output", "name", "--quiet").output.split()
    assert listed == []
    # the switch leaves the package's hooks on, on-run-start and on-run-end (dbt configures project hooks from
    # `models:`)
    manifest = json.loads((project.path / "target" / "manifest.json").read_text())
    hooks = [node for node in manifest["nodes"].values()
             if node["resource_type"] == "operation" and node["package_name"] == "auto_cdc"]
    assert [hook["config"]["enabled"] for hook in hooks] == [True, True], hooks
