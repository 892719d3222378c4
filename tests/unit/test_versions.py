"""The dbt-core versions the package supports are stated once (dbt_project.yml's require-dbt-version);
the documentation says the same, and the development pins do not contradict it."""
import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def supported():
    return yaml.safe_load((ROOT / "dbt_project.yml").read_text())["require-dbt-version"]


def test_the_docs_state_the_supported_dbt_core_range_of_dbt_project_yml():
    low, high = supported()
    assert (low, high) == (">=1.8.0", "<2.0.0")
    assert f"`{low}, {high}`" in (ROOT / "docs" / "configuration.md").read_text()


def test_the_tooling_does_not_pin_dbt_and_the_dev_pin_starts_where_the_package_does():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith(("dbt-", "duckdb")) for d in project["dependencies"])
    dev = (ROOT / "requirements-dev.txt").read_text()
    pin = re.search(r"^dbt-core(\S+)$", dev, re.M).group(1)
    assert pin.split(",")[0] == supported()[0]
    for adapter in ("dbt-duckdb", "dbt-postgres"):
        assert re.search(rf"^{adapter}>=", dev, re.M)


def test_the_spark_extra_pins_pyspark_to_the_spark_line_of_the_pinned_delta_release():
    """Delta Lake releases are built for one Spark minor version: the `spark` extra's pyspark range and
    the Delta version scripts/bootstrap.sh fetches (auto_cdc_testkit/testing/delta.py) must agree, and the
    docs state both."""
    from auto_cdc_testkit.testing import delta
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["spark"]
    pyspark = next(d for d in extra if d.startswith("pyspark"))
    major, minor = delta.SPARK_LINE.split(".")
    assert re.fullmatch(rf"pyspark>={major}\.{minor}(\.\d+)?,<{major}\.{int(minor) + 1}", pyspark), pyspark
    for doc in ("README.md", "docs/spark.md"):
        text = (ROOT / doc).read_text()
        assert f"Delta Lake {delta.DELTA_VERSION}" in text and f"Spark {delta.SPARK_LINE}" in text.replace("pyspark", "Spark"), doc
