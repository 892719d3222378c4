"""Spark's join hint (macros/dialect/expressions.sql, broadcast_hint): a run asks Spark to broadcast the
small side of a join with the target or the log only when it knows that side holds at most 2,000,000
values (rows x the columns the join reads); a larger side, or one of unknown size, is left to Spark's own
choice (a broadcast has to fit in the driver's memory)."""
import pytest

from auto_cdc_testkit.macros import render_macro


def spark_hint(aliases, rows, columns):
    return render_macro("dialect/expressions.sql", "{% macro spark__broadcast_hint", "{#- The column names",
                        "spark__broadcast_hint(aliases, rows, columns)", aliases=aliases, rows=rows, columns=columns)


@pytest.mark.parametrize("rows, columns", [(0, 1), (1, 1), (10_000, 6), (100_000, 20), (2_000_000, 1)])
def test_a_join_side_known_to_be_small_is_broadcast(rows, columns):
    assert spark_hint(["k"], rows, columns) == "/*+ BROADCAST(k) */ "
    assert spark_hint(["a", "b"], rows, columns) == "/*+ BROADCAST(a, b) */ "


@pytest.mark.parametrize("rows, columns", [(None, 1), (100_001, 20), (2_000_001, 1), (10_000_000, 2)])
def test_a_large_or_unknown_join_side_is_left_to_spark(rows, columns):
    assert spark_hint(["k"], rows, columns) == ""


def test_duckdb_and_postgres_get_no_hint():
    assert render_macro("dialect/expressions.sql", "{% macro default__broadcast_hint", "{#- Spark: a join",
                        "default__broadcast_hint(aliases, rows, columns)", aliases=["k"], rows=1, columns=1) == ""


def affected_keys_at_most(killed=False, truncates=False, new_events=100_000):
    return render_macro("dialect/apply.sql", "{% macro _affected_keys_at_most", "{#- The target's rows of the affected keys",
                        "_affected_keys_at_most(args)",
                        args={"plan": {"killed": killed, "truncates": truncates, "new_events": new_events}})


def test_the_affected_keys_are_bounded_by_the_new_events_unless_a_truncate_or_a_killed_run_adds_keys():
    assert affected_keys_at_most() == 100_000
    assert affected_keys_at_most(killed=True) is None
    assert affected_keys_at_most(truncates=True) is None


def fast_keys_hint(aliases, killed, new_events=100_000):
    """shapes/in_order.sql's _fast_keys_hint, with broadcast_hint shown as the aliases and the bound it is given."""
    from types import SimpleNamespace
    shown = SimpleNamespace(
        broadcast_hint=lambda a, rows, columns: f"BROADCAST({', '.join(a)}) <= {rows}",
        _affected_keys_at_most=lambda args: affected_keys_at_most(**args["plan"]))
    return render_macro("shapes/in_order.sql", "{% macro _fast_keys_hint", "{#- The columns an SCD2 fast-path event",
                        "_fast_keys_hint(args, aliases, 3)", globals={"auto_cdc": shown},
                        args={"plan": {"killed": killed, "truncates": False, "new_events": new_events}}, aliases=aliases)


def test_the_fast_rows_broadcast_the_affected_keys_and_open_versions_bounded_by_the_new_events():
    assert fast_keys_hint(["a", "h"], killed=False) == "BROADCAST(a, h) <= 100000"
    assert fast_keys_hint(["a"], killed=False, new_events=7) == "BROADCAST(a) <= 7"


def test_after_a_killed_run_the_affected_keys_have_no_bound_and_are_left_to_spark():
    # a killed run's keys join the affected keys: only the fast keys' open versions keep their bound
    assert fast_keys_hint(["a", "h"], killed=True) == "BROADCAST(h) <= 100000"
    assert fast_keys_hint(["a"], killed=True) == ""
