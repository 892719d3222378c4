"""The reference model against docs/semantics.md: the documentation examples and the rules R1-R7, then properties.

Pure Python, no database. Expected tables are written out as users read them in the docs.
"""

import itertools
import math
import random
from datetime import datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auto_cdc_testkit import fixtures as fx
from auto_cdc_testkit.reference import (
    DELETE, END_AT, START_AT, SYSTEM_END_AT, SYSTEM_START_AT, TRUNCATE, UPSERT,
    BadInputError, Compact, Config, Event, apply, apply_in_runs, snapshot_events, snapshot_state,
)

# ---------------------------------------------------------------------------------------------------------------
# Fixture helpers
# ---------------------------------------------------------------------------------------------------------------

USERS = ("userId", "name", "city")


def users_config(scd_type=1, **kwargs):
    return Config(columns=USERS, key_columns=("userId",), scd_type=scd_type, **kwargs)


def cdf(*rows):
    """Change-feed rows ``(userId, name, city, operation, sequenceNum)`` -> events, like E1's users_cdf."""
    ops = {"INSERT": UPSERT, "UPDATE": UPSERT, "DELETE": DELETE, "TRUNCATE": TRUNCATE}
    events = []
    for user_id, name, city, operation, seq in rows:
        key = None if operation == "TRUNCATE" else (user_id,)
        events.append(Event(key, (seq,), ops[operation], {"userId": user_id, "name": name, "city": city}))
    return events


def users(*rows):
    """Expected SCD1 rows ``(userId, name, city)``."""
    return [dict(zip(USERS, r)) for r in rows]


def users_history(*rows):
    """Expected SCD2 rows ``(userId, name, city, __START_AT, __END_AT)``."""
    return [dict(zip(USERS + (START_AT, END_AT), r)) for r in rows]


def upsert(key, seq, columns_to_update=None, **values):
    return Event((key,), (seq,), UPSERT, values, columns_to_update=columns_to_update)


def delete(key, seq):
    return Event((key,), (seq,), DELETE, {})


def in_every_order(events, config):
    """apply() in every arrival order must give one table (R1); return it."""
    results = [apply(list(p), config) for p in itertools.permutations(events)]
    assert all(r == results[0] for r in results)
    return results[0]


E1 = cdf(*fx.E1_FEED)  # E1, in the documentation's arrival order
E1_TRUNCATE = cdf(fx.E1_TRUNCATE)

# ---------------------------------------------------------------------------------------------------------------
# E1 -- change feed, SCD1 and SCD2
# ---------------------------------------------------------------------------------------------------------------


def test_e1_scd1():
    assert apply(E1, users_config(1)) == users(
        (124, "Raul", "Oaxaca"),
        (125, "Mercedes", "Guadalajara"),
        (126, "Lily", "Cancun"),
    )


def test_e1_scd1_with_truncate():
    assert apply(E1 + E1_TRUNCATE, users_config(1)) == users((125, "Mercedes", "Guadalajara"))


def test_e1_scd2():
    assert apply(E1, users_config(2)) == users_history(*fx.E1_SCD2)


def test_e1_scd2_track_history_except_city():
    config = users_config(2, tracked=("userId", "name"))
    assert apply(E1, config) == users_history(
        (123, "Isabel", "Chihuahua", 1, 6),
        (124, "Raul", "Oaxaca", 1, None),
        (125, "Mercedes", "Guadalajara", 2, None),
        (126, "Lily", "Cancun", 2, None),
    )


def test_e1_scd_type_given_as_string():
    assert apply(E1, users_config("2")) == apply(E1, users_config(2))
    assert apply(E1, users_config("1")) == apply(E1, users_config(1))


@pytest.mark.parametrize("scd_type", [2, "bitemporal"])
def test_truncate_is_an_error_for_scd2_and_bitemporal(scd_type):
    events = [Event(e.key, e.seq, e.op, e.values, system_seq=0) for e in E1 + E1_TRUNCATE]
    with pytest.raises(ValueError, match="truncate"):
        apply(events, users_config(scd_type))


# ---------------------------------------------------------------------------------------------------------------
# R1 / R3 -- order, not arrival; tombstones; truncates
# ---------------------------------------------------------------------------------------------------------------


def test_e1_is_the_same_in_any_arrival_order():
    for seed in range(20):
        shuffled = random.Random(seed).sample(E1, len(E1))
        assert apply(shuffled, users_config(1)) == apply(E1, users_config(1))
        assert apply(shuffled, users_config(2)) == apply(E1, users_config(2))
        with_truncate = random.Random(seed).sample(E1 + E1_TRUNCATE, len(E1) + 1)
        assert apply(with_truncate, users_config(1)) == users((125, "Mercedes", "Guadalajara"))


def test_late_event_has_no_effect_on_scd1():
    events = [upsert(1, 5, name="new", city="x"), upsert(1, 3, name="old", city="y")]
    assert in_every_order(events, users_config(1)) == users((1, "new", "x"))


