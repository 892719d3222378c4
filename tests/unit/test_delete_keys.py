"""How erase_keys deletes the erased keys' rows and counts them (macros/dialect/operations.sql,
delete_keys): on Spark (Delta, whose DELETE takes no subquery) a MERGE that deletes, whose own result is
the count, one statement, so that a change someone else commits between a count and the delete is never
taken for the erase's commit (erase_keys' _keep_target_unedited); elsewhere a count, then the DELETE, in
the operation's transaction. The erase itself is tested on every engine (test_operations.py,
test_operation_faults.py, test_dml.py, test_trust.py, test_spark.py)."""
from types import SimpleNamespace

import pytest

from auto_cdc_testkit.macros import render_macro

START, END = "{#- Delete the rows of `relation` whose keys", "{#- The table of an erasure's keys"


def delete_keys(dialect, columns, rows):
    sent = []

    def query(sql):
        sent.append(" ".join(sql.split()))
        return SimpleNamespace(column_names=columns, rows=rows)

    def scalar(sql):
        sent.append(sql)
        return rows[0][0]

    macros = SimpleNamespace(_query=query, _scalar=scalar, _run_sql=sent.append,
                             _cols=lambda names: ", ".join(f'"{n}"' for n in names),
                             _eq=lambda names, l, r: " and ".join(f'{l}."{n}" = {r}."{n}"' for n in names),
                             delete_matching_sql=lambda rel, src, on: f"merge into {rel} as l using {src} as b on {on} when matched then delete")
    got = render_macro("dialect/operations.sql", START, END, f"{dialect}__delete_keys(relation, keys, key_columns)",
                       globals={"auto_cdc": macros}, relation="db.t", keys="db.t__auto_cdc_erased", key_columns=["id", "k2"])
    return got, sent


MERGE = 'merge into db.t as l using db.t__auto_cdc_erased as b on l."id" = b."id" and l."k2" = b."k2" when matched then delete'
DELTA_COLUMNS = ["num_affected_rows", "num_updated_rows", "num_deleted_rows", "num_inserted_rows"]


@pytest.mark.parametrize("rows, count", [([[3, 0, 3, 0]], 3), ([[0, 0, 0, 0]], 0), ([], 0), ([[None, None, None, None]], 0)])
def test_on_delta_the_count_is_the_merges_own(rows, count):
    assert delete_keys("spark", DELTA_COLUMNS, rows) == (count, [MERGE])


def test_elsewhere_a_count_then_the_delete():
    where = '("id", "k2") in (select "id", "k2" from db.t__auto_cdc_erased)'
    assert delete_keys("default", ["count"], [[2]]) == (2, [f"select count(*) from db.t where {where}",
                                                            f"delete from db.t where {where}"])
