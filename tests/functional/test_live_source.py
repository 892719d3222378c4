"""End to end from a live database: a Postgres server with wal_level=logical runs pgbench's TPC-B and a
script of inserts, deletes, several updates of one row in one transaction and a key change; wal2json
decodes its changes through a logical replication slot, drained in chunks into a landing table over
several runs (out of order, one chunk twice), and auto_cdc models read it with auto_cdc.from_wal2json.
After the last run each SCD1 target equals its source table, and at each log position recorded during
the workload the SCD2 rows valid there equal the copy of the source table taken at it.

The workload and its seed are printed (the test run's summary shows them); AUTO_CDC_PROPERTY_SEED
repeats the script and the deliveries (pgbench's own interleaving of its clients varies)."""
from __future__ import annotations

import os
import random
import subprocess
from dataclasses import dataclass, field

import pytest

from auto_cdc_testkit.cases import property_seed
from auto_cdc_testkit.feeds import deliveries, describe
from auto_cdc_testkit.harness import jinja_literal, sorted_rows

SLOT = "auto_cdc_live"
RUNS = 4
PHASES = 3
PGBENCH = ["-c", "4", "-j", "2", "-t", "60", "-n"]  # TPC-B ("tpcb-like"), 4 clients, 240 transactions a phase
# wal2json format 2 with each change's log position and its transaction's id, of the captured tables only
WAL2JSON = ["format-version", "2", "include-lsn", "1", "include-xids", "1",
            "add-tables", "public.pgbench_tellers,public.pgbench_branches,public.items"]
CHUNK = 100  # messages a slot read returns, about (whole transactions)


@dataclass(frozen=True)
class Table:
    name: str
    columns: dict[str, str]
    scd2: bool = True

    @property
    def key(self) -> str:
        return next(iter(self.columns))


TABLES = [
    Table("pgbench_tellers", {"tid": "integer", "bid": "integer", "tbalance": "integer", "filler": "varchar"}),
    Table("pgbench_branches", {"bid": "integer", "bbalance": "integer", "filler": "varchar"}),
    Table("items", {"id": "integer", "name": "varchar", "qty": "integer", "note": "varchar"}),
]


@dataclass
class Capture:
    """What the workload left: the slot's messages in chunks (one slot read each), the log positions
    recorded on the way with a copy of each table at them, and the tables at the end."""
    seed: int
    chunks: list[list[str]] = field(default_factory=list)
    copies: dict[int, dict[str, list[tuple]]] = field(default_factory=dict)
    final: dict[str, list[tuple]] = field(default_factory=dict)
    workload: list[str] = field(default_factory=list)


# -- the source --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def source_server():
    """A Postgres server of its own with wal_level=logical (a shared one from DBT_PG_* cannot be changed)."""
    from auto_cdc_testkit.testing import postgres
    shared = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("DBT_PG_")}
    try:
        server = postgres.start(settings={"wal_level": "logical", "max_replication_slots": "4",
                                          "max_wal_senders": "4"})
    finally:
        os.environ.update(shared)
    if server.backend != "debian":
        server.stop()
        pytest.skip("needs Debian's PostgreSQL, with pgbench and wal2json (the PyPI build the test kit falls back "
                    "to has neither)")
    yield server
    server.stop()


def connect(server):
    import psycopg2
    con = psycopg2.connect(host=server.host, port=server.port, user=server.user, password=server.password,
                           dbname=server.dbname)
    con.autocommit = True
    return con