def test_late_update_after_delete_does_not_resurrect_key():
    events = [upsert(1, 1, name="a", city="x"), delete(1, 3), upsert(1, 2, name="late", city="y")]
    assert in_every_order(events, users_config(1)) == []
    # SCD2: the late upsert lands in its place, between the first version and the delete.
    assert in_every_order(events, users_config(2)) == users_history(
        (1, "a", "x", 1, 2),
        (1, "late", "y", 2, 3),
    )


def test_events_received_after_a_compaction_at_or_below_its_horizon_are_ignored():
    before = [upsert(1, 1, name="a", city="x"), delete(1, 3), upsert(2, 2, name="b", city="y")]
    later = [upsert(1, 2, name="late", city="y"), upsert(2, 4, name="at", city="y"), upsert(2, 5, name="c", city="z"),
             upsert(1, 6, name="back", city="z")]
    for scd in (1, 2):
        compacted = apply_in_runs([before, Compact(4), later], users_config(scd))
        above = [e for e in later if e.seq[0] > 4]
        assert compacted == apply(before + above, users_config(scd))
    # SCD2: the late upsert at 2 would have opened a version
    assert apply_in_runs([before, Compact(4), later], users_config(2)) != apply(before + later, users_config(2))
    # what was received before the compaction counts, whatever its sequence; the greatest horizon holds
    assert apply_in_runs([[upsert(1, 1, name="a", city="x")], Compact(3), Compact(2), [upsert(1, 3, name="b", city="x")]],
                         users_config(1)) == users((1, "a", "x"))


def test_upsert_after_delete_brings_key_back():
    events = [upsert(1, 1, name="a", city="x"), delete(1, 3), upsert(1, 4, name="b", city="y")]
    assert in_every_order(events, users_config(1)) == users((1, "b", "y"))
    assert in_every_order(events, users_config(2)) == users_history(
        (1, "a", "x", 1, 3),
        (1, "b", "y", 4, None),
    )


def test_delete_of_unknown_key_is_a_tombstone():
    events = [delete(1, 5), upsert(1, 4, name="a", city="x")]
    assert in_every_order(events, users_config(1)) == []
    assert in_every_order(events, users_config(2)) == users_history((1, "a", "x", 4, 5))


def test_truncate_voids_earlier_events_only():
    truncate = Event(None, (5,), TRUNCATE, {})
    events = [
        upsert(1, 4, name="before", city="x"),       # void: seq < 5
        upsert(2, 5, name="at", city="y"),           # applies: seq >= 5
        upsert(3, 2, name="before", city="z"),       # void, even though it arrives after the truncate
        upsert(3, 6, name="after", city="z"),        # applies
        delete(4, 3), upsert(4, 7, name="back", city="w"),
    ]
    assert in_every_order(events[:3] + [truncate], users_config(1)) == users((2, "at", "y"))
    assert apply(events + [truncate], users_config(1)) == users(
        (2, "at", "y"),
        (3, "after", "z"),
        (4, "back", "w"),
    )


def test_truncate_state_is_cleared_for_partial_updates():
    """A truncate clears columns like a delete does (R5): a later partial upsert does not see older values."""
    events = [
        upsert(1, 1, name="a", city="x"),
        Event(None, (2,), TRUNCATE, {}),
        upsert(1, 3, columns_to_update=frozenset({"city"}), city="y"),
    ]
    assert in_every_order(events, users_config(1)) == users((1, None, "y"))


def test_only_the_greatest_truncate_matters():
    events = [
        Event(None, (3,), TRUNCATE, {}),
        upsert(1, 4, name="a", city="x"),
        Event(None, (5,), TRUNCATE, {}),
        upsert(2, 6, name="b", city="y"),
    ]
    assert in_every_order(events, users_config(1)) == users((2, "b", "y"))


# ---------------------------------------------------------------------------------------------------------------
# R4 -- SCD2 details
# ---------------------------------------------------------------------------------------------------------------


def test_absorbed_run_split_by_late_tracked_event():
    """R4: A@5, untracked change A'@10, late tracked B@7 -> [5,7) A, [7,10) B, [10,NULL) A'."""
    config = users_config(2, tracked=("name",))
    events = [
        upsert(1, 5, name="A", city="a"),
        upsert(1, 10, name="A", city="a-prime"),
        upsert(1, 7, name="B", city="b"),
    ]
    assert in_every_order(events, config) == users_history(
        (1, "A", "a", 5, 7),
        (1, "B", "b", 7, 10),
        (1, "A", "a-prime", 10, None),
    )


def test_unchanged_upsert_keeps_the_open_version():
    events = [upsert(1, 1, name="a", city="x"), upsert(1, 2, name="a", city="x")]
    assert in_every_order(events, users_config(2)) == users_history((1, "a", "x", 1, None))


def test_null_safe_change_detection():
    events = [upsert(1, 1, name=None, city="x"), upsert(1, 2, name=None, city="x"),
              upsert(1, 3, name="a", city="x"), upsert(1, 4, name=None, city="x")]
    assert in_every_order(events, users_config(2)) == users_history(
        (1, None, "x", 1, 3),
        (1, "a", "x", 3, 4),
        (1, None, "x", 4, None),
    )


