"""Spark's reads of a run's small tables (macros/dialect/expressions.sql, one_partition_reads): where the
batch holds at most 200,000 rows, a statement reads the batch, its new events and (unless a truncate or a
killed run adds keys beyond the batch's) the affected keys as one partition each, so that Spark exchanges
no rows for their GROUP BYs, windows and joins; every other table, a larger or uncounted batch, and the
other engines keep their reads."""
from types import SimpleNamespace

import pytest

from auto_cdc_testkit.macros import render_macro

TEMP = {name: f"s.t__auto_cdc_{name}" for name in ("batch", "new", "affected", "logged", "held", "desired")}


def args(batch_rows=10_000, run=None):
    return {"plan": {"batch_rows": batch_rows, **(run or {})}, "rel": {"temp": SimpleNamespace(**TEMP)}}


def run(killed=False, truncates=False):
    return {"run_id": 3, "killed": killed, "truncates": truncates, "new_events": 10}


def spark(a, sql):
    shown = SimpleNamespace(_affected_keys_at_most=lambda a: render_macro(
        "dialect/apply.sql", "{% macro _affected_keys_at_most", "{#- A condition on the target's rows",
        "_affected_keys_at_most(args)", args=a))
    return render_macro("dialect/expressions.sql", "{% macro spark__one_partition_reads", "{#- The column names",
                        "spark__one_partition_reads(args, sql)", globals={"auto_cdc": shown}, args=a, sql=sql)


def one(name):
    return f"(select /*+ COALESCE(1) */ * from s.t__auto_cdc_{name})"


def test_the_batch_and_its_new_events_are_read_as_one_partition_after_from_and_join():
    sql = ("select b.k from s.t__auto_cdc_batch b join s.t__auto_cdc_new n on n.k = b.k\n"
           "left join s.t__auto_cdc_logged l on l.k = b.k where exists (select 1 from s.t__auto_cdc_new)")
    assert spark(args(), sql) == (f"select b.k from {one('batch')} b join {one('new')} n on n.k = b.k\n"
                                  f"left join s.t__auto_cdc_logged l on l.k = b.k where exists (select 1 from {one('new')})")


def test_the_table_a_statement_creates_inserts_into_or_deletes_from_keeps_its_name():
    sql = ("create table s.t__auto_cdc_new using parquet as select * from s.t__auto_cdc_batch;"
           " insert into s.t__auto_cdc_new select * from s.t__auto_cdc_batch; delete from s.t__auto_cdc_new where k = 1")
    assert spark(args(), sql) == (f"create table s.t__auto_cdc_new using parquet as select * from {one('batch')};"
                                  f" insert into s.t__auto_cdc_new select * from {one('batch')};"
                                  " delete from s.t__auto_cdc_new where k = 1")


def test_a_longer_name_that_starts_with_a_small_tables_is_not_taken_for_it():
    sql = "select * from s.t__auto_cdc_new_x join s.t__auto_cdc_batch2 on true join s.t__auto_cdc_new.k"
    assert spark(args(), sql) == sql


def test_a_list_of_statements_is_read_statement_by_statement():
    assert spark(args(), ["select 1 from s.t__auto_cdc_batch", "select 2 from s.t__auto_cdc_held"]) == [
        f"select 1 from {one('batch')}", "select 2 from s.t__auto_cdc_held"]


@pytest.mark.parametrize("batch_rows", [None, 200_001, 10_000_000])
def test_a_large_or_uncounted_batch_keeps_every_read(batch_rows):
    sql = "select * from s.t__auto_cdc_batch join s.t__auto_cdc_new using (k)"
    assert spark(args(batch_rows), sql) == sql


def test_the_affected_keys_are_read_as_one_partition_once_the_run_knows_they_are_the_new_events_keys():
    sql = "select count(*) from s.t__auto_cdc_affected"
    assert spark(args(200_000), sql) == sql  # before the run's facts are read
    assert spark(args(200_000, run()), sql) == f"select count(*) from {one('affected')}"
    assert spark(args(200_000, run(killed=True)), sql) == sql
    assert spark(args(200_000, run(truncates=True)), sql) == sql


def test_duckdb_and_postgres_keep_every_read():
    sql = ["select * from s.t__auto_cdc_batch"]
    assert render_macro("dialect/expressions.sql", "{% macro default__one_partition_reads", "{#- Spark: a GROUP BY",
                        "default__one_partition_reads(args, sql)", args=args(), sql=sql) is sql
