"""One conftest drives every engine: functional tests take the `engine` fixture and run on DuckDB
and on a throwaway Postgres server, which the test run starts itself (or reuses through the
DBT_PG_* environment variables).

dbt runs inside the test process (auto_cdc_testkit.harness, ``in_process``) unless a test is marked
``dbt_subprocess`` (killing dbt or racing two dbt processes needs a real process) or
AUTO_CDC_DBT_SUBPROCESS=1 is set.

Under pytest-xdist (``-n 2``) the controller starts one Postgres server for the whole session and
hands it to the workers through the DBT_PG_* variables; each worker then works in a database of
its own on it (each project in a schema of its own, as without xdist). DuckDB projects are files
in each test's own temporary directory."""
from __future__ import annotations

import os
import random
import sys
from collections import defaultdict

import pytest

from auto_cdc_testkit.cases import property_examples
from auto_cdc_testkit.harness import Project

ENGINES = [e.strip() for e in os.environ.get("AUTO_CDC_ENGINES", "duckdb,postgres").split(",") if e.strip()]


# -- one Postgres server per session, shared by the xdist workers ------------------------------
def _is_xdist_controller(config) -> bool:
    return not hasattr(config, "workerinput") and bool(getattr(config.option, "numprocesses", None)) \
        and getattr(config.option, "dist", "no") != "no"


def pytest_configure(config):
    # one seed for the generated property cases of the whole session (the xdist workers inherit it)
    os.environ.setdefault("AUTO_CDC_PROPERTY_SEED", str(random.randrange(10 ** 6)))
    config._auto_cdc_pg = None
    if "postgres" in ENGINES and _is_xdist_controller(config) and not os.environ.get("DBT_PG_HOST") \
            and not config.option.collectonly:
        from auto_cdc_testkit.testing import postgres
        server = postgres.start()
        os.environ.update(server.env())  # the workers, started after this, inherit the server
        config._auto_cdc_pg = server


def pytest_report_header(config):
    return (f"property cases: seed {os.environ['AUTO_CDC_PROPERTY_SEED']} (AUTO_CDC_PROPERTY_SEED="
            f"{os.environ['AUTO_CDC_PROPERTY_SEED']} repeats them), "
            f"{property_examples()} cases per property test and engine (AUTO_CDC_PROPERTY_EXAMPLES)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.parent.name == "unit":
            item.add_marker(pytest.mark.quick)


def pytest_unconfigure(config):
    server = getattr(config, "_auto_cdc_pg", None)
    if server is not None:
        for name in server.env():
            os.environ.pop(name, None)
        server.stop()


@pytest.fixture(scope="session")
def pg_server():
    """The session's Postgres server (auto_cdc_testkit.testing.postgres.PgServer)."""
    from auto_cdc_testkit.testing import postgres
    server = postgres.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def pg_env(pg_server):
    """The server's DBT_PG_* variables; under xdist, with a database of this worker's own."""
    env = pg_server.env()
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        import psycopg2
        dbname = f"{env['DBT_PG_DBNAME']}_{worker}"
        con = psycopg2.connect(host=env["DBT_PG_HOST"], port=int(env["DBT_PG_PORT"]), user=env["DBT_PG_USER"],
                               password=env["DBT_PG_PASSWORD"], dbname=env["DBT_PG_DBNAME"])
        con.autocommit = True
        try:
            with con.cursor() as cur:
                cur.execute("select count(*) from pg_database where datname = %s", (dbname,))
                if not cur.fetchone()[0]:
                    cur.execute(f'create database "{dbname}"')
            env["DBT_PG_DBNAME"] = dbname
        except psycopg2.Error:  # a server of someone else's without CREATEDB: schemas keep projects apart
            pass
        finally:
            con.close()
    return env


@pytest.fixture(scope="module")
def private_pg_server():
    """A managed Postgres server of the module's own, even when the session shares one through
    DBT_PG_*: for tests that restart or kill the server under a run."""
    from auto_cdc_testkit.testing import postgres
    shared = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("DBT_PG_")}
    try:
        server = postgres.start()
    finally:
        os.environ.update(shared)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def spark_cluster():
    """A loopback Spark standalone cluster (a master, two workers), or local mode where it cannot
    start; the Spark tier (tests/functional/test_spark.py) runs its dbt invocations against it."""
    from auto_cdc_testkit.testing import spark
    cluster = spark.start()
    print(f"\n[spark] {cluster.mode}: {cluster.master_url}")
    yield cluster
    if "pyspark" in sys.modules:  # the driver of in-process dbt runs, before its executors go
        from pyspark.sql import SparkSession
        active = SparkSession.getActiveSession()
        if active is not None:
            active.stop()
    cluster.stop()


@pytest.fixture
def spark_thrift_server():
    """A Spark Thrift server on loopback with Delta's catalog, on a metastore and warehouse of its own (not
    the cluster's: the test process's driver holds that one), for tests that run two dbt processes on one
    catalog at once (dbt-spark's `thrift` method)."""
    from auto_cdc_testkit.testing import spark
    with spark.thrift_server() as server:
        yield server


# Spark has its own batched module (test_spark.py): one dbt invocation there costs tens of seconds.
@pytest.fixture(scope="session", params=[e for e in ENGINES if e != "spark"])
def engine(request):
    return request.param


@pytest.fixture
def make_project(engine, request, tmp_path_factory):
    """Factory of scratch dbt projects on the current engine; cleaned up after the test."""
    made = []
    in_process = request.node.get_closest_marker("dbt_subprocess") is None

    def make(name: str = "p") -> Project:
        env = request.getfixturevalue("pg_env") if engine == "postgres" else None
        project = Project(tmp_path_factory.mktemp(f"{engine}_{name}"), engine, env, in_process=in_process,
                          reuse_parse=True)
        made.append(project)
        return project

    yield make
    for project in made:
        project.clean()


@pytest.fixture
def project(make_project):
    return make_project()


# -- where the time goes: a per-module summary at the end of the run ---------------------------
_MODULE_SECONDS: dict[str, float] = defaultdict(float)
_MODULE_TESTS: dict[str, int] = defaultdict(int)


# What a test records with record_property("printed", text) (say, a generated workload and its seed), shown
# at the end of the run: under xdist a worker's own output never reaches the terminal.
_PRINTED: list[str] = []


def pytest_runtest_logreport(report):
    # each phase (setup, call, teardown) of each test; under xdist the controller sees the workers' reports
    if os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if report.when == "call":
        _PRINTED.extend(f"{report.nodeid}: {value}" for name, value in report.user_properties if name == "printed")
    module = report.nodeid.split("::")[0]
    _MODULE_SECONDS[module] += report.duration
    if report.when == "call":
        _MODULE_TESTS[module] += 1


def pytest_terminal_summary(terminalreporter):
    if not _MODULE_SECONDS or os.environ.get("PYTEST_XDIST_WORKER"):
        return
    if _PRINTED:
        terminalreporter.section("printed by the tests")
        for line in _PRINTED:
            terminalreporter.write_line(line)
    terminalreporter.section("time per module (setup + call + teardown, summed over workers)")
    for module, seconds in sorted(_MODULE_SECONDS.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"{seconds:8.1f}s  {_MODULE_TESTS[module]:4d} tests  {module}")
    terminalreporter.write_line(f"{sum(_MODULE_SECONDS.values()):8.1f}s  total")
    # the header (where the seed also is) is left out under -q
    terminalreporter.write_line(pytest_report_header(terminalreporter.config))
