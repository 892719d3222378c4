"""integration_tests/: a consumer project that installs the package with `local: ../`."""
import os
import shutil
import subprocess

from auto_cdc_testkit.harness import DBT, REPO


def test_consumer_project_builds_and_lists_none_of_the_package_examples(tmp_path):
    project = tmp_path / "integration_tests"
    shutil.copytree(REPO / "integration_tests", project, ignore=shutil.ignore_patterns("target", "dbt_packages", "logs"))
    (project / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
    env = {**os.environ, "DO_NOT_TRACK": "1", "DBT_DUCKDB_PATH": str(tmp_path / "it.duckdb")}

    def dbt(*args):
        proc = subprocess.run([DBT, *args, "--project-dir", str(project), "--profiles-dir", str(project)],
                              cwd=project, env=env, capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout[-4000:]
        return proc.stdout

    dbt("deps")
    listed = dbt("ls", "--output", "name", "--quiet").split()
    assert sorted(listed) == sorted(["orders_history", "orders_cdf", "expected_orders_history",
                                     "auto_cdc_equal_rows_orders_history_ref_expected_orders_history_"])
    assert "PASS=4" in dbt("build")
