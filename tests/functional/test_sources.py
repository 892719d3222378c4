"""The source-format macros on recorded samples of each format (tests/functional/samples/, written to each
format's documentation): landed in chunks over several runs, out of order and one chunk twice, the SCD1 and
SCD2 targets equal, after every run, the reference model applied to what the landed messages mean. That
meaning is written out here by hand, message by message, next to the format's rules it shows."""
from __future__ import annotations

import csv
import json
import random
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from pathlib import Path


from auto_cdc_testkit import reference as ref
from auto_cdc_testkit.cases import property_seed
from auto_cdc_testkit.feeds import chunk, deliveries, describe, lsn_number
from auto_cdc_testkit.harness import jinja_literal, sorted_rows, spark_type

SAMPLES = Path(__file__).parent / "samples"
RUNS = 4
U, D = ref.UPSERT, ref.DELETE


def upsert(key, seq, **values):
    return [ref.Event((key,), seq, U, values)]


def delete(key, seq):
    return [ref.Event((key,), seq, D, {})]


NOTHING: list = []


@dataclass
class Sample:
    """A landed feed: its table's columns and rows (in the source's log order), what each row means
    (reference events), and the model's FROM item over the landing table."""
    name: str
    landing: list[tuple[str, str]]
    rows: list[tuple]
    meaning: list[list[ref.Event]]
    columns: dict[str, str]
    from_item: str  # the macro's call; `{columns}` stands for the columns and their types

    def model(self, engine: str) -> str:
        types = {c: spark_type(t) if engine == "spark" else t for c, t in self.columns.items()}
        return "select * from {{ " + self.from_item.replace("{columns}", jinja_literal(types)) + " }}"

    def __post_init__(self):
        assert len(self.rows) == len(self.meaning), f"{self.name}: {len(self.rows)} rows, {len(self.meaning)} meanings"

    def expected(self, delivered: set[int], scd: int) -> list[tuple]:
        events = [e for i in sorted(delivered) for e in self.meaning[i]]
        config = ref.Config(columns=tuple(self.columns), key_columns=(self.key,), scd_type=scd)
        return sorted_rows(ref.apply(events, config), self.target_columns(scd))

    @property
    def key(self) -> str:
        return next(iter(self.columns))

    def target_columns(self, scd: int) -> list[str]:
        return list(self.columns) + ([] if scd == 1 else ["__START_AT", "__END_AT"])


def jsonl(name: str) -> list[tuple]:
    """One landed row per line; a Kafka tombstone (`null`) lands as a NULL value."""
    return [(None if line == "null" else line,) for line in (SAMPLES / name).read_text().splitlines()]


# -- Debezium: the Postgres connector, JsonConverter with schemas (each value is {"schema", "payload"}) -----------
def customer(key, seq, first, last, email):
    return upsert(key, seq, first_name=first, last_name=last, email=email)


SNAPSHOT = 2 ** 62  # a snapshot read's sequence is its position less this: below every streamed change

DEBEZIUM_MEANING = [
    # the initial snapshot (op r, source.lsn the snapshot's position) loads the target: before any change
    customer(1001, 24023128 - SNAPSHOT, "Sally", "Thomas", "sally.thomas@acme.com"),
    customer(1002, 24023128 - SNAPSHOT, "George", "Bailey", "gbailey@foobar.com"),
    customer(1003, 24023128 - SNAPSHOT, "Edward", "Walker", "ed@walker.com"),
    # a transaction that began before the snapshot and committed after it: its change sits at a lower
    # position than the snapshot's, and still wins over the snapshot read of the same row
    customer(1003, 24022904, "Edward", "Walker", "ed.walker@acme.com"),
    # two changes of one row in one transaction (txId 556): the later position wins
    customer(1004, 24023640, "Anne", "Kretchmar", "annek@noanswer.org"),
    customer(1004, 24023712, "Anne", "Kretchmar", "anne.k@acme.com"),
    customer(1001, 24023904, "Sally", "Connor", "sally.thomas@acme.com"),
    # a delete whose `before` holds only the key (REPLICA IDENTITY DEFAULT), then its tombstone
    delete(1002, 24024100),
    NOTHING,
    customer(1002, 24024300, "George", "Bailey", "george@bailey.org"),
    customer(1002, 24024388, "Georgie", "Bailey", "george@bailey.org"),
    delete(1004, 24024500),
    NOTHING,
    customer(1005, 24024800, "Kenneth", "Anderson", "kander@acme.com"),
    # transactions 563 and 562 overlap: 563 commits first, with a lower position; different rows
    customer(1003, 24024950, "Ed", "Walker", "ed.walker@acme.com"),
    customer(1001, 24025000, "Sally", "Connor", "sally@connor.net"),
    # an incremental snapshot reads 1001 again, with other values than the first snapshot's: the later read
    # orders above the earlier one (no conflict) and below every streamed change
    customer(1001, 24025300 - SNAPSHOT, "Sally", "Connor", "sally@connor.net"),
]
DEBEZIUM_COLUMNS = {"id": "integer", "first_name": "varchar", "last_name": "varchar", "email": "varchar"}


