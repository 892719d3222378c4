"""Hostile input (docs/guarantees.md "Guarantees"): values and identifiers that break naive SQL text.

Values reach dbt through a source table written with bound parameters, so every value the engine
can store arrives as is; the package never splices a value into SQL text, so they must round-trip
exactly and the targets must equal the reference model. Identifiers (quotes, spaces, reserved
words, mixed case, unicode) are only ever quoted. Example counts follow AUTO_CDC_PROPERTY_EXAMPLES
(default 4) like the other property tests."""
from __future__ import annotations

import datetime as dt
import decimal
import math

from hypothesis import given, strategies as st

from auto_cdc_testkit import reference as ref
from auto_cdc_testkit.cases import PROPERTY_SETTINGS
from auto_cdc_testkit.harness import sorted_rows

UTC = dt.timezone.utc

# every value class of the issue; text without NUL (no engine's text type can hold it)
TEXT = st.one_of(st.just(""), st.just("'; drop table x; --"), st.just("\\'\\\\\"{{ x }}{% if %}$$"),
                 st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\x00"), max_size=20),
                 st.text(alphabet="ab'\"\\\n", min_size=2000, max_size=5000))
VALUE_TYPES = {
    "t": ("varchar", TEXT),
    "f": ("double precision", st.floats(allow_nan=True, allow_infinity=True)),
    "i": ("bigint", st.integers(-2 ** 63, 2 ** 63 - 1)),
    "n": ("numeric(38, 9)", st.decimals(min_value=-10 ** 28 + 1, max_value=10 ** 28 - 1, places=9,
                                         allow_nan=False, allow_infinity=False)),
    "ts": ("timestamp", st.datetimes(dt.datetime(1000, 1, 1), dt.datetime(9999, 12, 31))),
    "tz": ("timestamptz", st.datetimes(dt.datetime(1000, 1, 2), dt.datetime(9999, 12, 30), timezones=st.just(UTC))),
    "d": ("date", st.dates(dt.date(1000, 1, 1), dt.date(9999, 12, 31))),
}


def comparable(v):
    """Engine values and Python values compared as the reference model compares them (NaN equals NaN)."""
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, decimal.Decimal):
        return v.normalize() if v == v else "NaN"
    if isinstance(v, dt.datetime) and v.tzinfo is not None:
        return v.astimezone(UTC)
    return v


def rows_of(project, name, columns):
    return sorted_rows(({c: comparable(r[c]) for c in columns} for r in project.rows(name)), columns)


def expected_rows(events, columns, keys, scd):
    config = ref.Config(columns=tuple(columns), key_columns=tuple(keys), scd_type=scd)
    target = columns + (["__START_AT", "__END_AT"] if scd == 2 else [])
    return sorted_rows(({c: comparable(r[c]) for c in target} for r in ref.apply(events, config)), target)


@st.composite
def value_feeds(draw):
    rows = []
    for key in range(draw(st.integers(1, 3))):
        for seq in draw(st.lists(st.integers(0, 5), min_size=1, max_size=4, unique=True)):
            rows.append({"id": key, "seq": seq, "op": draw(st.sampled_from("UUD")),
                         **{c: draw(st.one_of(st.none(), strategy)) for c, (_, strategy) in VALUE_TYPES.items()},
                         "loaded": draw(st.integers(0, 1))})
    return rows


@PROPERTY_SETTINGS
@given(rows=value_feeds())
def test_values_round_trip_exactly(project, rows):
    feed = [("id", "integer"), ("seq", "integer"), ("op", "varchar")] + \
           [(c, t) for c, (t, _) in VALUE_TYPES.items()] + [("loaded", "integer")]
    names = [c for c, _ in feed]
    project.table("feed", feed)
    for scd in [1, 2]:
        project.feed_model(f"scd{scd}", "feed", materialized="auto_cdc", keys=["id"], sequence_by="seq",
                           apply_as_deletes="op = 'D'", except_column_list=["op", "seq", "loaded"],
                           stored_as_scd_type=scd)
    for run in [0, 1]:
        project.insert("feed", names, [tuple(r[c] for c in names) for r in rows if r["loaded"] == run])
        project.run(full_refresh=run == 0)
    columns = ["id"] + list(VALUE_TYPES)
    events = [ref.Event((r["id"],), r["seq"], ref.DELETE if r["op"] == "D" else ref.UPSERT,
                        {c: r[c] for c in VALUE_TYPES}) for r in rows]
    assert rows_of(project, "scd1", columns) == expected_rows(events, columns, ["id"], 1)
    assert rows_of(project, "scd2", columns + ["__START_AT", "__END_AT"]) == expected_rows(events, columns, ["id"], 2)


# identifiers: quotes of both kinds, spaces, reserved words, mixed case, unicode, SQL and Jinja syntax
IDENTIFIER = st.one_of(
    st.sampled_from(['select', 'from', 'order', 'group', 'user', 'Key', 'MiXeD', 'a b', 'a"b', "a'b", 'a.b', '%s',
                     'ключ', '日付', 'é', '{{ x }}', '--c', 'a;b', '"', "'", '\\']),
    # engines fold case with their own unicode tables: names whose case mapping is not one-to-one are left out
    st.text(st.characters(blacklist_categories=["Cs", "Cc"]), min_size=1, max_size=12).filter(
        lambda s: s.strip() == s and len(s.lower()) == len(s) == len(s.upper()) and s.lower() == s.casefold()
        and s.upper().lower() == s.lower()))


