"""Generated change-feed cases shared by the property tests: one ``Case`` is a feed table, the
auto_cdc model over it, the run in which each row arrives, and what the reference model says the
target must hold."""
from __future__ import annotations

import os

from dataclasses import dataclass
from typing import Any, Sequence

from hypothesis import HealthCheck, Phase, settings

from . import reference as ref
from .harness import Project, sorted_rows

# Property tests. Each generated case (a feed, its model and its expected table) is drawn from the
# session's seed, AUTO_CDC_PROPERTY_SEED (chosen at random and printed in the run's header when unset; the
# same seed gives the same cases), so a failure repeats exactly. A property test draws
# AUTO_CDC_PROPERTY_EXAMPLES cases per engine (default PROPERTY_EXAMPLES) and applies them in projects of
# PROPERTY_BATCH models each, one dbt invocation per delivery run for the whole batch.
PROPERTY_EXAMPLES = 32
PROPERTY_BATCH = int(os.environ.get("AUTO_CDC_PROPERTY_BATCH", "48"))


def property_examples(default: int = PROPERTY_EXAMPLES) -> int:
    return int(os.environ.get("AUTO_CDC_PROPERTY_EXAMPLES") or default)


# For tests that drive hypothesis themselves, one example a batch of about eight cases: a hypothesis
# example per eight AUTO_CDC_PROPERTY_EXAMPLES (default 4 examples); no shrinking.
PROPERTY_SETTINGS = settings(
    max_examples=max(1, property_examples() // 8), deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])


def property_seed() -> int:
    """The session's seed for generated cases (tests/conftest.py sets it when it is unset)."""
    return int(os.environ.get("AUTO_CDC_PROPERTY_SEED", "2026"))


def generate(strategy_of, count: int | None = None, salt: int = 0) -> list:
    """`count` cases (default: property_examples()), case i drawn from strategy_of(i) with a seed of
    its own derived from the session's seed and `salt` (one per property test)."""
    count = property_examples() if count is None else count
    base = property_seed() * 1_000_003 + salt * 100_003
    return [draw_example(strategy_of(i), base + i) for i in range(count)]


def in_batches(cases: Sequence, size: int | None = None) -> list[list]:
    size = size or PROPERTY_BATCH
    return [list(cases[i:i + size]) for i in range(0, len(cases), size)]


def draw_example(strategy, seed: int):
    """One value of a hypothesis strategy, the same for the same seed (and hypothesis version): the
    third example hypothesis generates under that seed (the first ones tend to be the simplest)."""
    from hypothesis import given, seed as with_seed
    drawn = []

    @with_seed(seed)
    @settings(max_examples=3, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(value):
        drawn.append(value)

    collect()
    return drawn[-1]


def check_batch(project: Project, batch) -> None:
    """Install every case, deliver each run's rows and run dbt once per run (the first a full refresh,
    as each example reuses the project), then compare every target with the reference model."""
    for case in batch:
        case.install(project)
    for run in range(max(c.runs for c in batch)):
        for case in batch:
            case.deliver(project, run)
        project.run(full_refresh=(run == 0))
    compared = [(case, case.actual(project), case.expected()) for case in batch]
    mismatches = [f"{case}\n  target   {actual}\n  expected {expected}"
                  for case, actual, expected in compared if actual != expected]
    assert not mismatches, (f"{len(mismatches)} of {len(batch)} cases differ from the reference model "
                            f"(AUTO_CDC_PROPERTY_SEED={property_seed()} repeats them):\n" + "\n".join(mismatches))

# SQL types per engine for the generated columns.
SQL_TYPES = {"int": "integer", "text": "varchar"}


@dataclass
class Case:
    name: str
    scd: int | str                    # 1, 2 or "bitemporal" (rows then carry a system time `st`)
    key_columns: list[str]            # k1 [, k2]
    seq_columns: list[str]            # s1 [, s2]
    rows: list[dict]                  # feed rows: keys, seqs, op, a, b, loaded (the run that delivers it)
    tracked: list[str] | None = None  # SCD2 track_history_column_list
    sequence_in_output: bool = False
    use_cursor: bool = False
    # R5: None, "ignore_null_updates", "ignore_null_updates_column_list",
    # "ignore_null_updates_except_column_list" or "columns_to_update" (rows then carry `cols`)
    partial: str | None = None

    @property
    def feed(self) -> str:
        return self.name + "_feed"

    @property
    def feed_columns(self) -> list[tuple[str, str]]:
        cols = [("k1", "integer")] + ([("k2", "varchar")] if "k2" in self.key_columns else [])
        cols += [("s1", "integer")] + ([("s2", "integer")] if "s2" in self.seq_columns else [])
        return cols + [("op", "varchar"), ("a", "integer"), ("b", "varchar"), ("cols", "varchar"), ("st", "integer"),
                       ("loaded", "integer")]

    @property
    def output_columns(self) -> list[str]:
        return self.key_columns + (self.seq_columns if self.sequence_in_output else []) + ["a", "b"]

    @property
    def runs(self) -> int:
        return max((r["loaded"] for r in self.rows), default=0) + 1

    def config(self) -> dict[str, Any]:
        excluded = ["op", "loaded", "cols", "st"] + ([] if self.sequence_in_output else self.seq_columns)
        cfg: dict[str, Any] = dict(
            materialized="auto_cdc", keys=self.key_columns,
            sequence_by=self.seq_columns if len(self.seq_columns) > 1 else self.seq_columns[0],
            apply_as_deletes="op = 'D'", except_column_list=excluded, stored_as_scd_type=self.scd)
        if self.scd == 1:
            cfg["apply_as_truncates"] = "op = 'T'"
        if self.tracked is not None:
            cfg["track_history_column_list"] = self.tracked
        if self.scd == "bitemporal":
            cfg["system_sequence_by"] = "st"
        if self.use_cursor:
            cfg["cursor_column"] = "loaded"
        if self.partial == "ignore_null_updates":
            cfg["ignore_null_updates"] = True
        elif self.partial == "ignore_null_updates_column_list":
            cfg["ignore_null_updates_column_list"] = ["a"]
        elif self.partial == "ignore_null_updates_except_column_list":
            cfg["ignore_null_updates_except_column_list"] = ["a"]
        elif self.partial == "columns_to_update":
            cfg["columns_to_update"] = "cols"
            cfg["except_column_list"] = [c for c in excluded if c != "cols"]
        return cfg

    @property
    def ignore_null_columns(self) -> frozenset:
        return {"ignore_null_updates": frozenset(["a", "b"]), "ignore_null_updates_column_list": frozenset(["a"]),
                "ignore_null_updates_except_column_list": frozenset(["b"])}.get(self.partial, frozenset())

    # -- the oracle ---------------------------------------------------------------------------
    def events(self) -> list[ref.Event]:
        ops = {"U": ref.UPSERT, "D": ref.DELETE, "T": ref.TRUNCATE}
        out = []
        for r in self.rows:
            op = ops[r["op"]]
            key = None if op == ref.TRUNCATE else tuple(r[k] for k in self.key_columns)
            values = {c: r[c] for c in self.output_columns if c not in self.key_columns}
            written = None
            if self.partial == "columns_to_update" and r.get("cols") is not None:
                written = frozenset(c.strip() for c in r["cols"].split(",") if c.strip())
            out.append(ref.Event(key=key, seq=tuple(r[s] for s in self.seq_columns), op=op, values=values,
                                 columns_to_update=written,
                                 system_seq=r["st"] if self.scd == "bitemporal" else None))
        return out

    def reference_config(self) -> ref.Config:
        return ref.Config(columns=tuple(self.output_columns), key_columns=tuple(self.key_columns),
                          scd_type=self.scd, tracked=tuple(self.tracked) if self.tracked is not None else None,
                          ignore_null_columns=self.ignore_null_columns,
                          always_written=frozenset(self.seq_columns if self.sequence_in_output else ()))

    def expected(self) -> list[tuple]:
        rows = ref.apply(self.events(), self.reference_config())
        return sorted_rows(rows, self.target_columns)

    @property
    def target_columns(self) -> list[str]:
        history = {1: [], 2: ["__START_AT", "__END_AT"],
                   "bitemporal": ["__START_AT", "__END_AT", "__SYSTEM_START_AT", "__SYSTEM_END_AT"]}[self.scd]
        return self.output_columns + history

    # -- dbt ------------------------------------------------------------------------------------
    def install(self, project: Project) -> None:
        project.table(self.feed, self.feed_columns)
        project.feed_model(self.name, self.feed, **self.config())

    def deliver(self, project: Project, run: int) -> None:
        cols = [c for c, _ in self.feed_columns]
        project.insert(self.feed, cols, [tuple(r[c] for c in cols) for r in self.rows if r["loaded"] == run])

    def actual(self, project: Project) -> list[tuple]:
        return sorted_rows((_plain(r) for r in project.rows(self.name)), self.target_columns)


def _plain(row: dict) -> dict:
    """Engine values as the reference model writes them: a multi-column sequence as a tuple."""
    out = {}
    for k, v in row.items():
        if isinstance(v, dict):  # DuckDB STRUCT
            v = tuple(v.values())
        elif isinstance(v, str) and k in ("__START_AT", "__END_AT") and v.startswith("("):  # Postgres composite
            v = tuple(int(p) for p in v.strip("()").split(","))
        out[k] = v
    return out


@dataclass
class SnapshotCase:
    """A series of full snapshots (version -> rows of k, c, d), each delivered in some run, for an
    auto_cdc_snapshot model; versions delivered after a greater one was applied are out of order."""
    name: str
    scd: int
    snapshots: dict[int, list[dict]]   # version -> rows
    delivered: dict[int, int]          # version -> run that delivers it
    tracked: list[str] | None = None
    use_last_version: bool = False     # the model reads only versions above last_snapshot_version()

    columns = ["k", "c", "d"]

    @property
    def feed(self) -> str:
        return self.name + "_snaps"

    @property
    def runs(self) -> int:
        return max(self.delivered.values(), default=0) + 1

    def config(self) -> dict[str, Any]:
        cfg: dict[str, Any] = dict(materialized="auto_cdc_snapshot", keys=["k"], snapshot_version="v",
                                   stored_as_scd_type=self.scd)
        if self.tracked is not None:
            cfg["track_history_column_list"] = self.tracked
        return cfg

    def install(self, project: Project) -> None:
        project.table(self.feed, [("k", "integer"), ("c", "varchar"), ("d", "integer"), ("v", "integer")])
        where = ""
        if self.use_last_version:
            last = "{{ auto_cdc.last_snapshot_version() }}"
            where = f" where {last} is null or v > {last}"
        project.model(self.name, f"select * from {project.relation(self.feed)}{where}", **self.config())

    def deliver(self, project: Project, run: int) -> None:
        rows = [(r["k"], r["c"], r["d"], v) for v, rs in self.snapshots.items() if self.delivered[v] == run for r in rs]
        project.insert(self.feed, ["k", "c", "d", "v"], rows)

    def expected(self) -> list[tuple]:
        import warnings
        events, previous = [], None
        for run in range(self.runs):
            snaps = [(v, rs) for v, rs in self.snapshots.items() if self.delivered[v] == run]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                events += ref.snapshot_events(snaps, ["k"], self.columns, previous)
                previous = ref.snapshot_state(snaps, ["k"], self.columns, previous)
        config = ref.Config(columns=tuple(self.columns), key_columns=("k",), scd_type=self.scd,
                            tracked=tuple(self.tracked) if self.tracked is not None else None)
        return sorted_rows(ref.apply(events, config), self.target_columns)

    @property
    def target_columns(self) -> list[str]:
        return self.columns + ([] if self.scd == 1 else ["__START_AT", "__END_AT"])

    def actual(self, project: Project) -> list[tuple]:
        return sorted_rows(project.rows(self.name), self.target_columns)


@dataclass
class CombinedCase:
    """An SCD1 auto_cdc model fed by snapshots and change events in one ordering domain (apply_as_snapshot):
    events are (k, seq, name, op), snapshots version -> rows of (k, name); each delivered in some run."""
    name: str
    events: list[dict]                 # k, seq, name, op ('U' or 'D'), loaded
    snapshots: dict[int, list[dict]]   # version -> rows of k, name
    delivered: dict[int, int]          # snapshot version -> run

    @property
    def feed(self) -> str:
        return self.name + "_feed"

    @property
    def runs(self) -> int:
        return max([e["loaded"] for e in self.events] + list(self.delivered.values()) + [0]) + 1

    def install(self, project: Project) -> None:
        project.table(self.feed, [("k", "integer"), ("seq", "integer"), ("name", "varchar"), ("op", "varchar"),
                                  ("is_snapshot", "boolean")])
        project.feed_model(self.name, self.feed, materialized="auto_cdc", keys=["k"], sequence_by="seq",
                           apply_as_deletes="op = 'D'", apply_as_snapshot="is_snapshot",
                           except_column_list=["seq", "op", "is_snapshot"])

    def deliver(self, project: Project, run: int) -> None:
        rows = [(e["k"], e["seq"], e["name"], e["op"], False) for e in self.events if e["loaded"] == run]
        rows += [(r["k"], v, r["name"], None, True) for v, rs in self.snapshots.items() if self.delivered[v] == run
                 for r in rs]
        project.insert(self.feed, ["k", "seq", "name", "op", "is_snapshot"], rows)

    def expected(self) -> list[tuple]:
        ops = {"U": ref.UPSERT, "D": ref.DELETE}
        events = [ref.Event((e["k"],), e["seq"], ops[e["op"]], {"name": e["name"]}) for e in self.events]
        config = ref.Config(columns=("k", "name"), key_columns=("k",))
        return sorted_rows(ref.apply_with_snapshots(events, list(self.snapshots.items()), config), ["k", "name"])

    def actual(self, project: Project) -> list[tuple]:
        return sorted_rows(project.rows(self.name), ["k", "name"])
