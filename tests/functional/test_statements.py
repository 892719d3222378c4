"""auto_cdc_testkit.statements counts the statements of each node of a real dbt run (DuckDB)."""
from __future__ import annotations

import pytest

from auto_cdc_testkit.harness import Project
from auto_cdc_testkit.statements import (NoStructuredLog, apply_statement_counts, invocations, is_adapter_sql,
                                         statement_counts, statements)
from conftest import ENGINES

pytestmark = pytest.mark.skipif("duckdb" not in ENGINES, reason="runs on DuckDB")


def test_statement_counts_per_node_of_the_last_invocation(tmp_path):
    project = Project(tmp_path / "p", "duckdb")
    log = project.path / "logs" / "dbt.log"
    with pytest.raises(NoStructuredLog):  # `dbt deps` wrote a text log only
        statements(log)

    project.table("feed", [("id", "integer"), ("v", "varchar"), ("seq", "integer")], [(1, "a", 1), (2, "b", 2)])
    project.model("plain", "select 1 as x", materialized="table")
    project.model("hooked", "select 1 as x", materialized="table",
                  pre_hook="select 'pre hook'", post_hook="select 'post hook'")
    project.model("t", f"select * from {project.relation('feed')}", materialized="auto_cdc", keys=["id"],
                  sequence_by="seq")
    # One model per invocation: the relation cache is filled by whichever node runs first, and its
    # introspection query is logged under that node.
    project.dbt("run", "--select", "plain", "--log-format-file", "json")
    project.dbt("run", "--select", "hooked", "--log-format-file", "json")
    project.dbt("run", "--select", "t", "--log-format-file", "json")

    plain, hooked, last = invocations(log)[-3:]
    counts = statement_counts(log, plain)
    # the same materialization, plus one statement per hook
    assert statement_counts(log, hooked)["model.auto_cdc_it.hooked"] == counts["model.auto_cdc_it.plain"] + 2
    assert sum(sql.strip().lower() == "commit" for sql in statements(log, plain)["model.auto_cdc_it.plain"]) == 1
    assert statement_counts(log, plain, transaction_control=False)["model.auto_cdc_it.plain"] == \
        counts["model.auto_cdc_it.plain"] - 2  # its BEGIN and COMMIT

    latest = statement_counts(log)  # the last invocation: only the selected model ran
    assert latest == statement_counts(log, last)
    assert set(latest) - {None} == {"model.auto_cdc_it.t"}
    assert latest["model.auto_cdc_it.t"] > 0
    # the materialization's own: no BEGIN/COMMIT, none of what DuckDB's adapter sends for every node
    adapter_own = sum(map(is_adapter_sql, statements(log, plain)["model.auto_cdc_it.plain"]))
    assert adapter_own > 0
    assert apply_statement_counts(log, plain)["model.auto_cdc_it.plain"] == \
        counts["model.auto_cdc_it.plain"] - 2 - adapter_own
    project.clean()
