"""Drive real dbt runs against real engines, for the functional and property tests.

A ``Project`` is a scratch dbt project that installs this package with ``local:`` (as a user
would), holds models written by the tests, and reads and writes tables through the engine's own
Python driver. dbt runs either as a subprocess, exactly as a user runs it, or in the test's own
process through dbt's programmatic entry point (``dbtRunner``), which saves the few seconds of
interpreter start-up and imports every invocation costs; tests whose point is the process boundary
(killing dbt, two dbt processes at once) keep the subprocess.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

REPO = Path(__file__).resolve().parents[1]
DBT = str(Path(sys.executable).with_name("dbt"))
# AUTO_CDC_DBT_SUBPROCESS=1 runs every dbt invocation as a subprocess, whatever the project asks.
FORCE_SUBPROCESS = os.environ.get("AUTO_CDC_DBT_SUBPROCESS", "") not in ("", "0")
# AUTO_CDC_FULL_PARSE=1: every new project parses the package itself (no reuse_parse).
FULL_PARSE = os.environ.get("AUTO_CDC_FULL_PARSE", "") not in ("", "0")


def jinja_literal(value: Any) -> str:
    """A Python value as a Jinja literal, for config() calls in generated models."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        # dbt's static parser does not unescape backslashes in string literals, Jinja's lexer does: a literal
        # never holds one (a backslash is `"%c" | format(92)`, which also sends the model to Jinja), and
        # takes a quote the string lacks
        if "\\" in value:
            return "(" + ' ~ ("%c" | format(92)) ~ '.join(jinja_literal(part) for part in value.split("\\")) + ")"
        if '"' not in value:
            return '"' + value + '"'
        if "'" not in value:
            return "'" + value + "'"
        return " ~ ".join(jinja_literal(part) if part else "''" for part in value.replace('"', '\x00"\x00').split("\x00"))
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{json.dumps(k)}: {jinja_literal(v)}" for k, v in value.items()) + "}"
    return "[" + ", ".join(jinja_literal(v) for v in value) + "]"


def quote(identifier: str) -> str:
    """A SQL identifier, quoted (an embedded double quote doubled)."""
    return '"' + identifier.replace('"', '""') + '"'


@dataclass
class Result:
    returncode: int
    output: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


class DbtError(AssertionError):
    pass


