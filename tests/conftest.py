"""One conftest drives every engine: functional tests take the `engine` fixture and run on DuckDB
and on a throwaway Postgres server, which this session starts itself (or reuses through the
DBT_PG_* environment variables)."""
from __future__ import annotations

import os

import pytest

from auto_cdc_testkit.harness import Project

ENGINES = [e.strip() for e in os.environ.get("AUTO_CDC_ENGINES", "duckdb,postgres").split(",") if e.strip()]


@pytest.fixture(scope="session")
def pg_server():
    """The session's Postgres server (auto_cdc_testkit.testing.postgres.PgServer; fault tests restart it)."""
    from auto_cdc_testkit.testing import postgres
    server = postgres.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def pg_env(pg_server):
    return pg_server.env()


@pytest.fixture(scope="session")
def spark_cluster():
    """A loopback Spark standalone cluster (a master, two workers), or local mode where it cannot
    start; the Spark tier (tests/functional/test_spark.py) runs its dbt invocations against it."""
    from auto_cdc_testkit.testing import spark
    cluster = spark.start()
    print(f"\n[spark] {cluster.mode}: {cluster.master_url}")
    yield cluster
    cluster.stop()


# Spark has its own batched module (test_spark.py): one dbt invocation there costs tens of seconds.
@pytest.fixture(scope="session", params=[e for e in ENGINES if e != "spark"])
def engine(request):
    return request.param


@pytest.fixture
def make_project(engine, request, tmp_path_factory):
    """Factory of scratch dbt projects on the current engine; cleaned up after the test."""
    made = []

    def make(name: str = "p") -> Project:
        env = request.getfixturevalue("pg_env") if engine == "postgres" else None
        project = Project(tmp_path_factory.mktemp(f"{engine}_{name}"), engine, env)
        made.append(project)
        return project

    yield make
    for project in made:
        project.clean()


@pytest.fixture
def project(make_project):
    return make_project()
