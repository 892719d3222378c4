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