def test_nan_equals_nan():
    config = Config(columns=("id", "score"), key_columns=("id",), scd_type=2)
    events = [Event((1,), (1,), UPSERT, {"score": math.nan}), Event((1,), (2,), UPSERT, {"score": math.nan})]
    rows = apply(events, config)
    assert len(rows) == 1 and rows[0][START_AT] == 1 and rows[0][END_AT] is None


def test_multi_column_sequence_orders_like_struct():
    config = users_config(2)
    events = [
        Event((1,), (2, 0), UPSERT, {"name": "c", "city": "x"}),
        Event((1,), (1, 10), UPSERT, {"name": "b", "city": "x"}),   # (1, 10) > (1, 2): numeric, not text
        Event((1,), (1, 2), UPSERT, {"name": "a", "city": "x"}),
    ]
    assert in_every_order(events, config) == users_history(
        (1, "a", "x", (1, 2), (1, 10)),
        (1, "b", "x", (1, 10), (2, 0)),
        (1, "c", "x", (2, 0), None),
    )
    assert in_every_order(events, users_config(1)) == users((1, "c", "x"))


def test_multi_column_sequence_with_truncate():
    events = [
        Event((1,), (1, 5), UPSERT, {"name": "a", "city": "x"}),
        Event(None, (1, 6), TRUNCATE, {}),
        Event((2,), (1, 6), UPSERT, {"name": "b", "city": "y"}),
    ]
    assert in_every_order(events, users_config(1)) == users((2, "b", "y"))


def test_composite_key():
    config = Config(columns=("a", "b", "v"), key_columns=("a", "b"), scd_type=1)
    events = [Event((1, "x"), (1,), UPSERT, {"v": 1}), Event((1, "y"), (1,), UPSERT, {"v": 2}),
              Event((1, "x"), (2,), DELETE, {})]
    assert apply(events, config) == [{"a": 1, "b": "y", "v": 2}]


def test_key_columns_come_from_the_event_key():
    events = [Event((1,), (1,), UPSERT, {"userId": 999, "name": "a", "city": "x"})]
    assert apply(events, users_config(1)) == users((1, "a", "x"))


def test_sequence_column_can_be_an_output_column():
    config = Config(columns=("id", "v", "seq"), key_columns=("id",), scd_type=1)
    events = [Event((1,), (s,), UPSERT, {"v": s * 10, "seq": s}) for s in (3, 1, 2)]
    assert apply(events, config) == [{"id": 1, "v": 30, "seq": 3}]


# ---------------------------------------------------------------------------------------------------------------
# R7 -- bad input, conflicts and duplicates
# ---------------------------------------------------------------------------------------------------------------


def test_conflict_raises():
    events = [upsert(7, 1, name="a", city="x"), upsert(7, 1, name="a", city="y")]
    with pytest.raises(BadInputError, match=r"conflict.*'userId': 7"):
        apply(events, users_config(1))
    with pytest.raises(BadInputError, match="conflict"):
        apply([upsert(7, 1, name="a", city="x"), delete(7, 1)], users_config(2))
    partial = [upsert(7, 1, columns_to_update={"name"}, name="a"), upsert(7, 1, columns_to_update={"city"}, name="a")]
    with pytest.raises(BadInputError, match="conflict"):
        apply(partial, users_config(1))


def test_duplicates_collapse():
    events = [
        upsert(1, 1, name="a", city="x"), upsert(1, 1, name="a", city="x"),
        upsert(2, 1, name="b", city="y"),
        Event((2,), (2,), DELETE, {"name": "payload"}), Event((2,), (2,), DELETE, {"name": "differs"}),
        upsert(3, 1, name=math.nan, city=None), upsert(3, 1, name=math.nan, city=None),
        Event(None, (1,), TRUNCATE, {}), Event(None, (1,), TRUNCATE, {}),
    ]
    assert apply(events, users_config(1)) == [
        {"userId": 1, "name": "a", "city": "x"},
        {"userId": 3, "name": events[5].values["name"], "city": None},
    ]
    assert math.isnan(apply(events, users_config(1))[1]["name"])
    # Re-reading everything (R2) changes nothing.
    assert apply(events + events, users_config(1)) == apply(events, users_config(1))
    keyed = [e for e in events if e.op != TRUNCATE]
    assert apply(keyed + keyed[::-1], users_config(2)) == apply(keyed[::2], users_config(2))


def test_missing_value_counts_as_null_for_duplicates():
    events = [upsert(1, 1, name="a"), upsert(1, 1, name="a", city=None)]
    assert apply(events, users_config(1)) == users((1, "a", None))


@pytest.mark.parametrize("event, problem", [
    (Event(None, (1,), UPSERT, {"name": "a"}), "missing key"),
    (Event((None,), (1,), UPSERT, {"name": "a"}), "NULL key column 'userId'"),
    (Event((None,), (1,), DELETE, {}), "NULL key column 'userId'"),
    (Event((1,), (None,), UPSERT, {"name": "a"}), "NULL sequence"),
    (Event((1,), None, DELETE, {}), "NULL sequence"),
    (Event(None, (None,), TRUNCATE, {}), "NULL sequence"),
])
def test_null_key_raises(event, problem):
    with pytest.raises(BadInputError, match=problem):
        apply([upsert(1, 1, name="a", city="x"), event], users_config(1))