def debezium(bare: bool) -> Sample:
    rows = jsonl("debezium_customers.jsonl")
    if bare:  # the same messages from a converter without schemas: the envelope itself
        rows = [(None if v is None else json.dumps(json.loads(v)["payload"]),) for (v,) in rows]
    name = "debezium_bare" if bare else "debezium"
    return Sample(name, [("value", "text")], rows, DEBEZIUM_MEANING, DEBEZIUM_COLUMNS,
                  f"auto_cdc.from_debezium(source('landing', '{name}'), columns={{columns}})")


# -- wal2json format 2, with include-lsn and include-xids, its transaction markers and another table ---------------
def item(key, lsn, name, price, at):
    return upsert(key, lsn_number(lsn), name=name, price=Decimal(price), updated_at=datetime.fromisoformat(at))


WAL2JSON_MEANING = [
    NOTHING,  # B 740
    item(1, "0/16C6818", "Widget", "9.99", "2024-05-01 10:00:00"),
    item(2, "0/16C6900", "Gadget", "24.50", "2024-05-01 10:00:00"),
    item(3, "0/16C6988", "Doohickey", "5.00", "2024-05-01 10:00:00"),
    NOTHING,  # C 740
    NOTHING,  # B 741
    # two updates of one row in one transaction
    item(1, "0/16C6B00", "Widget", "10.49", "2024-05-01 10:05:00"),
    item(1, "0/16C6BA0", "Widget Pro", "10.99", "2024-05-01 10:05:00"),
    NOTHING,  # a change of another table (public.audit)
    # a delete whose identity holds only the key
    delete(2, lsn_number("0/16C6C40")),
    NOTHING,  # C 741
    NOTHING,  # B 743
    item(4, "0/16C7020", "Sprocket", "3.25", "2024-05-01 10:07:00"),
    NOTHING,  # C 743: before 742, whose change sits at a lower position
    NOTHING,  # B 742
    # an update of the key, 3 to 30: the identity holds the old key, which the same position deletes
    item(30, "0/16C6F80", "Doohickey", "5.00", "2024-05-01 10:06:00") + delete(3, lsn_number("0/16C6F80")),
    NOTHING,  # C 742
    NOTHING,  # B 744
    # a delete and an insert of one key in one transaction
    delete(1, lsn_number("0/16C7300")),
    item(1, "0/16C7380", "Widget (new)", "11.00", "2024-05-01 10:10:00"),
    item(4, "0/16C7400", "Sprocket", "3.50", "2024-05-01 10:10:00"),
    NOTHING,  # C 744
    NOTHING,  # B 745
    item(30, "0/16C7570", 'Doohickey "XL" – ünïcode', "6.00", "2024-05-01 10:12:00"),
    NOTHING,  # C 745
]
WAL2JSON_COLUMNS = {"id": "integer", "name": "varchar", "price": "numeric(10,2)", "updated_at": "timestamp"}


def wal2json() -> Sample:
    return Sample("wal2json", [("data", "text")], jsonl("wal2json_items.jsonl"), WAL2JSON_MEANING, WAL2JSON_COLUMNS,
                  "auto_cdc.from_wal2json(source('landing', 'wal2json'), table='items', schema='public', columns={columns})")


