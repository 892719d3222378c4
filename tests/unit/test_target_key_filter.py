"""The condition on the target's side of Spark's MERGE (macros/dialect/apply.sql, target_key_filter_sql and
target_key_filter; macros/builders/write.sql, merge_changes_sql): on Delta, a run whose affected keys are at
most 100,000 values of one integer column reads, with the count of each path, a list of them (up to 10,000)
or a bitmap of their values modulo a prime, and its MERGE requires the target's rows to be in the list or to
have their bit set, so that Spark drops most others as it reads the target's files. Every source row of the
MERGE has an affected key, and every affected key passes, so the rows it matches are the same (the Delta
examples test runs both on real Spark: test_spark.py, the wide batch)."""
from types import SimpleNamespace

import pytest

from auto_cdc_testkit.macros import render_macro

CASE = {"keys": ["k"], "types": {"k": "bigint", "v": "string"}, "new_events": 5_000, "truncates": False,
        "killed": False, "merge": True}
START, END = "{% macro _spark_key_filter", "{#- The target's rows of the affected keys"


def _macros(c, **more):
    return SimpleNamespace(
        _affected_keys_at_most=lambda args: None if c["truncates"] or c["killed"] else c["new_events"],
        _spark_has_merge=lambda: c["merge"],
        _resolve_column=lambda name, columns: next((x for x in columns if x.lower() == name.lower()), None),
        _q=lambda name: f"`{name}`", **more)


def key_filter(**changed):
    c = {**CASE, **changed}
    args = {"cfg": {"key_columns": c["keys"]}, "cols": {"types": {"target": c["types"]}}}
    return render_macro("dialect/apply.sql", START, END, "_spark_key_filter(args)", globals={"auto_cdc": _macros(c)},
                        args=args)


def rendered(call, chosen, **values):
    """spark__target_key_filter_sql or spark__target_key_filter where _spark_key_filter chose `chosen`."""
    args = {"rel": {"temp": {"affected": "db.t__affected"}}}
    return render_macro("dialect/apply.sql", START, END, call,
                        globals={"auto_cdc": _macros(CASE, _spark_key_filter=lambda args: chosen)}, args=args, **values)


@pytest.mark.parametrize("changed", [{}, {"types": {"K": "INT"}}, {"types": {"k": "smallint"}},
                                     {"new_events": 10_000},  # the list's limit itself
                                     {"new_events": 1}])
def test_a_delta_run_lists_up_to_10000_keys_of_one_integer_column(changed):
    assert key_filter(**changed) == {"key": "`k`", "list": True}


@pytest.mark.parametrize("new_events, slots", [(10_001, 131071), (16_383, 131071), (16_384, 262139),
                                               (32_768, 524287), (100_000, 1048573)])
def test_above_10000_keys_a_bitmap_of_a_prime_at_least_8_times_as_many_bits(new_events, slots):
    assert key_filter(new_events=new_events) == {"key": "`k`", "slots": slots}


@pytest.mark.parametrize("changed", [
    {"keys": ["k", "v"]},                         # a key of two columns
    {"types": {"k": "string"}}, {"types": {"k": "date"}}, {"types": {"k": "decimal(10,0)"}},  # not integers
    {"types": {"other": "bigint"}},               # the key's type unknown
    {"new_events": 100_001},                      # beyond the largest bitmap
    {"truncates": True}, {"killed": True},        # affected keys without a bound
    {"merge": False},                             # parquet: no MERGE
])
def test_no_condition_otherwise(changed):
    assert not key_filter(**changed)


def test_the_list_and_its_condition():
    chosen = {"key": "`k`", "list": True}
    assert rendered("spark__target_key_filter_sql(args)", chosen) == "concat_ws(',', collect_list(cast(`k` as string)))"
    assert rendered("spark__target_key_filter(args, value)", chosen, value="3,1,2") == "t.`k` in (3,1,2)"


def test_the_bitmap_and_its_condition():
    chosen = {"key": "`k`", "slots": 131071}
    item = rendered("spark__target_key_filter_sql(args)", chosen)
    assert item.startswith("(select if(size(ws) = 0, concat('0', repeat(',0', 2047)), concat(")
    assert "from (select pmod(`k`, 131071) as p from db.t__affected)" in item
    assert "bit_or(shiftleft(cast(1 as bigint), cast(p % 64 as int)))" in item
    # 131071 bits, 64 a word: 2048 words, the last numbered 2047
    assert "repeat(',0', cast(2047 - ws[size(ws) - 1].w as int))" in item
    assert rendered("spark__target_key_filter(args, value)", chosen, value="0,-9223372036854775808,5") == (
        "(shiftright(get(cast(split('0,-9223372036854775808,5', ',') as array<bigint>), "
        "cast(div(pmod(t.`k`, 131071), 64) as int)), cast(pmod(t.`k`, 131071) % 64 as int)) & 1) = 1")


def test_duckdb_and_postgres_take_no_condition():
    assert render_macro("dialect/apply.sql", "{% macro default__target_key_filter_sql", "{% macro target_key_filter(",
                        "default__target_key_filter_sql(args)", args={}) is None
    assert render_macro("dialect/apply.sql", "{% macro default__target_key_filter(", "{#- Spark with MERGE (Delta)",
                        "default__target_key_filter(args, 'x')", args={}) is None


def merge_sql(target_filter):
    macros = SimpleNamespace(
        _row_key=lambda args: ["k", "__START_AT"], _alias=lambda name: "__" + name,
        _names=lambda: SimpleNamespace(merge_action="__auto_cdc_upsert", end_at="__END_AT"),
        _q=lambda name: f"`{name}`", _cols=lambda cols, alias=None: ", ".join((alias + "." if alias else "") + f"`{c}`" for c in cols),
        _eq=lambda cols, a, b: " and ".join(f"{a}.`{c}` = {b}.`{c}`" for c in cols),
        broadcast_hint=lambda aliases, rows, columns: "")
    args = {"cfg": {"key_columns": ["k"], "scd": 2}, "plan": {"target_filter": target_filter, "run_id": 3},
            "cols": {"target_columns": ["k", "v", "__START_AT", "__END_AT"]},
            "rel": {"target": "db.t", "temp": {"missing": "db.t__m", "stale": "db.t__s"}}}
    return render_macro("steps/write.sql", "{% macro merge_changes_sql", "{#- What identifies a row",
                        "return(merge_changes_sql(args))", globals={"auto_cdc": macros}, args=args)


def test_the_merge_requires_the_condition_of_the_target():
    on = next(line for line in str(merge_sql("t.`k` in (3,1,2)")).splitlines() if line.startswith("on "))
    assert on == "on t.`k` = __c.`k` and t.`__START_AT` = __c.`__START_AT` and t.`k` in (3,1,2)"
    on = next(line for line in str(merge_sql(None)).splitlines() if line.startswith("on "))
    assert on == "on t.`k` = __c.`k` and t.`__START_AT` = __c.`__START_AT`"


def test_the_merges_clauses_name_the_run():
    """The source's action is the run's id (a row to write) or its negative (a row to delete), so the MERGE's
    clauses name the run in the table's history (unedited_target_version, test_unedited_history.py)."""
    clauses = [line for line in str(merge_sql(None)).splitlines() if line.startswith("when ")]
    assert [line.split(" then ")[0] for line in clauses] == [
        "when matched and __c.`__auto_cdc_upsert` = 3", "when matched and __c.`__auto_cdc_upsert` = -3",
        "when not matched and __c.`__auto_cdc_upsert` = 3"]
