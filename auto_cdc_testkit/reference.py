"""Plain-Python reference model of dbt-auto-cdc: the test oracle.

It computes, with no database, the target table that docs/semantics.md defines for a change feed:

* ``apply(events, config)`` -- the rules R1-R7 of docs/semantics.md (SCD type 1, SCD type 2, bitemporal, partial updates).
* ``snapshot_events(snapshots, ...)`` -- docs/semantics.md "Snapshots": turns full snapshots into events for ``apply``.
* ``apply_in_runs(steps, config)`` -- ``apply`` over runs with compactions between them (a retention horizon).

The code favours being obviously right over being fast: the target is recomputed from every event ever received,
which is exactly how R1 defines it ("as if every event ever received were applied one by one in sequence order").
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

UPSERT, DELETE, TRUNCATE = "upsert", "delete", "truncate"
OPERATIONS = (UPSERT, DELETE, TRUNCATE)

# Reserved output columns (docs/semantics.md, "SCD2 history columns").
START_AT, END_AT = "__START_AT", "__END_AT"
SYSTEM_START_AT, SYSTEM_END_AT = "__SYSTEM_START_AT", "__SYSTEM_END_AT"
RESERVED_COLUMNS = (START_AT, END_AT, SYSTEM_START_AT, SYSTEM_END_AT)

BITEMPORAL = "bitemporal"


class BadInputError(ValueError):
    """Bad change-feed data (R7): NULL key, NULL sequence, conflicting events, duplicate snapshot keys."""


@dataclass(frozen=True)
class Event:
    """One change-feed row, already classified.

    ``key`` and ``seq`` are tuples (a multi-column sequence compares lexicographically, like a STRUCT).
    ``values`` holds output-column values of an upsert; it is ignored for deletes and truncates.
    ``columns_to_update`` (R5 COLUMNS TO UPDATE) is the set of columns this upsert writes, ``None`` when not used.
    ``system_seq`` is the system time of a bitemporal event.
    For short fixtures a scalar ``seq`` becomes a 1-tuple, lists become tuples and ``columns_to_update`` may be any
    iterable of names or a comma-separated string.
    """

    key: tuple | None
    seq: tuple
    op: str
    values: Mapping[str, Any]
    columns_to_update: frozenset[str] | None = None
    system_seq: Any = None

    def __post_init__(self):
        # Be lenient on container types so fixtures stay short; NULLs are left for apply() to report (R7).
        if isinstance(self.key, list):
            object.__setattr__(self, "key", tuple(self.key))
        if self.seq is not None and not isinstance(self.seq, tuple):
            seq = tuple(self.seq) if isinstance(self.seq, list) else (self.seq,)
            object.__setattr__(self, "seq", seq)
        if self.values is None:
            object.__setattr__(self, "values", {})
        columns = self.columns_to_update
        if isinstance(columns, str):  # R5: a comma-separated string is accepted as well as an array
            columns = [c.strip() for c in columns.split(",") if c.strip()]
        if columns is not None and not isinstance(columns, frozenset):
            object.__setattr__(self, "columns_to_update", frozenset(columns))


@dataclass(frozen=True)
class Config:
    """The target's shape, with the config forms of docs/configuration.md already resolved to plain column sets."""

    columns: tuple[str, ...]
    key_columns: tuple[str, ...]
    scd_type: int | str = 1
    tracked: tuple[str, ...] | None = None
    ignore_null_columns: frozenset[str] = frozenset()
    # Output columns every upsert writes whatever the partial-update config: the sequence columns when they are
    # output columns (keys are always written too).
    always_written: frozenset[str] = frozenset()


# ---------------------------------------------------------------------------------------------------------------
# Value helpers: NULL-safe, NaN-safe equality and a total order for deterministic output.
# ---------------------------------------------------------------------------------------------------------------

_NAN = ("<NaN>",)  # stands for every float NaN, so that NaN equals NaN


