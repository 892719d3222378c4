"""The semantics tests on Spark, the third engine (AUTO_CDC_ENGINES=spark; see the README's Spark
section). A dbt invocation costs tens of seconds on Spark (a new driver each time), so instead of one
project per test, ONE project holds every case as its own model and dbt runs once per delivery step:
the SPEC examples E1-E4 (E1 over three runs with a late truncate, then replayed; E2 and E3 snapshots
over two runs; E4 one event per run) and property-generated feeds, every target compared with the
same expected tables as on DuckDB and Postgres (the SPEC's, and the reference model's).

Default tier: PROPERTY_CASES generated feeds. Full tier (AUTO_CDC_SPARK_FULL=1): FULL_PROPERTY_CASES
of them and the SCD1 variants of E2/E3."""
from __future__ import annotations

import os

import pytest

from dbt_auto_cdc import fixtures as fx
from dbt_auto_cdc.cases import Case
from dbt_auto_cdc.harness import Project, ordered, target_rows

from conftest import ENGINES
from test_properties import cases as property_cases

pytestmark = pytest.mark.skipif("spark" not in ENGINES, reason="the Spark tier runs with AUTO_CDC_ENGINES=spark")

FULL = os.environ.get("AUTO_CDC_SPARK_FULL", "") not in ("", "0")
PROPERTY_CASES = 4
FULL_PROPERTY_CASES = 16
N_CASES = FULL_PROPERTY_CASES if FULL else PROPERTY_CASES

E1_SCD1_COLS = ["userId", "name", "city"]
E1_SCD2_COLS = E1_SCD1_COLS + ["__START_AT", "__END_AT"]
E1_MODELS = {
    "e1_scd1": (fx.E1_SCD1_CONFIG, "e1_feed", E1_SCD1_COLS, fx.E1_SCD1),
    "e1_scd1_truncate": (fx.E1_SCD1_CONFIG, "e1_feed_truncate", E1_SCD1_COLS, fx.E1_SCD1_TRUNCATE),
    "e1_scd2": (fx.E1_SCD2_CONFIG, "e1_feed", E1_SCD2_COLS, fx.E1_SCD2),
    "e1_scd2_city": (fx.E1_SCD2_CITY_CONFIG, "e1_feed", E1_SCD2_COLS, fx.E1_SCD2_TRACK_EXCEPT_CITY),
}
E1_BATCHES = [fx.E1_FEED[:3], fx.E1_FEED[3:6], fx.E1_FEED[6:], fx.E1_FEED]  # the last run replays it all (R2)

SNAP = fx.SNAPSHOT_COLUMNS
E2_V0, E2_V1, E2_SCD2, E2_SCD1 = fx.E2_V0, fx.E2_V1, fx.E2_SCD2, fx.E2_SCD1
E3_V1, E3_V2, E3_SCD2, E3_SCD1 = fx.E3_V1, fx.E3_V2, fx.E3_SCD2, fx.E3_SCD1
SNAP_CFG = dict(materialized="auto_cdc_snapshot", keys=["userId"], snapshot_version="version")
LAST = "{{ auto_cdc.last_snapshot_version() }}"


