"""How much of a Delta target's history a run reads to tell whether anyone but the model's runs changed its
rows (macros/dialect/apply.sql, spark__unedited_target_version): the newest 5 commits, and the newest 100 only
where the last run's version is older than those (each commit's row carries its parameters, a MERGE's
condition among them). What it concludes from them is tested on Delta (test_spark.py, check_unedited)."""
from types import SimpleNamespace

import pytest

from auto_cdc_testkit.macros import render_macro


def unedited(since, versions, writes=1):
    """The version it returns and the statements it sent, for a history of `versions` (newest first):
    MERGEs, but an OPTIMIZE at every version divisible by 7."""
    sent = []

    def query(sql):
        sent.append(sql)
        limit = int(sql.rsplit(" ", 1)[1])
        return SimpleNamespace(rows=[{"version": v, "operation": "OPTIMIZE" if v % 7 == 0 else "MERGE"}
                                     for v in versions[:limit]])

    macros = SimpleNamespace(_spark_format=lambda relation=None: "delta", _query=query)
    args = {"rel": {"target": "db.t"}}
    got = render_macro("dialect/apply.sql", "{% macro spark__unedited_target_version", "{#- The log as an incremental run",
                       "spark__unedited_target_version(args, since, writes)", globals={"auto_cdc": macros},
                       args=args, since=since, writes=writes)
    return got, [sql.rsplit(" ", 1)[1] for sql in sent]


@pytest.mark.parametrize("since, versions, version", [
    (9, [10, 9, 8, 7, 6, 5], 10), (9, [10, 9], 10),
    (6, [10, 9, 8, 7, 6, 5], None),  # 6 is the fifth: 10 is the run's MERGE, 9 and 8 someone else's
])
def test_the_newest_five_commits_when_the_last_run_is_among_them(since, versions, version):
    assert unedited(since, versions) == (version, ["5"])


def test_a_hundred_when_the_last_run_is_older():
    versions = list(range(30, -1, -1))
    # after 20: 21 and 28 (OPTIMIZE) change no row, the other eight MERGEs do
    assert unedited(20, versions) == (None, ["5", "100"])
    # after 24: 28 (OPTIMIZE) changes no row, and 25-27, 29, 30 are the 5 writes the caller expects
    assert unedited(24, versions, writes=5) == (30, ["5", "100"])