# -- AWS DMS: its full load and its changes landed as text (CSV), with TimestampColumnName and $AR_H_CHANGE_SEQ -----
def account(key, seq, owner, balance):
    return upsert(key, Decimal(seq), owner=owner, balance=Decimal(balance))


DMS_MEANING = [
    # the full load (no Op, no change sequence) loads the target before every change, though DMS stamps
    # its rows with the time it copied them, after the commit of the change below
    account(1, 0, "Alice", "100.00"),
    account(2, 0, "Bob", "50.00"),
    account(3, 0, "Carol", "75.00"),
    account(3, 20240501120002000000000000000000101, "Carol", "80.00"),
    # two changes of one row in one transaction: the same commit time, the change sequence orders them
    account(4, 20240501120100000000000000000000201, "Dan", "10.00"),
    account(4, 20240501120100000000000000000000202, "Dan", "15.00"),
    account(1, 20240501120130000000000000000000251, "Alice", "120.00"),
    # a delete that carries only the key (a Postgres source's default replica identity)
    delete(2, Decimal(20240501120200000000000000000000301)),
    account(2, 20240501120240000000000000000000351, "Bob", "0.00"),
    delete(4, Decimal(20240501120300000000000000000000401)),
    account(3, 20240501120300000000000000000000402, "Carol", "95.50"),
]
DMS_COLUMNS = {"account_id": "integer", "owner": "varchar", "balance": "numeric(10,2)"}


def dms() -> Sample:
    with open(SAMPLES / "dms_accounts.csv", newline="") as f:
        lines = list(csv.reader(f))
    landing = [(name, "varchar") for name in lines[0]]
    rows = [tuple(v if v != "" else None for v in line) for line in lines[1:]]
    return Sample("dms", landing, rows, DMS_MEANING, DMS_COLUMNS,
                  "auto_cdc.from_dms(source('landing', 'dms'), sequence_column='_dms_change_seq', columns={columns})")


# -- Fivetran's soft deletes: the rows each sync changed, `_fivetran_deleted` and `_fivetran_synced` ---------------
def synced(day):
    return datetime(2024, 6, day)


FIVETRAN_MEANING = [
    upsert(1, synced(1), name="ann", plan="free"),
    upsert(2, synced(1), name="bo", plan="pro"),
    upsert(3, synced(1), name="cy", plan="free"),
    upsert(2, synced(2), name="bo", plan="enterprise"),
    # a soft-deleted row keeps its last values and its flag
    delete(3, synced(2)),
    upsert(3, synced(3), name="cy", plan="pro"),
    upsert(1, synced(3), name="ann", plan="pro"),
    delete(1, synced(4)),
    upsert(4, synced(4), name="di", plan="free"),
]


def fivetran() -> Sample:
    with open(SAMPLES / "fivetran_customers.csv", newline="") as f:
        lines = list(csv.reader(f))
    landing = [("id", "integer"), ("name", "varchar"), ("plan", "varchar"), ("_fivetran_deleted", "boolean"),
               ("_fivetran_synced", "timestamp")]
    rows = [(int(i), n, p, d == "true", datetime.fromisoformat(s)) for i, n, p, d, s in lines[1:]]
    return Sample("fivetran", landing, rows, FIVETRAN_MEANING, {"id": "integer", "name": "varchar", "plan": "varchar"},
                  "auto_cdc.from_soft_deletes(source('landing', 'fivetran'))")


def install(project, samples: list[Sample], scds=(1, 2)) -> None:
    """The landing tables (a source each) and an SCD1 and an SCD2 model over each sample."""
    tables = "".join(f"      - name: {s.name}\n" for s in samples)
    (project.path / "models" / "landing.yml").write_text(
        f"version: 2\nsources:\n  - name: landing\n    schema: '{project.schema}'\n    tables:\n{tables}")
    for s in samples:
        project.table(s.name, s.landing)
        for scd in scds:
            (project.path / "models" / f"{s.name}_scd{scd}.sql").write_text(
                f"{{{{ config(materialized='auto_cdc', keys=['{s.key}'], stored_as_scd_type={scd}, "
                f"**auto_cdc.source_configs()) }}}}\n{s.model(project.engine)}\n")


