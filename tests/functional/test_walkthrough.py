"""The README's five-minute walkthrough, followed word for word by a new user on DuckDB and on Postgres.

The walkthrough (between the README's `walkthrough` markers) is read in order: a line ending in a file name in
backticks, a note without backticks and a colon, right before a code block, writes that block to that file (of
two profiles.yml, the one whose note names the engine); every line of a `bash` block
runs in a shell, in the directory the previous commands left; a `text` block right after a `bash` block is the
table its last command prints. The consumer project is created next to a link named `dbt-auto-cdc` to this
repository, as the walkthrough's `packages.yml` expects of a clone.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from auto_cdc_testkit.harness import REPO

SECTION = re.compile(r"<!-- --8<-- \[start:walkthrough\] -->(.*?)<!-- --8<-- \[end:walkthrough\] -->", re.DOTALL)
BLOCK = re.compile(r"(?:`(?P<path>[^`\s]+)`(?P<note>[^`\n]*):\n\n)?^```(?P<lang>\w*)\n(?P<body>.*?)^```$",
                   re.DOTALL | re.MULTILINE)
ENGINE_NAMES = {"duckdb": "DuckDB", "postgres": "Postgres"}


def walkthrough_steps(engine: str) -> list[tuple[str, ...]]:
    """("file", path, content), ("run", command) and ("expect", table) steps, in the README's order."""
    steps: list[tuple[str, ...]] = []
    for block in BLOCK.finditer(SECTION.search((REPO / "README.md").read_text()).group(1)):
        body, path = block["body"], block["path"]
        if path:
            other_engines = [name for key, name in ENGINE_NAMES.items() if key != engine]
            if not any(name in block["note"] for name in other_engines):
                steps.append(("file", path, body))
        elif block["lang"] == "bash":
            steps += [("run", line) for line in body.splitlines() if line.strip()]
        elif block["lang"] == "text":
            steps.append(("expect", body))
    return steps


def printed_table(output: str) -> list[str]:
    return [" ".join(line.split()) for line in output.splitlines() if line.startswith("|")]


def drop_demo_schema(pg_env) -> None:
    import psycopg2
    con = psycopg2.connect(host=pg_env["DBT_PG_HOST"], port=int(pg_env["DBT_PG_PORT"]), user=pg_env["DBT_PG_USER"],
                           password=pg_env["DBT_PG_PASSWORD"], dbname=pg_env["DBT_PG_DBNAME"])
    con.autocommit = True
    con.cursor().execute("drop schema if exists cdc_demo cascade")
    con.close()


def target_rows(engine: str, project: Path, pg_env, table: str) -> list[tuple]:
    sql = f"select * from {'main' if engine == 'duckdb' else 'cdc_demo'}.{table} order by 1, 2, 3"
    if engine == "duckdb":
        import duckdb
        with duckdb.connect(str(project / "cdc_demo.duckdb"), read_only=True) as con:
            return con.execute(sql).fetchall()
    import psycopg2
    con = psycopg2.connect(host=pg_env["DBT_PG_HOST"], port=int(pg_env["DBT_PG_PORT"]), user=pg_env["DBT_PG_USER"],
                           password=pg_env["DBT_PG_PASSWORD"], dbname=pg_env["DBT_PG_DBNAME"])
    try:
        cur = con.cursor()
        cur.execute(sql)
        return cur.fetchall()
    finally:
        con.close()


def test_readme_walkthrough_builds_word_for_word(engine, request, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("DBT_")}
    env.update(DO_NOT_TRACK="1", PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    pg_env = None
    if engine == "postgres":
        pg_env = request.getfixturevalue("pg_env")
        drop_demo_schema(pg_env)
        env.update(PGHOST=pg_env["DBT_PG_HOST"], PGPORT=str(pg_env["DBT_PG_PORT"]), PGUSER=pg_env["DBT_PG_USER"],
                   PGPASSWORD=pg_env["DBT_PG_PASSWORD"], PGDATABASE=pg_env["DBT_PG_DBNAME"])
    (tmp_path / "dbt-auto-cdc").symlink_to(REPO, target_is_directory=True)

    steps = walkthrough_steps(engine)
    assert [s[1] for s in steps if s[0] == "file"] == [
        "dbt_project.yml", "packages.yml", "profiles.yml", "seeds/users_cdf.csv", "models/users.sql",
        "models/users_history.sql"]
    cwd, output = tmp_path, ""
    for step in steps:
        if step[0] == "file":
            (cwd / step[1]).write_text(step[2])
        elif step[0] == "run":
            proc = subprocess.run(["bash", "-c", f"{step[1]}\npwd > '{tmp_path}/.cwd'"], cwd=cwd, env=env,
                                  capture_output=True, text=True)
            output = proc.stdout + proc.stderr
            assert proc.returncode == 0, f"`{step[1]}` failed:\n{output[-4000:]}"
            cwd = Path((tmp_path / ".cwd").read_text().strip())
        else:
            assert printed_table(output) == printed_table(step[1]), f"the README's table differs from:\n{output}"
    assert cwd == tmp_path / "cdc_demo"

    # what the walkthrough says of the targets, read from the database itself
    assert target_rows(engine, cwd, pg_env, "users") == [
        (124, "Raul", "Oaxaca"), (125, "Mercedes", "Guadalajara"), (126, "Lily", "Cancun")]
    assert target_rows(engine, cwd, pg_env, "users_history") == [
        (123, "Isabel", "Chihuahua", 5, 6), (123, "Isabel", "Monterrey", 1, 5), (124, "Raul", "Oaxaca", 1, None),
        (125, "Mercedes", "Guadalajara", 6, None), (125, "Mercedes", "Mexicali", 5, 6),
        (125, "Mercedes", "Puebla", 4, 5), (125, "Mercedes", "Tijuana", 2, 4), (126, "Lily", "Cancun", 2, None)]
    for model in ("users", "users_history"):
        for bookkeeping in ("__auto_cdc_log", "__auto_cdc_runs"):
            assert target_rows(engine, cwd, pg_env, model + bookkeeping)

    # and that `dbt show -s <model>` previews the feed, not the target
    section = SECTION.search((REPO / "README.md").read_text()).group(1)
    preview = re.search(r"`(dbt show -s users)` previews the change feed", section)
    assert preview, "the walkthrough no longer says what `dbt show -s` shows"
    proc = subprocess.run(["bash", "-c", preview[1]], cwd=cwd, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-4000:]
    header, *rows = printed_table(proc.stdout)[:1] + printed_table(proc.stdout)[2:]
    assert "operation" in header and "sequence_num" in header
    assert any("DELETE" in row for row in rows)
