"""The affected keys on the target's side of Spark's MERGE (macros/dialect/apply.sql, target_key_list_sql;
macros/builders/write.sql, merge_changes_sql): on Delta, a run whose affected keys are at most 10,000 values
of one integer column reads them as literals with the count of each path, and its MERGE requires the
target's rows to hold one of them, so that Spark drops the others as it reads the target's files. Every
source row of the MERGE has one of those keys, so the rows it matches are the same."""
from types import SimpleNamespace

import pytest

from auto_cdc_testkit.macros import render_macro

CASE = {"keys": ["k"], "types": {"k": "bigint", "v": "string"}, "new_events": 5_000, "truncates": False,
        "killed": False, "merge": True}


def key_list(**changed):
    c = {**CASE, **changed}
    macros = SimpleNamespace(
        _affected_keys_at_most=lambda args: None if c["truncates"] or c["killed"] else c["new_events"],
        _spark_has_merge=lambda: c["merge"],
        _resolve_column=lambda name, columns: next((x for x in columns if x.lower() == name.lower()), None),
        _q=lambda name: f"`{name}`")
    args = {"cfg": {"key_columns": c["keys"]}, "plan": {"types": {"target": c["types"]}}}
    return render_macro("dialect/apply.sql", "{% macro spark__target_key_list_sql", "{#- The target's rows of the affected keys",
                        "spark__target_key_list_sql(args)", globals={"auto_cdc": macros}, args=args)


@pytest.mark.parametrize("changed", [{}, {"types": {"K": "INT"}}, {"types": {"k": "smallint"}},
                                     {"new_events": 10_000},  # the limit itself
                                     {"new_events": 1}])
def test_a_delta_run_lists_a_bounded_integer_key(changed):
    assert key_list(**changed) == "concat_ws(',', collect_list(cast(`k` as string)))"


@pytest.mark.parametrize("changed", [
    {"keys": ["k", "v"]},                         # a key of two columns
    {"types": {"k": "string"}}, {"types": {"k": "date"}}, {"types": {"k": "decimal(10,0)"}},  # literals not listed
    {"types": {"other": "bigint"}},               # the key's type unknown
    {"new_events": 10_001},                       # the list would cost more than it saves
    {"truncates": True}, {"killed": True},        # affected keys without a bound
    {"merge": False},                             # parquet: no MERGE
])
def test_no_list_otherwise(changed):
    assert key_list(**changed) is None


def test_duckdb_and_postgres_list_no_keys():
    assert render_macro("dialect/apply.sql", "{% macro default__target_key_list_sql", "{#- Spark with MERGE (Delta)",
                        "default__target_key_list_sql(args)", args={}) is None


def merge_sql(target_keys):
    macros = SimpleNamespace(
        _row_key=lambda args: ["k", "__START_AT"], _alias=lambda name: "__" + name,
        _names=lambda: SimpleNamespace(internal_prefix="__auto_cdc_", end_at="__END_AT"),
        _q=lambda name: f"`{name}`", _cols=lambda cols, alias=None: ", ".join((alias + "." if alias else "") + f"`{c}`" for c in cols),
        _eq=lambda cols, a, b: " and ".join(f"{a}.`{c}` = {b}.`{c}`" for c in cols),
        broadcast_hint=lambda aliases, rows, columns: "")
    args = {"cfg": {"key_columns": ["k"], "scd": 2}, "path": {"target_keys": target_keys},
            "plan": {"target_columns": ["k", "v", "__START_AT", "__END_AT"]},
            "rel": {"target": "db.t", "temp": {"missing": "db.t__m", "stale": "db.t__s"}}}
    return render_macro("builders/write.sql", "{% macro merge_changes_sql", None,
                        "return(merge_changes_sql(args))", globals={"auto_cdc": macros}, args=args)


def test_the_merge_requires_the_listed_keys_of_the_target():
    on = next(line for line in str(merge_sql("3,1,2")).splitlines() if line.startswith("on "))
    assert on == "on t.`k` = __c.`k` and t.`__START_AT` = __c.`__START_AT` and t.`k` in (3,1,2)"
    on = next(line for line in str(merge_sql(None)).splitlines() if line.startswith("on "))
    assert on == "on t.`k` = __c.`k` and t.`__START_AT` = __c.`__START_AT`"
