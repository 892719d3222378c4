"""Delta Lake for the Spark tier: the pinned version, its jars from Maven Central, the session settings.

Delta Lake releases follow Spark's minor versions (Delta 4.0.x is built for Spark 4.0.x), so the
`spark` extra pins pyspark to ``SPARK_LINE`` and this module pins the Delta release that matches it.
The jars are fetched once into a cache shared by every clone on the machine
(``AUTO_CDC_JAR_CACHE``, default ``~/.cache/dbt-auto-cdc/jars``), each checked against the SHA-1
that Maven Central publishes beside it.

    python -m auto_cdc_testkit.testing.delta     # fetch the jars (scripts/bootstrap.sh does), print their paths
"""
from __future__ import annotations

import hashlib
import os
import sys
import urllib.request
from pathlib import Path

DELTA_VERSION = "4.0.1"
SPARK_LINE = "4.0"                 # the pyspark minor version Delta DELTA_VERSION is built for
SCALA = "2.13"
MAVEN = os.environ.get("AUTO_CDC_MAVEN_URL", "https://repo1.maven.org/maven2")
# delta-spark and delta-storage are all Delta needs beside Spark's own jars (its other dependencies,
# scala-library and antlr4-runtime, ship with pyspark)
ARTIFACTS = [("io.delta", f"delta-spark_{SCALA}"), ("io.delta", "delta-storage")]


def cache_dir() -> Path:
    return Path(os.environ.get("AUTO_CDC_JAR_CACHE", Path.home() / ".cache" / "dbt-auto-cdc" / "jars"))


def _url(group: str, artifact: str, version: str, suffix: str = "") -> str:
    return f"{MAVEN}/{group.replace('.', '/')}/{artifact}/{version}/{artifact}-{version}.jar{suffix}"


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read()


def fetch(version: str = DELTA_VERSION) -> list[Path]:
    """The Delta jars, downloaded into the cache when missing (checked against Maven's SHA-1)."""
    out = []
    for group, artifact in ARTIFACTS:
        path = cache_dir() / f"{artifact}-{version}.jar"
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            data = _get(_url(group, artifact, version))
            expected = _get(_url(group, artifact, version, ".sha1")).decode().split()[0].strip()
            actual = hashlib.sha1(data).hexdigest()
            if actual != expected:
                raise RuntimeError(f"{artifact}-{version}.jar: SHA-1 {actual}, Maven Central publishes {expected}")
            tmp = path.with_suffix(".part")
            tmp.write_bytes(data)
            tmp.replace(path)
        out.append(path)
    return out


def jars(version: str = DELTA_VERSION) -> list[Path] | None:
    """The cached jars, or None when they have not been fetched."""
    paths = [cache_dir() / f"{artifact}-{version}.jar" for _, artifact in ARTIFACTS]
    return paths if all(p.exists() for p in paths) else None


def check_spark_version() -> None:
    import pyspark
    if not pyspark.__version__.startswith(SPARK_LINE + "."):
        raise RuntimeError(f"Delta {DELTA_VERSION} needs pyspark {SPARK_LINE}.x, this environment has "
                           f"{pyspark.__version__}: run scripts/bootstrap.sh with AUTO_CDC_ENGINES=spark")


def spark_conf(paths: list[Path]) -> dict[str, str]:
    """The session settings of a Delta catalog: the jars (driver and executors) and Delta's SQL
    extension and catalog, so that `using delta` tables, MERGE, UPDATE, DELETE and table_changes work."""
    return {
        "spark.jars": ",".join(str(p) for p in paths),
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    }


if __name__ == "__main__":
    check_spark_version()
    for p in fetch():
        print(p)
    sys.stdout.flush()