def test_null_in_any_sequence_component_or_key_component_raises():
    config = Config(columns=("a", "b", "v"), key_columns=("a", "b"), scd_type=2)
    with pytest.raises(BadInputError, match="NULL key column 'b'"):
        apply([Event((1, None), (1, 1), UPSERT, {"v": 1})], config)
    with pytest.raises(BadInputError, match="NULL sequence"):
        apply([Event((1, 2), (1, None), UPSERT, {"v": 1})], config)


def test_bad_input_counts_offending_events():
    events = [Event((None,), (1,), UPSERT, {}), Event((None,), (2,), UPSERT, {}), upsert(1, None)]
    with pytest.raises(BadInputError, match=r"2 event\(s\) with NULL key column 'userId'.*1 event\(s\) with NULL seq"):
        apply(events, users_config(1))


def test_truncate_needs_no_key():
    assert apply([Event(None, (1,), TRUNCATE, {})], users_config(1)) == []


def test_invalid_config_reports_every_problem():
    config = Config(columns=("id", "__START_AT"), key_columns=("id", "nope"), scd_type=1, tracked=("x",))
    with pytest.raises(ValueError) as err:
        apply([], config)
    message = str(err.value)
    for fragment in ("key_columns names unknown columns ['nope']", "tracked names unknown", "reserved",
                     "need SCD type 2"):
        assert fragment in message
    with pytest.raises(ValueError, match="unknown scd_type"):
        apply([], users_config(3))


# ---------------------------------------------------------------------------------------------------------------
# E5 / R5 -- partial updates: absent column vs explicit NULL
# ---------------------------------------------------------------------------------------------------------------


def test_ignore_null_updates_on_all_columns():
    config = users_config(1, ignore_null_columns=frozenset({"name", "city"}))
    events = [upsert(1, 1, name="a", city="x"), upsert(1, 2, name=None, city="y"), upsert(1, 3, name=None, city=None)]
    assert in_every_order(events, config) == users((1, "a", "y"))


def test_ignore_null_updates_on_some_columns():
    """IGNORE NULL UPDATES ON (name): NULL name keeps the value; NULL city is written."""
    config = users_config(1, ignore_null_columns=frozenset({"name"}))
    events = [upsert(1, 1, name="a", city="x"), upsert(1, 2, name=None, city=None)]
    assert in_every_order(events, config) == users((1, "a", None))


def test_ignore_null_updates_except_columns():
    """IGNORE NULL UPDATES ON * EXCEPT (city) resolves to the same set: every column but city ignores NULLs."""
    except_city = frozenset(USERS) - {"city"}
    config = users_config(1, ignore_null_columns=except_city)
    events = [upsert(1, 1, name="a", city="x"), upsert(1, 2, name=None, city=None)]
    assert in_every_order(events, config) == users((1, "a", None))


def test_ignore_null_updates_scd2_null_opens_no_version():
    config = users_config(2, ignore_null_columns=frozenset({"name", "city"}))
    events = [upsert(1, 1, name="a", city="x"), upsert(1, 2, name=None, city=None), upsert(1, 3, name="b")]
    assert in_every_order(events, config) == users_history(
        (1, "a", "x", 1, 3),
        (1, "b", "x", 3, None),
    )


def test_columns_to_update_absent_vs_explicit_null():
    events = [
        upsert(1, 1, name="a", city="x"),                                   # no list: writes every column
        upsert(1, 2, columns_to_update={"city"}, city=None),                # explicit NULL is written
        upsert(1, 3, columns_to_update={"name"}, name="b", city="ignored"),  # city is absent: not written
    ]
    assert in_every_order(events, users_config(1)) == users((1, "b", None))
    assert in_every_order(events, users_config(2)) == users_history(
        (1, "a", "x", 1, 2),
        (1, "a", None, 2, 3),
        (1, "b", None, 3, None),
    )


def test_columns_to_update_accepts_a_comma_separated_string():
    event = upsert(1, 1, columns_to_update="name, city", name="a", city="x")
    assert event.columns_to_update == frozenset({"name", "city"})


def test_columns_to_update_on_a_new_key_leaves_other_columns_null():
    events = [upsert(1, 1, columns_to_update={"name"}, name="a", city="x")]
    assert apply(events, users_config(1)) == users((1, "a", None))


@pytest.mark.parametrize("partial", [
    upsert(1, 3, columns_to_update={"city"}, city="z"),
    upsert(1, 3, name=None, city="z"),
])
def test_delete_then_partial_upsert_does_not_bring_back_old_values(partial):
    config = users_config(1, ignore_null_columns=frozenset() if partial.columns_to_update else frozenset({"name"}))
    events = [upsert(1, 1, name="a", city="x"), delete(1, 2), partial]
    assert in_every_order(events, config) == users((1, None, "z"))


def test_late_partial_event_writes_only_columns_no_later_event_wrote():
    events = [
        upsert(1, 1, name="a", city="x"),
        upsert(1, 3, columns_to_update={"name"}, name="c"),
        upsert(1, 2, columns_to_update={"name", "city"}, name="b", city="y"),  # late
    ]
    assert in_every_order(events, users_config(1)) == users((1, "c", "y"))