def pgbench(server, *args: str) -> subprocess.Popen:
    env = {**os.environ, **server.libpq_env()}
    return subprocess.Popen([server.tool("pgbench"), *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def finish(proc: subprocess.Popen) -> str:
    out, _ = proc.communicate(timeout=300)
    assert proc.returncode == 0, f"{' '.join(proc.args)} failed:\n{out}"
    return out


def items_script(con, rng: random.Random, phase: int) -> None:
    """Transactions on `items`, beside pgbench: inserts; several updates of one row and an insert and a
    delete in one transaction; deletes (their identity holds only the key); a delete and an insert of one
    key in one transaction; a row inserted, updated twice and deleted in one transaction; a change of the
    key; a rolled-back savepoint."""
    base = phase * 100
    with con.cursor() as cur:
        cur.execute("select coalesce(array_agg(id order by id), '{}') from items")
        existing = list(cur.fetchone()[0])

        def tx(*statements):
            cur.execute("begin")
            for sql, params in statements:
                cur.execute(sql, params)
            cur.execute("commit")

        fresh = [base + i for i in range(1, 9)]
        tx(*[("insert into items values (%s, %s, %s, %s)", (i, f"item {i}", rng.randint(1, 50), None)) for i in fresh])
        ids = existing + fresh
        hot, gone = rng.sample(ids, 2)
        tx(("update items set qty = qty + 1 where id = %s", (hot,)),
           ("update items set name = name || ' (edited)' where id = %s", (hot,)),
           ("update items set qty = qty * 2, note = %s where id = %s", (f"phase {phase}", hot)),
           ("insert into items values (%s, %s, %s, %s)", (base + 50, "late arrival", 1, "it's new")),
           ("delete from items where id = %s", (gone,)))
        ids = [i for i in ids if i != gone] + [base + 50]
        for i in rng.sample(ids, 2):
            tx(("delete from items where id = %s", (i,)))
            ids.remove(i)
        again = rng.choice(ids)
        tx(("delete from items where id = %s", (again,)),
           ("insert into items values (%s, %s, %s, %s)", (again, f"item {again} again", 7, "re-inserted")))
        tx(("insert into items values (%s, 'brief', 1, null)", (base + 60,)),
           ("update items set qty = 2 where id = %s", (base + 60,)),
           ("update items set qty = 3 where id = %s", (base + 60,)),
           ("delete from items where id = %s", (base + 60,)))
        moved = rng.choice(ids)
        tx(("update items set id = %s, note = 'moved' where id = %s", (base + 70, moved)))
        ids = [i for i in ids if i != moved] + [base + 70]
        kept = rng.choice(ids)
        tx(("savepoint s", None), ("update items set name = 'rolled back' where id = %s", (kept,)),
           ("rollback to savepoint s", None), ("update items set qty = 0 where id = %s", (kept,)))


def record_position(con, capture: Capture) -> None:
    """The log position and a copy of every captured table at it: under a SHARE lock of the tables no
    transaction that writes them is in flight, so every change below the position is committed and in
    the copy, and every later one is above it."""
    with con.cursor() as cur:
        cur.execute("begin")
        cur.execute("lock table " + ", ".join(t.name for t in TABLES) + " in share mode")
        cur.execute("select pg_current_wal_lsn() - '0/0'::pg_lsn")
        position = int(cur.fetchone()[0])
        capture.copies[position] = {t.name: read_table(cur, t) for t in TABLES}
        cur.execute("commit")


def read_table(cur, table: Table) -> list[tuple]:
    cur.execute(f"select {', '.join(table.columns)} from {table.name}")
    return sorted_rows([dict(zip(table.columns, r)) for r in cur.fetchall()], list(table.columns))


def drain(con, capture: Capture) -> None:
    """Read the slot in chunks of whole transactions until it has nothing new."""
    options = ", ".join(f"'{o}'" for o in WAL2JSON)
    with con.cursor() as cur:
        while True:
            cur.execute(f"select data from pg_logical_slot_get_changes('{SLOT}', null, {CHUNK}, {options})")
            rows = [r[0] for r in cur.fetchall()]
            if not rows:
                return
            capture.chunks.append(rows)


@pytest.fixture(scope="module")
def live_feed(source_server) -> Capture:
    seed = property_seed()
    rng = random.Random(f"live-{seed}")
    capture = Capture(seed)
    con = connect(source_server)
    try:
        with con.cursor() as cur:
            cur.execute("create table items (id integer primary key, name text, qty integer, note text)")
            try:
                cur.execute(f"select pg_create_logical_replication_slot('{SLOT}', 'wal2json')")
            except Exception as exc:  # noqa: BLE001
                pytest.fail(f"wal2json is not installed for PostgreSQL {source_server.version}: "
                            f"`bash scripts/bootstrap.sh` installs it as root (apt-get install "
                            f"postgresql-<version>-wal2json) ({exc})")
        capture.workload.append(f"pgbench -i -s 1 (slot {SLOT} created before it: the tellers' and branches' rows "
                                f"arrive as inserts)")
        finish(pgbench(source_server, "-i", "-s", "1", "-q"))
        for phase in range(1, PHASES + 1):
            args = [*PGBENCH, f"--random-seed={seed + phase}"]
            bench = pgbench(source_server, *args)
            items_script(con, rng, phase)
            record_position(con, capture)
            out = finish(bench)
            done = next((line for line in out.splitlines() if "processed" in line), "").strip()
            capture.workload.append(f"phase {phase}: pgbench {' '.join(args)} ({done}) beside the items script; "
                                    f"a position recorded while it ran")
            drain(con, capture)
        record_position(con, capture)
        drain(con, capture)
        with con.cursor() as cur:
            capture.final = {t.name: read_table(cur, t) for t in TABLES}
    finally:
        con.close()
    capture.workload.append(f"{sum(len(c) for c in capture.chunks)} wal2json messages in {len(capture.chunks)} "
                            f"slot reads; positions {sorted(capture.copies)}; seed {seed}")
    return capture


# -- the targets -------------------------------------------------------------------------------------
def install(project) -> None:
    (project.path / "models" / "landing.yml").write_text(
        f"version: 2\nsources:\n  - name: landing\n    schema: '{project.schema}'\n    tables:\n      - name: wal2json\n")
    project.table("wal2json", [("data", "text")])
    for t in TABLES:
        for scd in (1, 2) if t.scd2 else (1,):
            (project.path / "models" / f"{t.name}_scd{scd}.sql").write_text(
                f"{{{{ config(materialized='auto_cdc', keys=['{t.key}'], stored_as_scd_type={scd}, "
                f"**auto_cdc.source_configs()) }}}}\n"
                f"select * from {{{{ auto_cdc.from_wal2json(source('landing', 'wal2json'), table='{t.name}', "
                f"schema='public', columns={jinja_literal(t.columns)}) }}}}\n")


def valid_at(rows: list[dict], position: int, columns: list[str]) -> list[tuple]:
    return sorted_rows([r for r in rows if r["__START_AT"] <= position
                        and (r["__END_AT"] is None or r["__END_AT"] > position)], columns)


def test_a_live_postgres_source_through_wal2json_equals_its_tables_at_every_recorded_position(
        make_project, live_feed, record_property):
    capture = live_feed
    plan = deliveries(capture.chunks, RUNS, random.Random(f"live-{capture.seed}-deliveries"))
    order = [[capture.chunks.index(c) for c in run] for run in plan]
    workload = "\n".join(capture.workload + [f"deliveries (slot reads by number): {describe(order)}"])
    print(workload)
    record_property("printed", "live source: " + workload.replace("\n", "\n  "))
    project = make_project("live")
    install(project)
    for run in plan:
        for chunk in run:
            project.insert("wal2json", ["data"], [(m,) for m in chunk])
        project.run()
    wrong = []
    for t in TABLES:
        columns = list(t.columns)
        current = sorted_rows(project.rows(f"{t.name}_scd1"), columns)
        if current != capture.final[t.name]:
            wrong.append(f"{t.name}_scd1 differs from the source table:\n  target {current}\n  source {capture.final[t.name]}")
        if not t.scd2:
            continue
        history = project.rows(f"{t.name}_scd2")
        for position, copies in sorted(capture.copies.items()):
            at = valid_at(history, position, columns)
            if at != copies[t.name]:
                wrong.append(f"{t.name}_scd2 at {position} differs from the copy taken there:\n"
                             f"  target {at}\n  copy   {copies[t.name]}")
    assert not wrong, workload + "\n" + "\n".join(wrong)
