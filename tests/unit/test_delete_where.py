"""How erase_keys deletes a model's rows and counts them (macros/dialect/operations.sql, delete_where): on
Spark (Delta) the count is the DELETE's own result, one statement, so that a change someone else commits
between a count and the DELETE is never taken for the erase's commit (erase_keys' _keep_target_unedited);
elsewhere a count, then the DELETE, in the operation's transaction. The erase itself is tested on every
engine (test_dml.py, test_trust.py, test_spark.py)."""
from types import SimpleNamespace

import pytest

from auto_cdc_testkit.macros import render_macro

START, END = "{#- Delete the rows of `relation`", None


def delete_where(dialect, returned):
    sent = []

    def query(sql):
        sent.append(sql)
        return SimpleNamespace(rows=returned)

    def scalar(sql):
        sent.append(sql)
        return returned[0][0]

    macros = SimpleNamespace(_query=query, _scalar=scalar, _run_sql=sent.append)
    got = render_macro("dialect/operations.sql", START, END, f"{dialect}__delete_where(relation, where)",
                       globals={"auto_cdc": macros}, relation="db.t", where="id in (1, 2)")
    return got, sent


@pytest.mark.parametrize("returned, count", [([[3]], 3), ([[0]], 0), ([], 0), ([[None]], 0)])
def test_on_delta_the_count_is_the_deletes_own(returned, count):
    assert delete_where("spark", returned) == (count, ["delete from db.t where id in (1, 2)"])


def test_elsewhere_a_count_then_the_delete():
    assert delete_where("default", [[2]]) == (2, ["select count(*) from db.t where id in (1, 2)",
                                                  "delete from db.t where id in (1, 2)"])