def test_late_null_ignoring_event_writes_only_columns_no_later_event_wrote():
    config = users_config(1, ignore_null_columns=frozenset({"name", "city"}))
    events = [upsert(1, 1, name="a", city="x"), upsert(1, 3, name="c", city=None), upsert(1, 2, name="b", city="y")]
    assert in_every_order(events, config) == users((1, "c", "y"))


def test_columns_to_update_rejects_unknown_columns():
    with pytest.raises(BadInputError, match="unknown columns"):
        apply([upsert(1, 1, columns_to_update={"nmae"}, nmae="a")], users_config(1))


def test_columns_to_update_cannot_be_combined_with_ignore_null_updates():
    config = users_config(1, ignore_null_columns=frozenset({"name"}))
    with pytest.raises(ValueError, match="ignore_null_updates"):
        apply([upsert(1, 1, columns_to_update={"name"}, name="a")], config)


# ---------------------------------------------------------------------------------------------------------------
# E2 / E3 -- snapshots
# ---------------------------------------------------------------------------------------------------------------

CITIES = ("userId", "city")


def city_rows(*rows):
    return [dict(zip(CITIES, r)) for r in rows]


def city_history(*rows):
    return [dict(zip(CITIES + (START_AT, END_AT), r)) for r in rows]


SNAP_0 = city_rows((1, "Oaxaca"), (2, "Monterrey"), (3, "Tijuana"))
SNAP_1 = city_rows((2, "Carmel"), (3, "Los Angeles"), (4, "Death Valley"), (6, "Kings Canyon"))


def snapshot_target(snapshots, scd_type, previous_events=(), previous=None):
    events = list(previous_events) + snapshot_events(snapshots, ["userId"], CITIES, previous)
    return apply(events, Config(columns=CITIES, key_columns=("userId",), scd_type=scd_type))


def test_e2_snapshots_scd1_scd2():
    snapshots = [(0, SNAP_0), (1, SNAP_1)]
    assert snapshot_target(snapshots, 2) == city_history(
        (1, "Oaxaca", 0, 1),
        (2, "Monterrey", 0, 1),
        (2, "Carmel", 1, None),
        (3, "Tijuana", 0, 1),
        (3, "Los Angeles", 1, None),
        (4, "Death Valley", 1, None),
        (6, "Kings Canyon", 1, None),
    )
    assert snapshot_target(snapshots, 1) == city_rows(
        (2, "Carmel"), (3, "Los Angeles"), (4, "Death Valley"), (6, "Kings Canyon"))


def test_snapshot_diff_events():
    events = snapshot_events([(0, SNAP_0), (1, SNAP_1)], ["userId"], CITIES)
    assert [(e.op, e.key, e.seq) for e in events] == [
        (UPSERT, (1,), (0,)), (UPSERT, (2,), (0,)), (UPSERT, (3,), (0,)),
        (DELETE, (1,), (1,)), (UPSERT, (2,), (1,)), (UPSERT, (3,), (1,)), (UPSERT, (4,), (1,)), (UPSERT, (6,), (1,)),
    ]
    assert events[4].values == {"userId": 2, "city": "Carmel"}


def test_snapshot_unchanged_key_gives_no_event():
    snap = city_rows((1, "Oaxaca"), (2, None), (3, math.nan))
    events = snapshot_events([(1, snap), (2, list(reversed(snap)))], ["userId"], CITIES)
    assert all(e.seq == (1,) for e in events) and len(events) == 3


def test_snapshot_with_untracked_change_updates_in_place():
    config = Config(columns=("userId", "name", "city"), key_columns=("userId",), scd_type=2, tracked=("name",))
    snaps = [(1, [{"userId": 1, "name": "a", "city": "x"}]), (2, [{"userId": 1, "name": "a", "city": "y"}])]
    events = snapshot_events(snaps, ["userId"], config.columns)
    assert apply(events, config) == users_history((1, "a", "y", 1, None))


def test_snapshot_duplicate_key_raises():
    with pytest.raises(BadInputError, match="duplicate key"):
        snapshot_events([(1, city_rows((1, "a"), (1, "b")))], ["userId"], CITIES)


def test_e3_versioned_snapshots():
    snapshot_1 = city_rows((1, "Oaxaca"), (2, "Monterrey"), (3, "Tijuana"))
    snapshot_2 = city_rows((2, "Carmel"), (3, "Los Angeles"), (4, "Death Valley"))
    assert snapshot_target([(1, snapshot_1)], 2) == city_history(
        (1, "Oaxaca", 1, None), (2, "Monterrey", 1, None), (3, "Tijuana", 1, None))
    expected = city_history(
        (1, "Oaxaca", 1, 2),
        (2, "Monterrey", 1, 2),
        (2, "Carmel", 2, None),
        (3, "Tijuana", 1, 2),
        (3, "Los Angeles", 2, None),
        (4, "Death Valley", 2, None),
    )
    # Both files in one run, in any listing order, or one run per file: same target.
    assert snapshot_target([(2, snapshot_2), (1, snapshot_1)], 2) == expected
    first = snapshot_events([(1, snapshot_1)], ["userId"], CITIES)
    state = snapshot_state([(1, snapshot_1)], ["userId"], CITIES)
    assert snapshot_target([(2, snapshot_2)], 2, previous_events=first, previous=state) == expected


