"""Spark's join hint (macros/dialect/expressions.sql, broadcast_hint): a run asks Spark to broadcast the
small side of a join with the target or the log only when it knows that side holds at most 100,000 rows;
a larger batch, or one of unknown size, is left to Spark's own choice (a broadcast of millions of rows
would have to fit in the driver's memory)."""
import pytest

from auto_cdc_testkit.macros import render_macro


def spark_hint(aliases, rows):
    return render_macro("dialect/expressions.sql", "{% macro spark__broadcast_hint", "{#- The column names",
                        "spark__broadcast_hint(aliases, rows)", aliases=aliases, rows=rows)


@pytest.mark.parametrize("rows", [0, 1, 10_000, 100_000])
def test_a_join_side_known_to_be_small_is_broadcast(rows):
    assert spark_hint(["k"], rows) == "/*+ BROADCAST(k) */ "
    assert spark_hint(["a", "b"], rows) == "/*+ BROADCAST(a, b) */ "


@pytest.mark.parametrize("rows", [None, 100_001, 10_000_000])
def test_a_large_or_unknown_join_side_is_left_to_spark(rows):
    assert spark_hint(["k"], rows) == ""


def test_duckdb_and_postgres_get_no_hint():
    assert render_macro("dialect/expressions.sql", "{% macro default__broadcast_hint", "{#- Spark: a join",
                        "default__broadcast_hint(aliases, rows)", aliases=["k"], rows=1) == ""