def test_recorded_samples_landed_out_of_order_equal_the_reference_model(make_project):
    samples = [debezium(bare=False), debezium(bare=True), wal2json(), dms(), fivetran()]
    project = make_project("sources")
    install(project, samples)
    seed = property_seed()
    plans = {s.name: deliveries(chunk(len(s.rows), random.Random(f"{seed}-{s.name}")), RUNS,
                                random.Random(f"{seed}-{s.name}-order")) for s in samples}
    delivered: dict[str, set[int]] = {s.name: set() for s in samples}
    for run in range(RUNS):
        for s in samples:
            for c in plans[s.name][run]:
                project.insert(s.name, [name for name, _ in s.landing], [s.rows[i] for i in c])
                delivered[s.name].update(c)
        project.run()
        wrong = []
        for s in samples:
            for scd in (1, 2):
                actual = sorted_rows(project.rows(f"{s.name}_scd{scd}"), s.target_columns(scd))
                expected = s.expected(delivered[s.name], scd)
                if actual != expected:
                    wrong.append(f"{s.name}_scd{scd} after run {run + 1} (deliveries {describe(plans[s.name])}):\n"
                                 f"  target   {actual}\n  expected {expected}")
        assert not wrong, f"AUTO_CDC_PROPERTY_SEED={seed}:\n" + "\n".join(wrong)
    assert all(delivered[s.name] == set(range(len(s.rows))) for s in samples)


def test_dms_by_commit_time_loads_the_full_load_first_and_stops_on_two_changes_of_a_row_in_one_transaction(project):
    """Without $AR_H_CHANGE_SEQ the commit time orders: a full-load row (no Op), stamped with the time DMS
    copied it, still loads before a change committed earlier; two changes of one row in one transaction share
    their commit time, and the run stops on the conflict instead of picking one."""
    landing = [("Op", "varchar"), ("_dms_timestamp", "varchar"), ("account_id", "integer"), ("owner", "varchar")]
    project.table("dms", landing, [(None, "2024-05-01 12:00:05.000000", 3, "copied"),
                                   ("U", "2024-05-01 12:00:02.000000", 3, "changed during the load")])
    (project.path / "models" / "landing.yml").write_text(
        f"version: 2\nsources:\n  - name: landing\n    schema: '{project.schema}'\n    tables:\n      - name: dms\n")
    project.model("accounts", "select * from {{ auto_cdc.from_dms(source('landing', 'dms'), timestamp_column='_dms_timestamp') }}",
                  materialized="auto_cdc", keys=["account_id"], sequence_by="_cdc_sequence",
                  apply_as_deletes="_cdc_deleted", except_column_list=["_cdc_deleted"])
    project.run()
    assert sorted_rows(project.rows("accounts"), ["account_id", "owner", "_cdc_sequence"]) == [
        (3, "changed during the load", datetime(2024, 5, 1, 12, 0, 2))]
    project.insert("dms", [c for c, _ in landing], [("U", "2024-05-01 12:01:00.000000", 3, "first"),
                                                    ("U", "2024-05-01 12:01:00.000000", 3, "second")])
    result = project.run(check=False)
    assert not result.ok and "conflicting events" in result.output and "account_id=3" in result.output


def test_a_source_macro_called_without_what_it_needs_says_what_to_pass_when_dbt_parses_the_model(project):
    project.table("landed", [("value", "text")])
    landed = project.relation("landed")
    for name, call, message in [
            ("no_columns", f"auto_cdc.from_debezium('{landed}', columns=none)",
             "auto_cdc.from_debezium: columns must name the payload's columns and their types"),
            ("no_order", f"auto_cdc.from_dms('{landed}', columns=['value'])",
             "auto_cdc.from_dms: name the column that orders the changes: sequence_column")]:
        project.model(name, f"select * from {{{{ {call} }}}}", materialized="view")
        result = project.run(check=False)
        assert not result.ok and message in result.output and name in result.output
        project.remove_model(name)