def test_e3_out_of_order_snapshot_skipped():
    snapshot_1 = city_rows((1, "Oaxaca"))
    snapshot_4 = city_rows((1, "Carmel"))
    snapshot_3 = city_rows((1, "Tijuana"), (2, "Monterrey"))
    state = snapshot_state([(1, snapshot_1), (4, snapshot_4)], ["userId"], CITIES)
    assert state["version"] == 4
    with pytest.warns(UserWarning, match="snapshot version 3 .* skipped"):
        assert snapshot_events([(3, snapshot_3)], ["userId"], CITIES, previous=state) == []
    with pytest.warns(UserWarning, match="skipped"):
        assert snapshot_state([(3, snapshot_3)], ["userId"], CITIES, previous=state) == state
    # A later snapshot after the skipped one is diffed against snapshot_4, not snapshot_3.
    with pytest.warns(UserWarning):
        events = snapshot_events([(3, snapshot_3), (5, snapshot_4)], ["userId"], CITIES, previous=state)
    assert events == []


# ---------------------------------------------------------------------------------------------------------------
# E4 -- bitemporal (R6)
# ---------------------------------------------------------------------------------------------------------------


def at(hms):
    return datetime(2025, 7, 18, *map(int, hms.split(":")))


COMPANY = ("CompanyId", "datapoints")
BITEMPORAL = Config(columns=COMPANY, key_columns=("CompanyId",), scd_type="bitemporal")
E4 = [
    Event(("A",), (at("10:01:00"),), UPSERT, {"datapoints": "XFv1"}, system_seq=at("10:05:00")),
    Event(("A",), (at("12:15:43"),), UPSERT, {"datapoints": "XFv2"}, system_seq=at("12:20:00")),
    Event(("A",), (at("12:05:00"),), UPSERT, {"datapoints": "XFv3"}, system_seq=at("12:25:00")),
    Event(("A",), (at("12:30:00"),), DELETE, {"datapoints": "XFv2"}, system_seq=at("12:30:00")),
]


def bitemporal_rows(*rows):
    """Expected rows ``(CompanyId, datapoints, __START_AT, __END_AT, __SYSTEM_START_AT, __SYSTEM_END_AT)``."""
    names = COMPANY + (START_AT, END_AT, SYSTEM_START_AT, SYSTEM_END_AT)
    return [dict(zip(names, r[:2] + tuple(at(t) if t else None for t in r[2:]))) for r in rows]


# The bitemporal example's tables after each of its four changes ("Alteração 1..4"); the last one is E4.
E4_AFTER = [
    bitemporal_rows(
        ("A", "XFv1", "10:01:00", None, "10:05:00", None),
    ),
    bitemporal_rows(
        ("A", "XFv1", "10:01:00", None, "10:05:00", "12:20:00"),
        ("A", "XFv1", "10:01:00", "12:15:43", "12:20:00", None),
        ("A", "XFv2", "12:15:43", None, "12:20:00", None),
    ),
    bitemporal_rows(
        ("A", "XFv1", "10:01:00", None, "10:05:00", "12:20:00"),
        ("A", "XFv1", "10:01:00", "12:15:43", "12:20:00", "12:25:00"),
        ("A", "XFv1", "10:01:00", "12:05:00", "12:25:00", None),
        ("A", "XFv3", "12:05:00", "12:15:43", "12:25:00", None),
        ("A", "XFv2", "12:15:43", None, "12:20:00", None),
    ),
    bitemporal_rows(
        ("A", "XFv1", "10:01:00", None, "10:05:00", "12:20:00"),
        ("A", "XFv1", "10:01:00", "12:15:43", "12:20:00", "12:25:00"),
        ("A", "XFv1", "10:01:00", "12:05:00", "12:25:00", None),
        ("A", "XFv3", "12:05:00", "12:15:43", "12:25:00", None),
        ("A", "XFv2", "12:15:43", None, "12:20:00", "12:30:00"),
        ("A", "XFv2", "12:15:43", "12:30:00", "12:30:00", None),
    ),
]


def test_e4_bitemporal_final_and_intermediate():
    for n, expected in enumerate(E4_AFTER, start=1):
        assert apply(E4[:n], BITEMPORAL) == expected, f"after change {n}"
    assert in_every_order(E4, BITEMPORAL) == E4_AFTER[-1]


def test_bitemporal_current_belief_is_the_scd2_history():
    scd2 = Config(columns=COMPANY, key_columns=("CompanyId",), scd_type=2)
    current = [{k: v for k, v in r.items() if not k.startswith("__SYSTEM")}
               for r in apply(E4, BITEMPORAL) if r[SYSTEM_END_AT] is None]
    assert current == apply(E4, scd2)


def test_bitemporal_duplicate_learned_again_later_keeps_first_system_time():
    late_copy = Event(("A",), (at("10:01:00"),), UPSERT, {"datapoints": "XFv1"}, system_seq=at("12:00:00"))
    assert in_every_order(E4[:1] + [late_copy], BITEMPORAL) == E4_AFTER[0]