class Project:
    """A scratch dbt project on one engine ('duckdb' or 'postgres')."""

    def __init__(self, path: Path, engine: str = "duckdb", pg_env: Mapping[str, str] | None = None,
                 name: str = "auto_cdc_it", spark_conf: Mapping[str, str] | None = None,
                 in_process: bool = False, reuse_parse: bool = False, models_config: Mapping[str, Any] | None = None,
                 thrift: Any = None):
        """in_process: run dbt inside this Python process (dbtRunner) rather than as a subprocess. On
        Spark the process then holds one driver (dbt-spark's `session` method shares it between
        invocations) and reads through it (the embedded metastore admits one driver at a time).
        reuse_parse: start from the package as already parsed for an empty project of the same engine
        (see _seed_partial_parse), so the project's first dbt run parses only its own files.
        models_config: configs of every model of the project (dbt_project.yml's `models:`, e.g.
        {"+file_format": "parquet"}).
        thrift: on Spark, a testing.spark.ThriftServer: dbt connects to it (dbt-spark's `thrift` method)
        instead of starting a driver, and the project reads through it; spark_conf is then unused."""
        self.path = Path(path)
        self.in_process = in_process and not FORCE_SUBPROCESS
        self.engine = engine
        self.pg_env = dict(pg_env or {})
        self.spark_conf = dict(spark_conf or {})
        self.thrift = thrift
        self.schema = "main" if engine == "duckdb" else "it_" + uuid.uuid4().hex[:10]
        self.db_path = self.path / "it.duckdb"
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "models").mkdir(exist_ok=True)
        (self.path / "macros").mkdir(exist_ok=True)
        # Spark: the test's own statements (feed tables, their rows) run at the start of the next dbt
        # run, in its driver (one JVM at a time owns the embedded metastore; see testing/spark.py)
        hooks = "on-run-start: ['{{ auto_cdc_it_setup() }}']\n" if engine == "spark" else ""
        if models_config:
            hooks += f"models:\n  {name}:\n" + "".join(f"    {k}: {json.dumps(v)}\n" for k, v in models_config.items())
        (self.path / "dbt_project.yml").write_text(
            f"name: {name}\nversion: '1.0'\nconfig-version: 2\nprofile: {name}\nmodel-paths: ['models']\n"
            "macro-paths: ['macros']\nseed-paths: ['seeds']\ntest-paths: ['tests']\n" + hooks
        )
        (self.path / "packages.yml").write_text(f"packages:\n  - local: {REPO}\n")
        self._pending: list[str] = []
        self._cache: dict[str, list[dict]] | None = None
        if engine == "spark":
            self._write_setup()
            if thrift is not None:
                output = thrift.profile_output(self.schema)
            else:
                if self.in_process:
                    # the driver dbt's runs will share; each statement's builder call on an existing session
                    # would otherwise log a warning
                    from auto_cdc_testkit.testing.spark import session
                    session(self.spark_conf).sparkContext.setLogLevel("ERROR")
                params = "\n".join(f"        {json.dumps(k)}: {json.dumps(v)}" for k, v in self.spark_conf.items())
                output = (f"type: spark\n      method: session\n      host: localhost\n      schema: '{self.schema}'\n"
                          f"      threads: 4\n      server_side_parameters:\n{params}")
        elif engine == "duckdb":
            output = f"type: duckdb\n      path: '{self.db_path}'\n      threads: 4"
        else:
            e = self.pg_env
            output = (f"type: postgres\n      host: '{e['DBT_PG_HOST']}'\n      port: {e['DBT_PG_PORT']}\n"
                      f"      user: '{e['DBT_PG_USER']}'\n      password: '{e['DBT_PG_PASSWORD']}'\n"
                      f"      dbname: '{e['DBT_PG_DBNAME']}'\n      schema: '{self.schema}'\n      threads: 4")
        (self.path / "profiles.yml").write_text(f"{name}:\n  target: it\n  outputs:\n    it:\n      {output}\n")
        self._pg = None
        if engine == "postgres":
            self.execute(f'create schema if not exists "{self.schema}"')
        # installing the package is set-up, not what a test runs: in process unless every dbt call must not be
        self.dbt("deps", in_process=not FORCE_SUBPROCESS)
        if reuse_parse and engine != "spark" and not FORCE_SUBPROCESS and not FULL_PARSE:
            _seed_partial_parse(self)

    # -- dbt ---------------------------------------------------------------------------------
    def dbt(self, *args: str, check: bool = True, env: Mapping[str, str] | None = None,
            in_process: bool | None = None) -> Result:
        """One dbt invocation; in_process (default: the project's setting) overrides where it runs."""
        extra_env = self._dbt_env(env)
        argv = self._dbt_argv(args)
        if self.in_process if in_process is None else in_process:
            result = _invoke_in_process(argv, self.path, extra_env)
        else:
            proc = subprocess.run([DBT, *argv], cwd=self.path, env={**os.environ, **extra_env},
                                  capture_output=True, text=True)
            result = Result(proc.returncode, proc.stdout + proc.stderr)
        if self.engine == "spark":
            self._cache = None
            if args and args[0] in ("run", "build", "seed", "test", "snapshot"):
                self._pending.clear()  # the on-run-start hook ran them
                self._write_setup()
        if check and not result.ok:
            raise DbtError(f"dbt {' '.join(args)} failed:\n{result.output[-6000:]}")
        return result

    def start(self, *args: str, env: Mapping[str, str] | None = None) -> subprocess.Popen:
        """A dbt process started in the background (output in .stdout), for tests that race it."""
        return subprocess.Popen([DBT, *self._dbt_argv(args)], cwd=self.path, env={**os.environ, **self._dbt_env(env)},
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def _dbt_env(self, env: Mapping[str, str] | None = None) -> dict[str, str]:
        """What every dbt invocation of the project adds to the environment."""
        return {"DO_NOT_TRACK": "1", "DBT_SEND_ANONYMOUS_USAGE_STATS": "false", **self.pg_env, **(env or {})}

    def _dbt_argv(self, args: Sequence[str]) -> list[str]:
        return [*args, "--project-dir", str(self.path), "--profiles-dir", str(self.path)]

    def run(self, *select: str, full_refresh: bool = False, check: bool = True, extra: Sequence[str] = ()) -> Result:
        args = ["run"]
        if select:
            args += ["--select", *select]
        if full_refresh:
            args.append("--full-refresh")
        return self.dbt(*args, *extra, check=check)

    # -- models ------------------------------------------------------------------------------
    def model(self, name: str, sql: str, **config: Any) -> None:
        cfg = ", ".join(f"{k}={jinja_literal(v)}" for k, v in config.items())
        (self.path / "models" / f"{name}.sql").write_text(("{{ config(" + cfg + ") }}\n" if cfg else "") + sql + "\n")

    def remove_model(self, name: str) -> None:
        (self.path / "models" / f"{name}.sql").unlink(missing_ok=True)

    def feed_model(self, name: str, feed: str, **config: Any) -> None:
        """A model that selects the whole of a feed table."""
        self.model(name, f"select * from {self.relation(feed)}", **config)

    # -- data --------------------------------------------------------------------------------
    def relation(self, name: str) -> str:
        if self.engine == "spark":
            return f"`{self.schema}`.`{name}`"
        return f'"{self.schema}"."{name}"'

    # -- Spark: statements queued for the next dbt run, reads in a driver of their own ----------
    def _write_setup(self) -> None:
        body = "".join("{% call statement('it_setup_" + str(i) + "') %}" + sql + "{% endcall %}\n"
                       for i, sql in enumerate(self._pending))
        (self.path / "macros" / "auto_cdc_it_setup.sql").write_text(
            "{% macro auto_cdc_it_setup() %}\n{% if execute %}\n"
            + "{% call statement('it_schema') %}create database if not exists `" + self.schema + "`{% endcall %}\n"
            + body + "{% endif %}\n{% endmacro %}\n")

    def _queue(self, *sql: str) -> None:
        self._pending.extend(sql)
        self._cache = None
        self._write_setup()

    def _spark_read(self, queries: Mapping[str, str]) -> dict[str, list[dict]]:
        """Run the queued statements, then the queries, on the same metastore and warehouse: in this
        process's driver when dbt runs here, else in a short-lived local driver; returns each query's
        rows as dicts."""
        import pickle
        if self.thrift is not None:
            from auto_cdc_testkit.testing.spark_read import read_thrift
            connection = self.thrift.connect()
            try:
                result = read_thrift(connection, self.schema, list(self._pending), dict(queries))
            finally:
                connection.close()
        elif self.in_process:
            from auto_cdc_testkit.testing.spark import session
            from auto_cdc_testkit.testing.spark_read import read
            result = read(session(self.spark_conf), self.schema, list(self._pending), dict(queries))
        else:
            job = {"conf": self.spark_conf, "schema": self.schema, "pending": list(self._pending),
                   "queries": dict(queries)}
            proc = subprocess.run([sys.executable, "-m", "auto_cdc_testkit.testing.spark_read"], input=pickle.dumps(job),
                                  capture_output=True, env={**os.environ, "PYSPARK_PYTHON": sys.executable})
            if proc.returncode != 0:
                raise DbtError("Spark read failed:\n" + proc.stderr.decode(errors="replace")[-6000:])
            result = pickle.loads(proc.stdout)
        self._pending.clear()
        self._write_setup()
        return result

    def read_all(self, side_tables: Sequence[str] = ()) -> dict[str, list[dict]]:
        """Every table of the schema but the package's side tables (those named are read too), in one
        driver (Spark)."""
        if self._cache is None:
            self._cache = self._spark_read({"*": "", **{t.lower(): f"select * from {self.relation(t)}" for t in side_tables}})
        return self._cache

    def _connect(self):
        if self.engine == "duckdb":
            import duckdb
            return duckdb.connect(str(self.db_path))
        import psycopg2
        if self._pg is None or self._pg.closed:
            e = self.pg_env
            self._pg = psycopg2.connect(host=e["DBT_PG_HOST"], port=int(e["DBT_PG_PORT"]), user=e["DBT_PG_USER"],
                                        password=e["DBT_PG_PASSWORD"], dbname=e["DBT_PG_DBNAME"])
            self._pg.autocommit = True
        return self._pg

    def _done(self, con) -> None:
        if self.engine == "duckdb":
            con.close()

    def execute(self, sql: str, params: Sequence | None = None) -> None:
        if self.engine == "spark":
            assert not params, "Spark statements take no parameters"
            self._queue(sql)
            return
        con = self._connect()
        try:
            if self.engine == "duckdb":
                con.execute(sql, params or [])
            else:
                with con.cursor() as cur:
                    cur.execute(sql, params)
        finally:
            self._done(con)

    def fetch(self, sql: str) -> list[tuple]:
        if self.engine == "spark":
            return [tuple(r.values()) for r in self._spark_read({"q": sql})["q"]]
        con = self._connect()
        try:
            if self.engine == "duckdb":
                return con.execute(sql).fetchall()
            with con.cursor() as cur:
                cur.execute(sql)
                return cur.fetchall()
        finally:
            self._done(con)

    def rows(self, name: str) -> list[dict]:
        """Every row of a relation of this project's schema, as dicts."""
        if self.engine == "spark":
            tables = self.read_all()  # the metastore folds table names to lower case
            if name.lower() not in tables:
                tables = {name.lower(): self._spark_read({"q": f"select * from {self.relation(name)}"})["q"]}
            return tables[name.lower()]
        con = self._connect()
        try:
            sql = f"select * from {self.relation(name)}"
            if self.engine == "duckdb":
                cur = con.execute(sql)
                cols = [d[0] for d in cur.description]
                return [dict(zip(cols, r)) for r in cur.fetchall()]
            with con.cursor() as cur:
                cur.execute(sql)
                cols = [d[0] for d in cur.description]
                return [dict(zip(cols, r)) for r in cur.fetchall()]
        finally:
            self._done(con)

    def exists(self, name: str) -> bool:
        sql = ("select count(*) from information_schema.tables where table_schema = '%s' and table_name = '%s'"
               % (self.schema, name))
        return self.fetch(sql)[0][0] > 0

    def table(self, name: str, columns: Sequence[tuple[str, str]], rows: Iterable[Sequence[Any]] = ()) -> None:
        """(Re)create a table with the given (name, SQL type) columns and rows."""
        if self.engine == "spark":
            cols = ", ".join(f"`{c}` {spark_type(t)}" for c, t in columns)
            self._queue(f"drop table if exists {self.relation(name)}",
                        f"create table {self.relation(name)} ({cols}) using parquet")
            self.insert(name, [c for c, _ in columns], rows)
            return
        cols = ", ".join(f'{quote(c)} {t}' for c, t in columns)
        self.execute(f"drop table if exists {self.relation(name)}")
        self.execute(f"create table {self.relation(name)} ({cols})")
        self.insert(name, [c for c, _ in columns], rows)

    def insert(self, name: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
        rows = [tuple(r) for r in rows]
        if not rows:
            return
        if self.engine == "spark":
            names = ", ".join(f"`{c}`" for c in columns)
            values = ",\n".join("(" + ", ".join(spark_literal(v) for v in r) + ")" for r in rows)
            self._queue(f"insert into {self.relation(name)} ({names}) values\n{values}")
            return
        names = ", ".join(quote(c) for c in columns)
        con = self._connect()
        try:
            if self.engine == "duckdb":
                marks = ", ".join("?" for _ in columns)
                con.executemany(f"insert into {self.relation(name)} ({names}) values ({marks})", rows)
            else:
                from psycopg2.extras import execute_values
                with con.cursor() as cur:  # a % in a column name is not a placeholder
                    execute_values(cur, f"insert into {self.relation(name)} ({names.replace('%', '%%')}) values %s", rows)
        finally:
            self._done(con)

    def close(self) -> None:
        if self._pg is not None and not self._pg.closed:
            if self.engine == "postgres":
                try:
                    with self._pg.cursor() as cur:
                        cur.execute(f'drop schema if exists "{self.schema}" cascade')
                except Exception:
                    pass
            self._pg.close()

    def clean(self) -> None:
        self.close()
        shutil.rmtree(self.path, ignore_errors=True)


# -- one parse of the package per engine and process ------------------------------------------------
# A new project's first dbt run parses dbt's, the adapter's and this package's macros in full (seconds on a
# loaded machine), and every later run of the project reuses that through dbt's partial parsing
# (target/partial_parse.msgpack). A project made with reuse_parse starts from the saved parse of an empty
# project of the same engine and name instead: dbt then parses only what differs (the project's models,
# its own macros), exactly as on a second run. dbt accepts a saved parse only for the same dbt version,
# dbt_project.yml files, command-line vars and connection settings (the profile's hash); the connection
# settings differ by project (DuckDB file, Postgres schema), so the saved parse carries the hash of the
# project's own. Whatever dbt does not accept (say, --vars) it parses in full, as without the saved parse.
_PARSED: dict[tuple, Any] = {}


def _seed_partial_parse(project: Project) -> None:
    from dbt.contracts.files import FileHash
    from dbt.parser.manifest import extended_mashumaro_encoder
    config = (project.path / "dbt_project.yml").read_text()
    key = (project.engine, config, project.pg_env.get("DBT_PG_DBNAME"))
    if key not in _PARSED:
        _PARSED[key] = _parse_empty_project(project, config)
    manifest = _PARSED[key]
    manifest.state_check.profile_hash = FileHash.from_contents(_profile_hash_contents(project))
    target = project.path / "target"
    target.mkdir(exist_ok=True)
    (target / "partial_parse.msgpack").write_bytes(manifest.to_msgpack(extended_mashumaro_encoder))


def _parse_empty_project(project: Project, config: str):
    """The saved parse (a dbt Manifest) of an empty project like `project`: same engine, dbt_project.yml
    and connection (its own schema), parsed once by `dbt parse`."""
    import tempfile
    from dbt.contracts.graph.manifest import Manifest
    from dbt.parser.manifest import extended_mashumuro_decoder
    empty = Project(Path(tempfile.mkdtemp(prefix="auto_cdc_parse_")) / "p", project.engine, project.pg_env,
                    in_process=True)
    try:
        (empty.path / "dbt_project.yml").write_text(config)
        empty.dbt("parse")
        raw = (empty.path / "target" / "partial_parse.msgpack").read_bytes()
    finally:
        empty.clean()
        shutil.rmtree(empty.path.parent, ignore_errors=True)
    return Manifest.from_msgpack(raw, decoder=extended_mashumuro_decoder)


def _profile_hash_contents(project: Project) -> str:
    """What dbt hashes of the profile to tell whether a saved parse still holds (the adapter's
    connection_info, sorted; dbt.parser.manifest.ManifestLoader.build_manifest_state_check)."""
    import pprint
    if project.engine == "duckdb":
        from dbt.adapters.duckdb.credentials import DuckDBCredentials as Credentials
        fields = {"path": str(project.db_path), "schema": project.schema}
    else:
        from dbt.adapters.postgres.connections import PostgresCredentials as Credentials
        e = project.pg_env
        fields = {"host": e["DBT_PG_HOST"], "port": int(e["DBT_PG_PORT"]), "user": e["DBT_PG_USER"],
                  "password": e["DBT_PG_PASSWORD"], "database": e["DBT_PG_DBNAME"], "schema": project.schema}
    return pprint.pformat(sorted(Credentials.from_dict(fields).connection_info()))


def wait_for(predicate: Callable[[], bool], what: str, proc: subprocess.Popen | None = None,
             timeout: float = 180) -> None:
    """Poll until predicate() holds; fail if the process `proc` ends first or time runs out."""
    deadline = time.time() + timeout
    while not predicate():
        if proc is not None and proc.poll() is not None:
            raise AssertionError(f"the process ended before {what}:\n{proc.stdout.read()[-4000:]}")
        if time.time() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        time.sleep(0.1)


@contextlib.contextmanager
def _within(path: Path, env: Mapping[str, str]):
    """The working directory and environment a dbt subprocess would have, restored afterwards."""
    cwd, saved = os.getcwd(), {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(cwd)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _invoke_in_process(argv: Sequence[str], path: Path, env: Mapping[str, str]) -> Result:
    """One dbt invocation through dbtRunner, with what it prints to stdout captured as a subprocess's
    output would be, and the exit status the CLI would give (0 success, 1 failure, 2 an exception)."""
    from dbt.cli.main import dbtRunner
    from dbt.tests.util import reset_metadata_vars
    from dbt_common.events.functions import capture_stdout_logs, stop_capture_stdout_logs

    out = io.StringIO()
    with _within(path, env):
        reset_metadata_vars()
        capture_stdout_logs(out)
        try:
            res = dbtRunner().invoke(["--no-use-colors", *argv])
        finally:
            stop_capture_stdout_logs()
    output = out.getvalue()
    if res.exception is not None:
        output += f"\n{type(res.exception).__name__}: {res.exception}\n"
        return Result(2, output)
    return Result(0 if res.success else 1, output)


SPARK_TYPES = {"integer": "int", "varchar": "string", "text": "string", "varchar[]": "array<string>",
               "text[]": "array<string>"}


def spark_type(sql_type: str) -> str:
    return SPARK_TYPES.get(sql_type.lower(), sql_type)


def spark_literal(value: Any) -> str:
    """A Python value as a Spark SQL literal (Spark escapes quotes with a backslash)."""
    import datetime
    import decimal
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, decimal.Decimal)):
        return repr(value) if not isinstance(value, decimal.Decimal) else f"{value}BD"
    if isinstance(value, datetime.datetime):
        return f"timestamp'{value.isoformat(sep=' ')}'"
    if isinstance(value, datetime.date):
        return f"date'{value.isoformat()}'"
    if isinstance(value, (list, tuple)):
        return "array(" + ", ".join(spark_literal(v) for v in value) + ")"
    return "'" + str(value).replace("\\", "\\\\").replace("'", "\\'") + "'"


def _sort_key(row: Sequence[Any]) -> tuple:
    return tuple((v is not None, str(type(v).__name__), v if v is not None else 0) for v in row)


def sorted_rows(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> list[tuple]:
    """Rows as tuples of the given columns, in a deterministic order (NULLs first)."""
    return sorted((tuple(r[c] for c in columns) for r in rows), key=_sort_key)


def target_rows(project: Project, name: str, columns: Sequence[str]) -> list[tuple]:
    return sorted_rows(project.rows(name), columns)


def ordered(rows: Iterable[Sequence[Any]]) -> list[tuple]:
    """Expected rows in the order target_rows returns them."""
    return sorted((tuple(r) for r in rows), key=_sort_key)