def install_examples(p: Project) -> dict:
    """The E1-E4 models; returns run -> list of deliveries and name -> (columns, expected rows)."""
    checks, deliveries = {}, {r: [] for r in range(4)}
    e1_cols = [c for c, _ in fx.E1_COLUMNS]
    p.table("e1_feed", fx.E1_COLUMNS)
    p.table("e1_feed_truncate", fx.E1_COLUMNS)
    for name, (config, feed, cols, expected) in E1_MODELS.items():
        p.feed_model(name, feed, materialized="auto_cdc", **config)
        checks[name] = (cols, expected)
    for run, batch in enumerate(E1_BATCHES):
        deliveries[run] += [("e1_feed", e1_cols, batch), ("e1_feed_truncate", e1_cols, batch)]
    deliveries[1].append(("e1_feed_truncate", e1_cols, [fx.E1_TRUNCATE]))  # a late truncate

    snap_cols = [c for c, _ in SNAP]
    p.table("e2_snap", SNAP)
    p.feed_model("e2_scd2", "e2_snap", **SNAP_CFG, stored_as_scd_type=2)
    checks["e2_scd2"] = (["userId", "city", "__START_AT", "__END_AT"], E2_SCD2)
    p.table("e3_snap", SNAP)
    p.model("e3_scd2", f"select * from {p.relation('e3_snap')} where {LAST} is null or version > {LAST}",
            **SNAP_CFG, stored_as_scd_type=2)
    checks["e3_scd2"] = (["userId", "city", "__START_AT", "__END_AT"], E3_SCD2)
    if FULL:
        p.feed_model("e2_scd1", "e2_snap", **SNAP_CFG)
        checks["e2_scd1"] = (["userId", "city"], E2_SCD1)
        p.model("e3_scd1", f"select * from {p.relation('e3_snap')} where {LAST} is null or version > {LAST}",
                **SNAP_CFG)
        checks["e3_scd1"] = (["userId", "city"], E3_SCD1)
    deliveries[0] += [("e2_snap", snap_cols, [(*r, 0) for r in E2_V0]), ("e3_snap", snap_cols, [(*r, 1) for r in E3_V1])]
    deliveries[1] += [("e2_snap", snap_cols, [(*r, 1) for r in E2_V1]), ("e3_snap", snap_cols, [(*r, 2) for r in E3_V2])]

    p.table("e4_feed", fx.E4_COLUMNS)
    p.feed_model("e4_bitemporal", "e4_feed", materialized="auto_cdc", **fx.E4_CONFIG)
    checks["e4_bitemporal"] = (fx.E4_TARGET_COLUMNS, fx.E4_AFTER[-1])
    for run, event in enumerate(fx.E4_FEED):  # one event per run: every intermediate state is applied
        deliveries[run].append(("e4_feed", [c for c, _ in fx.E4_COLUMNS], [event]))
    return {"checks": checks, "deliveries": deliveries}


def property_batch(n: int) -> list[Case]:
    """n generated feeds (the property tests' strategy), drawn at random: each example of the property
    tests costs several dbt runs, so the Spark tier runs one batch (printed whole when it fails)."""
    import warnings
    from hypothesis.errors import NonInteractiveExampleWarning
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonInteractiveExampleWarning)
        return [property_cases(i).example() for i in range(n)]


def test_examples_and_property_cases_on_spark_equal_the_expected_tables(spark_cluster, tmp_path_factory):
    batch = property_batch(N_CASES)
    p = Project(tmp_path_factory.mktemp("spark_semantics"), "spark", spark_conf=spark_cluster.spark_conf())
    examples = install_examples(p)
    for case in batch:
        case.install(p)
    runs = max([4] + [c.runs for c in batch])
    for run in range(runs):
        for feed, cols, rows in examples["deliveries"].get(run, []):
            p.insert(feed, cols, rows)
        for case in batch:
            case.deliver(p, run)
        p.run()
    failures = []
    for name, (cols, expected) in examples["checks"].items():
        actual = target_rows(p, name, cols)
        if actual != ordered(expected):
            failures.append(f"{name}: got {actual}, expected {ordered(expected)}")
    for case in batch:
        if case.actual(p) != case.expected():
            failures.append(f"{case.name}: got {case.actual(p)}, expected {case.expected()}\n  {case}")
    print("property cases (scd, partial, events, runs):", [(c.scd, c.partial, len(c.rows), c.runs) for c in batch])
    print(f"Spark ran in {spark_cluster.mode} mode ({spark_cluster.master_url}); "
          f"{len(examples['checks'])} example models, {len(batch)} property cases, {runs} dbt runs")
    assert not failures, "\n".join(failures)