def test_bitemporal_correction_at_same_business_time_is_a_conflict():
    correction = Event(("A",), (at("10:01:00"),), UPSERT, {"datapoints": "XFv9"}, system_seq=at("12:00:00"))
    with pytest.raises(BadInputError, match="conflict"):
        apply(E4[:1] + [correction], BITEMPORAL)


def sys_view(rows):
    return [(r["name"], r["city"], r[START_AT], r[END_AT], r[SYSTEM_START_AT], r[SYSTEM_END_AT]) for r in rows]


def test_bitemporal_late_event_moves_rows_out_of_the_current_belief():
    events = [
        Event((1,), (1,), UPSERT, {"name": "x", "city": "p"}, system_seq=10),
        Event((1,), (3,), UPSERT, {"name": "y", "city": "p"}, system_seq=20),
        Event((1,), (2,), UPSERT, {"name": "y", "city": "p"}, system_seq=30),
        Event((1,), (3,), UPSERT, {"name": "y", "city": "p"}, system_seq=40),  # duplicate, learned again
    ]
    # H(10): x[1,-)   H(20): x[1,3) y[3,-)   H(30): x[1,2) y[2,-), y@3 absorbed in place
    assert sys_view(in_every_order(events, users_config("bitemporal"))) == [
        ("x", "p", 1, None, 10, 20),
        ("x", "p", 1, 3, 20, 30),
        ("x", "p", 1, 2, 30, None),
        ("y", "p", 2, None, 30, None),
        ("y", "p", 3, None, 20, 30),
    ]


def test_bitemporal_row_that_leaves_and_comes_back_gives_two_rows():
    events = [
        Event((1,), (1,), UPSERT, {"name": "a", "city": "p"}, system_seq=10),
        Event((1,), (5,), UPSERT, {"name": "b", "city": "p"}, system_seq=20),
        Event((1,), (3,), UPSERT, {"name": "a", "city": "q"}, system_seq=30),  # untracked: a[1,5) now has q
        Event((1,), (4,), UPSERT, {"name": "a", "city": "p"}, system_seq=40),  # ...and p again
    ]
    # a/p [1,5) is in H(20), leaves H(30), comes back in H(40).
    assert sys_view(in_every_order(events, users_config("bitemporal", tracked=("name",)))) == [
        ("a", "p", 1, None, 10, 20),
        ("a", "p", 1, 5, 20, 30),
        ("a", "q", 1, 5, 30, 40),
        ("a", "p", 1, 5, 40, None),
        ("b", "p", 5, None, 20, None),
    ]


def test_bitemporal_needs_system_time():
    with pytest.raises(BadInputError, match="NULL system sequence"):
        apply([Event(("A",), (1,), UPSERT, {"datapoints": "x"})], BITEMPORAL)


def test_bitemporal_rejects_columns_to_update():
    event = Event(("A",), (1,), UPSERT, {"datapoints": "x"}, columns_to_update=frozenset({"datapoints"}),
                  system_seq=1)
    with pytest.raises(ValueError, match="bitemporal"):
        apply([event], BITEMPORAL)


# ---------------------------------------------------------------------------------------------------------------
# Properties over random feeds
# ---------------------------------------------------------------------------------------------------------------

NAMES = st.sampled_from([None, "a", "b"])
CITY_VALUES = st.sampled_from([None, "x", "y"])


@st.composite
def feeds(draw, partial=None, bitemporal=False):
    """A conflict-free random feed over 3 keys and sequences 0..9, with some exact duplicates.

    partial: None, "columns_to_update" or "ignore_null".
    """
    slots = draw(st.lists(st.tuples(st.integers(1, 3), st.integers(0, 9)), unique=True, max_size=14))
    events = []
    for key, seq in slots:
        system_seq = draw(st.integers(0, 5)) if bitemporal else None
        if draw(st.integers(0, 3)) == 0:
            events.append(Event((key,), (seq,), DELETE, {}, system_seq=system_seq))
            continue
        values = {"name": draw(NAMES), "city": draw(CITY_VALUES)}
        columns = None
        if partial == "columns_to_update" and draw(st.booleans()):
            columns = frozenset(draw(st.sets(st.sampled_from(["name", "city"]))))
        events.append(Event((key,), (seq,), UPSERT, values, columns_to_update=columns, system_seq=system_seq))
    duplicates = draw(st.lists(st.sampled_from(events), max_size=3)) if events else []
    if bitemporal:  # a duplicate may be learned again at another system time
        duplicates = [Event(e.key, e.seq, e.op, e.values, system_seq=draw(st.integers(0, 5))) for e in duplicates]
    return events + duplicates


def config_for(scd_type, partial, tracked=None):
    ignore = frozenset({"name", "city"}) if partial == "ignore_null" else frozenset()
    return users_config(scd_type, tracked=tracked, ignore_null_columns=ignore)


PARTIAL = st.sampled_from([None, "columns_to_update", "ignore_null"])