@st.composite
def identifier_sets(draw):
    names = draw(st.lists(IDENTIFIER, min_size=4, max_size=4,
                          unique_by=lambda s: s.casefold()))  # unique even where an engine folds case
    return names


@PROPERTY_SETTINGS
@given(names=identifier_sets(), scd=st.sampled_from([1, 2]))
def test_identifiers_are_only_ever_quoted(project, names, scd):
    key, seq, payload, op = names
    project.table("feed", [(key, "varchar"), (seq, "integer"), (payload, "varchar"), (op, "varchar")],
                  [("k'1", 1, "x", "U"), ("k'1", 2, None, "D"), ("k2", 1, "y", "U"), ("k2", 3, "y'", "U")])
    project.feed_model("t", "feed", materialized="auto_cdc", keys=[key], sequence_by=seq,
                       apply_as_deletes=None, except_column_list=[op], stored_as_scd_type=scd)
    project.run(full_refresh=True)
    events = [ref.Event(("k'1",), 1, ref.UPSERT, {seq: 1, payload: "x"}), ref.Event(("k'1",), 2, ref.UPSERT, {seq: 2, payload: None}),
              ref.Event(("k2",), 1, ref.UPSERT, {seq: 1, payload: "y"}), ref.Event(("k2",), 3, ref.UPSERT, {seq: 3, payload: "y'"})]
    columns = [key, seq, payload]
    assert rows_of(project, "t", columns + (["__START_AT", "__END_AT"] if scd == 2 else [])) == \
        expected_rows(events, columns, [key], scd)


# sequence columns of every orderable type: SCD2 carries them into __START_AT / __END_AT
SEQUENCE_TYPES = {
    "int": ("integer", [3, -2 ** 31, 2 ** 31 - 1, 0]),
    "big": ("bigint", [3, -2 ** 63, 2 ** 63 - 1, 0]),
    "num": ("numeric(20, 5)", [decimal.Decimal("1.00001"), decimal.Decimal("-99999.5"), decimal.Decimal("1.00002"),
                               decimal.Decimal("0")]),
    "dbl": ("double precision", [1.5, float("-inf"), float("inf"), 0.0]),
    "date": ("date", [dt.date(2024, 1, 2), dt.date(1000, 1, 1), dt.date(9999, 12, 31), dt.date(2024, 1, 1)]),
    "ts": ("timestamp", [dt.datetime(2024, 1, 1, 0, 0, 0, 1), dt.datetime(1000, 1, 1), dt.datetime(9999, 12, 31),
                         dt.datetime(2024, 1, 1)]),
    "tstz": ("timestamptz", [dt.datetime(2024, 1, 1, 1, tzinfo=dt.timezone(dt.timedelta(hours=2))),
                             dt.datetime(1000, 1, 2, tzinfo=UTC), dt.datetime(9999, 12, 30, tzinfo=UTC),
                             dt.datetime(2024, 1, 1, tzinfo=UTC)]),
    "text": ("varchar", ["b", "", "é", "B"]),
}


def test_sequence_columns_of_every_orderable_type(project):
    for name, (sql_type, seqs) in SEQUENCE_TYPES.items():
        project.table(f"feed_{name}", [("id", "integer"), ("seq", sql_type), ("a", "varchar")],
                      [(1, s, f"v{i}") for i, s in enumerate(seqs)] + [(2, seqs[0], "w")])
        # text order is what the text case means (a text sequence fails the run unless told so)
        project.feed_model(name, f"feed_{name}", materialized="auto_cdc", keys=["id"], sequence_by="seq",
                           except_column_list=["seq"], stored_as_scd_type=2,
                           **({"on_text_sequence": "ignore"} if name == "text" else {}))
    project.run()
    for name, (sql_type, seqs) in SEQUENCE_TYPES.items():
        events = [ref.Event((1,), s, ref.UPSERT, {"a": f"v{i}"}) for i, s in enumerate(seqs)]
        events.append(ref.Event((2,), seqs[0], ref.UPSERT, {"a": "w"}))
        expected = expected_rows(events, ["id", "a"], ["id"], 2)
        assert rows_of(project, name, ["id", "a", "__START_AT", "__END_AT"]) == expected, name


def test_nan_orders_above_every_number_and_equals_itself(project):
    """Decision: NaN in a double sequence or key is ordered as both engines order it: equal to itself,
    greater than every number, +infinity included. It is not rejected."""
    nan = float("nan")
    project.table("feed", [("id", "double precision"), ("seq", "double precision"), ("a", "varchar")],
                  [(nan, 1.0, "one"), (nan, nan, "nan"), (nan, float("inf"), "inf"), (1.0, nan, "x"), (1.0, 2.0, "y")])
    project.feed_model("t", "feed", materialized="auto_cdc", keys=["id"], sequence_by="seq",
                       except_column_list=["seq"])
    project.run()
    assert rows_of(project, "t", ["id", "a"]) == [(1.0, "x"), ("NaN", "nan")]
