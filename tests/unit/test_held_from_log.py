"""When a run takes the rows its keys hold from the log instead of reading the target (shapes/in_order.sql,
held_from_log_applies): only on an unedited target, where each key's row after the run replaces the one it
held, the run changes no column, the write is a MERGE that counts its own changes, and no change table beside
the target records the rows (their values are then read by nothing but that MERGE)."""
from types import SimpleNamespace

import pytest

from auto_cdc_testkit.macros import render_macro

CASE = {"unedited": True, "scd": 2, "replaces": True, "add": [], "drop": [], "widen": {}, "merge_counts": True,
        "change_data_feed": False, "change_table": False}


def applies(**changed):
    c = {**CASE, **changed}
    engine = SimpleNamespace(merge_counts=c["merge_counts"], change_table=c["change_table"])
    macros = SimpleNamespace(in_order_replaces_held=lambda args: c["replaces"], _engine=lambda: engine)
    config = SimpleNamespace(get=lambda name, default=None: {"change_data_feed": c["change_data_feed"]}.get(name, default))
    args = {"plan": {"unedited": c["unedited"]}, "cfg": {"scd": c["scd"]},
            "cols": {"add_columns": c["add"], "drop_columns": c["drop"], "widen_columns": c["widen"]}}
    return render_macro("shapes/in_order.sql", "{% macro held_from_log_applies", "{#- The held rows where the log",
                        "held_from_log_applies(args)", globals={"auto_cdc": macros, "config": config}, args=args)


@pytest.mark.parametrize("scd", [1, 2])
def test_an_unedited_delta_target_is_not_read_for_the_held_rows(scd):
    assert applies(scd=scd) is True
    # Delta's own change data feed reads the target's commits, not the held rows
    assert applies(scd=scd, change_data_feed=True) is True


@pytest.mark.parametrize("changed", [
    {"unedited": False},                          # hand edits possible: the target's rows are read and compared
    {"scd": "bitemporal"},                        # no fast path
    {"replaces": False},                          # SCD2 absorbing an upsert, SCD1 hiding a sequence: rows compared
    {"add": ["email"]}, {"drop": ["extra"]}, {"widen": {"a": "bigint"}},  # the run changes a column
    {"merge_counts": False},                      # DuckDB, Postgres, parquet: the held rows are counted and written
    {"change_data_feed": True, "change_table": True},  # a change table records the held rows' values
])
def test_the_target_is_read_for_the_held_rows_otherwise(changed):
    assert applies(**changed) is False