@settings(max_examples=200, deadline=None)
@given(st.data(), PARTIAL, st.sampled_from([1, 2]), st.sampled_from([None, ("name",)]))
def test_apply_is_invariant_under_shuffling(data, partial, scd_type, tracked):
    events = data.draw(feeds(partial))
    if scd_type == 1:
        tracked = None
        events += data.draw(st.lists(st.builds(lambda s: Event(None, (s,), TRUNCATE, {}), st.integers(0, 9)),
                                     max_size=2))
    config = config_for(scd_type, partial, tracked)
    shuffled = data.draw(st.permutations(events))
    assert apply(shuffled, config) == apply(events, config)


@settings(max_examples=100, deadline=None)
@given(st.data(), st.sampled_from([None, ("name",)]))
def test_bitemporal_is_invariant_under_shuffling(data, tracked):
    events = data.draw(feeds(None, bitemporal=True))
    config = users_config("bitemporal", tracked=tracked)
    assert apply(data.draw(st.permutations(events)), config) == apply(events, config)


@settings(max_examples=200, deadline=None)
@given(feeds("columns_to_update"), PARTIAL)
def test_scd1_is_the_open_versions_of_scd2(events, partial):
    if partial == "ignore_null":
        events = [Event(e.key, e.seq, e.op, e.values) for e in events]
    scd1 = apply(events, config_for(1, partial))
    open_versions = [{c: r[c] for c in USERS} for r in apply(events, config_for(2, partial)) if r[END_AT] is None]
    assert scd1 == open_versions


@settings(max_examples=200, deadline=None)
@given(feeds("columns_to_update"))
def test_scd1_column_values_follow_r5_definition(events):
    """R5 literally: a column's value is the one written by the greatest-sequence event that wrote it since the
    key's last delete; the row exists iff the key's greatest event is an upsert."""
    expected = []
    for key in sorted({e.key for e in events}):
        mine = sorted({e.seq: e for e in events if e.key == key}.values(), key=lambda e: e.seq)
        if mine[-1].op != UPSERT:
            continue
        since_delete = list(itertools.takewhile(lambda e: e.op == UPSERT, reversed(mine)))
        row = {"userId": key[0]}
        for column in ("name", "city"):
            writers = [e for e in since_delete if e.columns_to_update is None or column in e.columns_to_update]
            row[column] = writers[0].values[column] if writers else None
        expected.append(row)
    assert apply(events, users_config(1)) == expected


@settings(max_examples=200, deadline=None)
@given(feeds("columns_to_update"), st.sampled_from([None, ("name",)]))
def test_scd2_invariants(events, tracked):
    rows = apply(events, users_config(2, tracked=tracked))
    for key, group in itertools.groupby(rows, key=lambda r: r["userId"]):
        group = list(group)
        assert sum(r[END_AT] is None for r in group) <= 1
        for r in group:
            assert r[END_AT] is None or r[START_AT] < r[END_AT]
        for a, b in zip(group, group[1:]):
            assert a[END_AT] is not None and a[END_AT] <= b[START_AT]


@settings(max_examples=100, deadline=None)
@given(feeds(None, bitemporal=True))
def test_bitemporal_slices_are_scd2_histories(events):
    """R6: the rows valid at each system time t are exactly the SCD2 history of the events known at t."""
    rows = apply(events, users_config("bitemporal"))
    for t in sorted({e.system_seq for e in events}):
        believed = [{k: v for k, v in r.items() if not k.startswith("__SYSTEM")} for r in rows
                    if r[SYSTEM_START_AT] <= t and (r[SYSTEM_END_AT] is None or t < r[SYSTEM_END_AT])]
        known = [e for e in events if e.system_seq <= t]
        assert believed == apply(known, users_config(2))


# ---------------------------------------------------------------------------------------------------------------
# Combined flows: a snapshot and a change feed in one ordering domain
# ---------------------------------------------------------------------------------------------------------------
from auto_cdc_testkit.reference import apply_with_snapshots  # noqa: E402


def test_combined_snapshot_at_10_events_8_12_and_15():
    config = Config(columns=("id", "name"), key_columns=("id",))
    events = [Event((3,), 5, UPSERT, {"name": "three"}), Event((1,), 8, UPSERT, {"name": "one at 8"}),
              Event((2,), 12, UPSERT, {"name": "two at 12"}), Event((3,), 15, UPSERT, {"name": "three again"})]
    snapshots = [(10, [{"id": 1, "name": "one"}, {"id": 2, "name": "two"}])]
    assert apply_with_snapshots(events, snapshots, config) == [
        {"id": 1, "name": "one"}, {"id": 2, "name": "two at 12"}, {"id": 3, "name": "three again"}]
    # without the event at 15, key 3 (missing from the snapshot) is deleted at 10
    assert apply_with_snapshots(events[:3], snapshots, config) == [{"id": 1, "name": "one"}, {"id": 2, "name": "two at 12"}]


def test_combined_event_at_the_snapshot_version_must_agree_with_it():
    config = Config(columns=("id", "name"), key_columns=("id",))
    snapshots = [(10, [{"id": 1, "name": "one"}])]
    assert apply_with_snapshots([Event((1,), 10, UPSERT, {"name": "one"})], snapshots, config) == [{"id": 1, "name": "one"}]
    with pytest.raises(BadInputError):
        apply_with_snapshots([Event((1,), 10, UPSERT, {"name": "other"})], snapshots, config)
