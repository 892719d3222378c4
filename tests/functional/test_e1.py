"""E1 (the documentation's change feed) on every engine: in one run, over several runs, with
and without cursor_column, and replayed."""
import pytest

from auto_cdc_testkit import fixtures as fx
from auto_cdc_testkit.harness import target_rows

pytestmark = pytest.mark.quick

SCD1_COLS, SCD2_COLS = fx.E1_SCD1_COLUMNS, fx.E1_SCD2_COLUMNS
MODELS = {name: (config, "feed_truncate" if truncated else "feed", cols, expected)
          for name, (config, truncated, cols, expected) in fx.E1_MODELS.items()}


def build(project, cursor=False):
    columns = fx.E1_COLUMNS + ([("loaded_at", "integer")] if cursor else [])
    project.table("feed", columns)
    project.table("feed_truncate", columns)
    for name, (config, feed, _, _) in MODELS.items():
        if cursor:
            config = dict(config, cursor_column="loaded_at", except_column_list=config["except_column_list"] + ["loaded_at"])
        project.feed_model(name, feed, materialized="auto_cdc", **config)
    return columns


def check_all(project):
    for name, (_, _, cols, expected) in MODELS.items():
        assert target_rows(project, name, cols) == sorted(expected, key=lambda r: tuple((v is not None, v or 0) for v in r)), name


def add(project, rows, truncate=False, loaded_at=None):
    cols = [c for c, _ in fx.E1_COLUMNS] + (["loaded_at"] if loaded_at is not None else [])
    rows = [tuple(r) + ((loaded_at,) if loaded_at is not None else ()) for r in rows]
    project.insert("feed", cols, rows)
    project.insert("feed_truncate", cols, rows)


def test_e1_targets_match_the_spec_in_one_run(project):
    build(project)
    add(project, fx.E1_FEED)
    project.insert("feed_truncate", [c for c, _ in fx.E1_COLUMNS], [fx.E1_TRUNCATE])
    project.run()
    check_all(project)


@pytest.mark.parametrize("cursor", [False, True], ids=["whole-feed", "cursor_column"])
def test_e1_over_three_runs_in_arrival_order_then_replayed(project, cursor):
    build(project, cursor)
    batches = [fx.E1_FEED[:3], fx.E1_FEED[3:6], fx.E1_FEED[6:]]
    for i, batch in enumerate(batches):
        add(project, batch, loaded_at=i + 1 if cursor else None)
        if i == 1:  # the truncate arrives late, in the middle run, after events it voids were applied
            project.insert("feed_truncate", [c for c, _ in fx.E1_COLUMNS] + (["loaded_at"] if cursor else []),
                           [fx.E1_TRUNCATE + ((2,) if cursor else ())])
        project.run()
    check_all(project)
    # R2: replaying the whole feed (every row read again) changes nothing
    add(project, fx.E1_FEED, loaded_at=4 if cursor else None)
    before = {name: project.rows(name) for name in MODELS}
    project.run()
    check_all(project)
    assert {name: project.rows(name) for name in MODELS} == before
    # and a run with no new rows changes nothing either
    project.run()
    check_all(project)