def _norm(value: Any) -> Any:
    """A hashable stand-in for ``value``: equal stand-ins <=> values that count as "the same" (NULL- and NaN-safe)."""
    if isinstance(value, float) and math.isnan(value):
        return _NAN
    if isinstance(value, (list, tuple)):
        return tuple(_norm(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(_norm(v) for v in value)
    if isinstance(value, Mapping):
        return frozenset((k, _norm(v)) for k, v in value.items())
    return value


def _same(a: Any, b: Any) -> bool:
    """NULL-safe comparison (``IS NOT DISTINCT FROM``), with NaN equal to NaN."""
    return _norm(a) == _norm(b)


def _order(value: Any) -> tuple:
    """Sort key that never compares None, numbers and strings with each other."""
    if value is None:
        return (0,)
    if isinstance(value, numbers.Number):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, tuple):
        return (3, tuple(_order(v) for v in value))
    return (4, type(value).__name__, value)


# ---------------------------------------------------------------------------------------------------------------
# Validation (R7 for data, R9-like checks for the config).
# ---------------------------------------------------------------------------------------------------------------


def _scd_type(config: Config) -> int | str:
    scd = config.scd_type
    if isinstance(scd, str) and scd.strip().lower() == BITEMPORAL:
        return BITEMPORAL
    if str(scd).strip() in ("1", "2"):
        return int(str(scd).strip())
    raise ValueError(f"unknown scd_type {scd!r}: expected 1, 2 or 'bitemporal'")


def _validate_config(config: Config, events: list[Event]) -> int | str:
    """Collect every config problem and raise once; return the normalised SCD type."""
    problems = []
    try:
        scd = _scd_type(config)
    except ValueError as err:
        problems.append(str(err))
        scd = None
    columns = set(config.columns)
    if len(columns) != len(config.columns):
        problems.append(f"duplicate output columns in {config.columns!r}")
    if not config.key_columns:
        problems.append("no key columns")
    for name, listed in (("key_columns", config.key_columns), ("tracked", config.tracked or ()),
                         ("ignore_null_columns", config.ignore_null_columns)):
        unknown = sorted(set(listed) - columns)
        if unknown:
            problems.append(f"{name} names unknown columns {unknown}")
    reserved = [c for c in config.columns if c in RESERVED_COLUMNS]
    if reserved:
        problems.append(f"output columns {reserved} use reserved names")
    if config.tracked is not None and scd == 1:
        problems.append("tracked columns (track_history_*) need SCD type 2 or bitemporal")
    uses_columns_to_update = any(e.columns_to_update is not None for e in events)
    if uses_columns_to_update and config.ignore_null_columns:
        problems.append("columns_to_update cannot be combined with ignore_null_updates (R5)")
    if uses_columns_to_update and scd == BITEMPORAL:
        problems.append("columns_to_update is not supported for bitemporal targets (R5)")
    if scd in (2, BITEMPORAL) and any(e.op == TRUNCATE for e in events):
        problems.append(f"truncate events are not allowed for SCD type {scd} (R4)")
    if problems:
        raise ValueError("invalid auto_cdc config: " + "; ".join(problems))
    return scd


def _validate_events(events: list[Event], config: Config, scd: int | str) -> None:
    """R7: NULL keys, NULL sequence values and unknown columns_to_update names fail, all reported at once."""
    counts: dict[str, int] = {}

    def bad(problem: str) -> None:
        counts[problem] = counts.get(problem, 0) + 1

    seq_lengths = set()
    for e in events:
        if e.op not in OPERATIONS:
            bad(f"unknown operation {e.op!r}")
            continue
        if e.seq is None or any(v is None for v in e.seq):
            bad("NULL sequence value")
        else:
            seq_lengths.add(len(e.seq))
        if e.op == TRUNCATE:
            continue
        if e.key is None or len(e.key) != len(config.key_columns):
            bad(f"missing key (expected values for {list(config.key_columns)})")
        else:
            for column, value in zip(config.key_columns, e.key):
                if value is None:
                    bad(f"NULL key column {column!r}")
        if scd == BITEMPORAL and e.system_seq is None:
            bad("NULL system sequence value")
        if e.op == UPSERT and e.columns_to_update is not None:
            # column names in columns_to_update match case-insensitively, like SQL identifiers
            unknown = sorted(c for c in e.columns_to_update if c.lower() not in {k.lower() for k in config.columns})
            if unknown:
                bad(f"columns_to_update names unknown columns {unknown}")
    if len(seq_lengths) > 1:
        bad(f"sequence values of different lengths {sorted(seq_lengths)}")
    if counts:
        raise BadInputError("bad change feed: " + "; ".join(f"{n} event(s) with {p}" for p, n in counts.items()))


# ---------------------------------------------------------------------------------------------------------------
# R1 / R7: duplicates collapse, conflicts fail.
# ---------------------------------------------------------------------------------------------------------------


def _payload(event: Event, config: Config) -> tuple:
    """What must agree between two events at the same key and sequence for them to be duplicates (R7).

    Deletes and truncates carry no payload. An upsert's payload is its non-key output values (a missing value
    counts as NULL) and its columns_to_update set. The system time is not part of it (see ``_dedupe``).
    """
    if event.op != UPSERT:
        return (event.op,)
    values = tuple(_norm(event.values.get(c)) for c in config.columns if c not in config.key_columns)
    written = event.columns_to_update
    return (event.op, values, None if written is None else frozenset(c.lower() for c in written))


def _dedupe(events: list[Event], config: Config) -> list[Event]:
    """R1/R7: collapse duplicates, raise BadInputError on two different events at the same key and sequence.

    Bitemporal: H(t) (R6) would hold both events of a pair that differs only in system time, so such a pair is a
    duplicate, and the one with the smallest system time stands for both (the fact is known from then on).
    """
    kept: dict[tuple, Event] = {}
    for e in events:
        slot = (e.op == TRUNCATE, None if e.op == TRUNCATE else _norm(e.key), _norm(e.seq))
        other = kept.get(slot)
        if other is None:
            kept[slot] = e
        elif _payload(other, config) != _payload(e, config):
            raise BadInputError(
                f"conflicting events for key {dict(zip(config.key_columns, e.key))} at sequence {e.seq!r}: "
                f"{_describe(other)} vs {_describe(e)}")
        elif e.system_seq is not None and (other.system_seq is None or e.system_seq < other.system_seq):
            kept[slot] = e
    return list(kept.values())


def _describe(event: Event) -> str:
    return event.op if event.op != UPSERT else f"upsert {dict(event.values)!r}"


# ---------------------------------------------------------------------------------------------------------------
# R5: what an upsert writes, and the merged state.
# ---------------------------------------------------------------------------------------------------------------


def _written(event: Event, config: Config) -> dict[str, Any]:
    """R5: the columns an upsert writes, with their values.

    Key columns are always written (from ``Event.key``). Otherwise every output column is written, except:
    with columns_to_update, only the listed columns (explicit NULLs included); with ignore_null_columns, a NULL
    in such a column is not written.
    """
    written = dict(zip(config.key_columns, event.key))
    for column in config.columns:
        if column in written:
            continue
        value = event.values.get(column)
        if column in config.always_written:
            written[column] = value
        elif event.columns_to_update is not None:
            if column.lower() in {c.lower() for c in event.columns_to_update}:
                written[column] = value
        elif not (value is None and column in config.ignore_null_columns):
            written[column] = value
    return written


def _merge(state: dict[str, Any] | None, event: Event, config: Config) -> dict[str, Any]:
    """R5: apply an upsert on top of the state since the key's last delete (``None``: nothing since then).

    Walking events in sequence order and merging gives each column the value of the greatest-sequence event that
    wrote it since the last delete, and NULL for a column nobody wrote.
    """
    merged = dict(state) if state is not None else {c: None for c in config.columns}
    merged.update(_written(event, config))
    return merged


def _by_key(events: Iterable[Event]) -> dict[tuple, list[Event]]:
    """Group keyed events per key, each group in sequence order (R1: arrival order is irrelevant)."""
    groups: dict[tuple, list[Event]] = {}
    for e in events:
        groups.setdefault(e.key, []).append(e)
    for group in groups.values():
        group.sort(key=lambda e: e.seq)
    return groups


# ---------------------------------------------------------------------------------------------------------------
# R3: SCD type 1.
# ---------------------------------------------------------------------------------------------------------------


def _not_truncated(events: list[Event]) -> list[Event]:
    """R3 truncate: a truncate at S voids every event with sequence < S, for every key; events >= S apply.

    Only the greatest truncate matters: it voids everything an earlier truncate would void, and more.
    """
    truncates = [e.seq for e in events if e.op == TRUNCATE]
    if not truncates:
        return [e for e in events if e.op != TRUNCATE]
    last = max(truncates)
    return [e for e in events if e.op != TRUNCATE and e.seq >= last]


def _scd1(events: list[Event], config: Config) -> list[dict]:
    """R3: a key's row is its state after its greatest-sequence (non-void) event; a delete leaves no row."""
    rows = []
    for key_events in _by_key(_not_truncated(events)).values():
        state = None
        for e in key_events:
            state = _merge(state, e, config) if e.op == UPSERT else None
        if state is not None:
            rows.append(state)
    return rows


# ---------------------------------------------------------------------------------------------------------------
# R4: SCD type 2.
# ---------------------------------------------------------------------------------------------------------------


def _tracked_changed(old: Mapping[str, Any], new: Mapping[str, Any], tracked: Iterable[str]) -> bool:
    return any(not _same(old[c], new[c]) for c in tracked)


def _scd2_history(key_events: list[Event], config: Config) -> list[dict]:
    """R4 for one key, events in sequence order: a list of versions ``{"values", "start", "end"}``.

    Upsert at s: merge it onto the state (R5); if the open version's tracked columns are unchanged, update it in
    place (it keeps its start; untracked columns take the new values), else close it at s and open [s, NULL).
    Delete at s: close the open version at s and clear the state.
    """
    tracked = config.tracked if config.tracked is not None else config.columns
    versions: list[dict] = []
    open_version = None
    for e in key_events:
        if e.op == DELETE:
            if open_version is not None:
                open_version["end"] = e.seq
            open_version = None
            continue
        state = _merge(open_version["values"] if open_version else None, e, config)
        if open_version is not None and not _tracked_changed(open_version["values"], state, tracked):
            open_version["values"] = state
            continue
        if open_version is not None:
            open_version["end"] = e.seq
        open_version = {"values": state, "start": e.seq, "end": None}
        versions.append(open_version)
    return versions


def _seq_out(seq: tuple | None, collapse: bool) -> Any:
    """__START_AT/__END_AT have the sequence's type: the scalar for one column, a STRUCT (tuple) for several."""
    if seq is None:
        return None
    return seq[0] if collapse else seq


def _scd2_row(version: dict, collapse: bool) -> dict:
    row = dict(version["values"])
    row[START_AT] = _seq_out(version["start"], collapse)
    row[END_AT] = _seq_out(version["end"], collapse)
    return row


def _scd2(events: list[Event], config: Config, collapse: bool) -> list[dict]:
    return [_scd2_row(v, collapse)
            for key_events in _by_key(events).values()
            for v in _scd2_history(key_events, config)]


# ---------------------------------------------------------------------------------------------------------------
# R6: bitemporal.
# ---------------------------------------------------------------------------------------------------------------


def _row_identity(row: Mapping[str, Any]) -> tuple:
    return tuple((c, _norm(v)) for c, v in row.items())


def _bitemporal_key(key_events: list[Event], config: Config, collapse: bool) -> list[dict]:
    """R6 for one key: version the SCD2 history H(t) along system time.

    H(t) is the SCD2 history of the events whose system time is <= t. A row gets __SYSTEM_START_AT = the first t
    at which it is in H(t) and __SYSTEM_END_AT = the first later t at which it no longer is. H(t) of this key only
    changes at this key's own system times, so those are the only t to look at. A row that leaves H and comes back
    gives two rows.
    """
    out: list[dict] = []
    present: dict[tuple, dict] = {}
    for t in sorted({e.system_seq for e in key_events}):
        known = [e for e in key_events if e.system_seq <= t]
        history = {_row_identity(r): r for r in (_scd2_row(v, collapse) for v in _scd2_history(known, config))}
        for identity in [i for i in present if i not in history]:
            present.pop(identity)[SYSTEM_END_AT] = t
        for identity, row in history.items():
            if identity not in present:
                present[identity] = {**row, SYSTEM_START_AT: t, SYSTEM_END_AT: None}
                out.append(present[identity])
    return out


def _bitemporal(events: list[Event], config: Config, collapse: bool) -> list[dict]:
    return [row for key_events in _by_key(events).values() for row in _bitemporal_key(key_events, config, collapse)]


# ---------------------------------------------------------------------------------------------------------------
# Public entry points.
# ---------------------------------------------------------------------------------------------------------------


def _sort_rows(rows: list[dict], config: Config) -> list[dict]:
    def key(row: dict) -> tuple:
        return (tuple(_order(row[c]) for c in config.key_columns),
                _order(row.get(START_AT)), _order(row.get(SYSTEM_START_AT)))
    return sorted(rows, key=key)


def apply(events: Iterable[Event], config: Config) -> list[dict]:
    """The target table defined by docs/semantics.md for every event ever received (R1), as a sorted list of row dicts.

    SCD1 rows hold ``config.columns``; SCD2 rows add __START_AT/__END_AT; bitemporal rows add
    __SYSTEM_START_AT/__SYSTEM_END_AT. Rows are sorted by key, then __START_AT, then __SYSTEM_START_AT.
    Raises BadInputError for bad data (R7) and ValueError for an invalid config.
    """
    events = list(events)
    scd = _validate_config(config, events)
    _validate_events(events, config, scd)
    events = _dedupe(events, config)
    collapse = all(len(e.seq) == 1 for e in events)
    if scd == 1:
        rows = _scd1(events, config)
    elif scd == 2:
        rows = _scd2(events, config, collapse)
    else:
        rows = _bitemporal(events, config, collapse)
    return _sort_rows(rows, config)


@dataclass(frozen=True)
class Compact:
    """A compaction of the model's log at ``horizon`` (``auto_cdc.compact``, ``older_than``): a sequence value,
    a scalar or a 1-tuple like ``Event.seq``."""

    horizon: Any

    def __post_init__(self):
        if not isinstance(self.horizon, tuple):
            object.__setattr__(self, "horizon", tuple(self.horizon) if isinstance(self.horizon, list) else (self.horizon,))


def apply_in_runs(steps: Iterable[Iterable[Event] | Compact], config: Config) -> list[dict]:
    """The target after ``steps`` in order: each step the events one run receives, or a ``Compact``.

    Compaction removes only what can no longer change the target, so the events received before it all
    still count. From a compaction on, an event received at or below the horizon (the greatest one so
    far) is ignored: the history it would land in is gone.
    """
    received: list[Event] = []
    horizon = None
    for step in steps:
        if isinstance(step, Compact):
            horizon = step.horizon if horizon is None else max(horizon, step.horizon)
            continue
        received += [e for e in step if horizon is None or e.seq > horizon]
    return apply(received, config)


def _index_snapshot(version: Any, rows: Iterable[Mapping[str, Any]], key_columns: tuple,
                    columns: tuple) -> dict[tuple, dict]:
    """One snapshot as {key: {column: value}}; NULL or duplicate keys fail (R7)."""
    indexed: dict[tuple, dict] = {}
    for row in rows:
        key = tuple(row.get(c) for c in key_columns)
        if any(v is None for v in key):
            raise BadInputError(f"snapshot version {version!r}: NULL key {dict(zip(key_columns, key))}")
        if key in indexed:
            raise BadInputError(f"snapshot version {version!r}: duplicate key {dict(zip(key_columns, key))}")
        indexed[key] = {c: row.get(c) for c in columns}
    return indexed


def _diff(before: dict[tuple, dict], after: dict[tuple, dict], version: Any) -> list[Event]:
    """The snapshot diff: new or changed keys are upserts, vanished keys are deletes, all at sequence (version,)."""
    seq = (version,)
    events = []
    for key, values in after.items():
        old = before.get(key)
        if old is None or any(not _same(old.get(c), v) for c, v in values.items()):
            events.append(Event(key, seq, UPSERT, values))
    for key in before.keys() - after.keys():
        events.append(Event(key, seq, DELETE, {}))
    return sorted(events, key=lambda e: tuple(_order(v) for v in e.key))


def _snapshot_walk(snapshots, key_columns, columns, previous):
    """Process snapshots in ascending version order, skipping versions not greater than the last processed one.

    Yields (events, state) after each processed snapshot, where state is the ``previous`` mapping for a next call.
    """
    key_columns, columns = tuple(key_columns), tuple(columns)
    last_version = previous.get("version") if previous else None
    before = _index_snapshot(last_version, previous.get("rows", ()), key_columns, columns) if previous else {}
    snapshots = list(snapshots)
    if any(version is None for version, _ in snapshots):
        raise BadInputError("snapshot with a NULL version")
    for version, rows in sorted(snapshots, key=lambda s: s[0]):
        if last_version is not None and not version > last_version:
            warnings.warn(f"snapshot version {version!r} is not greater than the last processed version "
                          f"{last_version!r}: skipped (out-of-order snapshot)", stacklevel=3)
            continue
        after = _index_snapshot(version, rows, key_columns, columns)
        events = _diff(before, after, version)
        before, last_version = after, version
        yield events, {"version": last_version, "rows": list(after.values())}


def snapshot_events(snapshots: Iterable[tuple[Any, Iterable[Mapping[str, Any]]]], key_columns: Iterable[str],
                    columns: Iterable[str], previous: Mapping | None = None) -> list[Event]:
    """Turn full snapshots ``(version, rows)`` into events for ``apply()``.

    ``previous`` describes the last snapshot already processed, ``{"version": v, "rows": [row, ...]}``, as returned
    by ``snapshot_state``; ``None`` means nothing was processed yet. Snapshots are processed in ascending version
    order; a version not greater than the last processed one is skipped with a warning. A key new in a snapshot,
    or with any changed value in ``columns`` (NULL-safe), is an UPSERT at ``(version,)``; a key missing from a
    snapshot but present in the one before is a DELETE at ``(version,)``; an unchanged key gives no event.
    A NULL or duplicate key within one snapshot raises BadInputError.
    """
    events: list[Event] = []
    for batch, _ in _snapshot_walk(snapshots, key_columns, columns, previous):
        events.extend(batch)
    return events


def snapshot_state(snapshots: Iterable[tuple[Any, Iterable[Mapping[str, Any]]]], key_columns: Iterable[str],
                   columns: Iterable[str], previous: Mapping | None = None) -> Mapping | None:
    """The ``previous`` mapping for the next ``snapshot_events`` call after processing ``snapshots``."""
    state = previous
    for _, state in _snapshot_walk(snapshots, key_columns, columns, previous):
        pass
    return state


# ---------------------------------------------------------------------------------------------------------------
# Combined flows (docs/semantics.md): one SCD1 target, snapshots and events in one order.
# ---------------------------------------------------------------------------------------------------------------


def apply_with_snapshots(events: Iterable[Event], snapshots: Iterable[tuple[Any, Iterable[Mapping[str, Any]]]],
                         config: Config) -> list[dict]:
    """An SCD1 target fed by change events and full snapshots ``(version, rows)`` whose versions share the
    events' ordering domain. Walking everything in sequence order: a snapshot at V replaces the whole state
    (keys it lacks are deleted at V); events apply as in R3 (a later event can restore a key); at equal
    sequence the snapshot comes first, and an event at V for a key of that snapshot must agree with its row
    (else BadInputError, R7). Rows of several snapshots with the same version form one snapshot.
    """
    if _scd_type(config) != 1:
        raise ValueError("a snapshot and a change feed combine into an SCD type 1 target only")
    events = list(events)
    _validate_events(events, config, 1)
    events = _dedupe(events, config)
    merged: dict[Any, dict[tuple, dict]] = {}
    for version, rows in snapshots:
        if version is None:
            raise BadInputError("NULL snapshot version")
        for row in rows:
            key = tuple(row[k] for k in config.key_columns)
            value = {c: row.get(c) for c in config.columns}
            other = merged.setdefault(version, {}).get(key)
            if other is not None and _norm(other) != _norm(value):
                raise BadInputError(f"conflicting snapshot rows for key {key} at version {version!r}")
            merged[version][key] = value
    for e in events:
        if e.op == UPSERT and e.seq[0] in merged and e.key in merged[e.seq[0]]:
            snap = merged[e.seq[0]][e.key]
            if _norm({c: snap[c] for c in config.columns if c not in config.key_columns}) != _norm(
                    {c: e.values.get(c) for c in config.columns if c not in config.key_columns}):
                raise BadInputError(f"event for key {e.key} at {e.seq!r} conflicts with the snapshot at that version")
        elif e.op == DELETE and e.seq[0] in merged and e.key in merged[e.seq[0]]:
            raise BadInputError(f"delete of key {e.key} at {e.seq!r} conflicts with the snapshot at that version")
    timeline = [((v,), 0, "snapshot", rows) for v, rows in merged.items()]
    timeline += [(e.seq, 1, e.op, e) for e in events]
    state: dict[tuple, dict] = {}
    for _, _, kind, item in sorted(timeline, key=lambda x: (tuple(_order(v) for v in x[0]), x[1])):
        if kind == "snapshot":
            state = {key: dict(row) for key, row in item.items()}
        elif kind == TRUNCATE:
            state = {}
        elif kind == DELETE:
            state.pop(item.key, None)
        else:
            state[item.key] = _merge(None, item, config)
    return _sort_rows(list(state.values()), config)
