"""Count the SQL statements a dbt invocation executed, per node, from dbt's structured log.

dbt writes one ``SQLQuery`` event for every statement an adapter sends (``BEGIN`` and ``COMMIT``
included), tagged with the node it ran for. Run dbt with ``--log-format-file json`` so that
``logs/dbt.log`` holds those events as JSON lines; the text log carries the same messages but
cannot tell a statement from a ``COMMIT`` notice reliably, so it is refused.

    counts = statement_counts(project_dir / "logs" / "dbt.log")
    counts["model.my_project.orders"]   # statements of the last invocation for that model

From a shell: ``python -m auto_cdc_testkit.statements path/to/logs/dbt.log [--sql NODE]``.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Iterator

# Statements that open or close a transaction; the rest do the node's work.
TRANSACTION_CONTROL = ("begin", "commit", "rollback")
# What an adapter sends for every node whatever its materialization (dbt-duckdb's catalog lookups): not
# the materialization's statements.
ADAPTER_SQL = ("duckdb_databases()", "duckdb_constraints()")


class NoStructuredLog(ValueError):
    """The log holds no JSON events (dbt ran without ``--log-format-file json``)."""


def events(log: Path) -> Iterator[dict]:
    """The structured (JSON) events of a dbt log, in order; a line cut short by a crash is skipped."""
    with open(log, encoding="utf-8") as lines:
        for line in lines:
            if line.startswith("{"):
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:  # a line cut short by a crash
                    continue


def strip_comment(sql: str) -> str:
    """The statement without dbt's leading ``/* {"app": "dbt", ...} */`` query comment."""
    text = sql.lstrip()
    if text.startswith("/*") and "*/" in text:
        text = text[text.index("*/") + 2:].lstrip()
    return text


def is_transaction_control(sql: str) -> bool:
    words = strip_comment(sql).split(None, 1)
    return bool(words) and words[0].rstrip(";").lower() in TRANSACTION_CONTROL


def invocations(log: str | Path) -> list[str]:
    """The invocation ids of the log's structured events, oldest first."""
    seen: dict[str, None] = {}
    for event in events(Path(log)):
        seen.setdefault(event.get("info", {}).get("invocation_id"), None)
    return [i for i in seen if i]


def statements(log: str | Path, invocation_id: str | None = None) -> dict[str | None, list[str]]:
    """The SQL of every statement of one invocation (the last in the log by default), in order, by
    node unique_id; statements outside any node (introspection at the start of the run, on-run-start
    hooks) are under ``None``."""
    logged = [e for e in events(Path(log)) if "info" in e]
    if not logged:
        raise NoStructuredLog(f"{log} holds no JSON events: run dbt with --log-format-file json")
    if invocation_id is None:
        invocation_id = logged[-1]["info"].get("invocation_id")
    by_node: dict[str | None, list[str]] = {}
    for event in logged:
        info = event["info"]
        if info.get("name") != "SQLQuery" or info.get("invocation_id") != invocation_id:
            continue
        data = event.get("data", {})
        node = (data.get("node_info") or {}).get("unique_id") or None
        by_node.setdefault(node, []).append(data.get("sql", ""))
    return by_node


def statement_counts(log: str | Path, invocation_id: str | None = None,
                     transaction_control: bool = True) -> dict[str | None, int]:
    """How many statements each node executed in one invocation (the last by default). With
    ``transaction_control=False``, ``BEGIN``/``COMMIT``/``ROLLBACK`` are left out."""
    return {node: sum(1 for sql in sqls if transaction_control or not is_transaction_control(sql))
            for node, sqls in statements(log, invocation_id).items()}


def is_adapter_sql(sql: str) -> bool:
    return any(fragment in sql for fragment in ADAPTER_SQL)


def is_materialization_sql(sql: str) -> bool:
    """A statement the node's materialization sent: neither transaction control nor the adapter's own."""
    return not is_transaction_control(sql) and not is_adapter_sql(sql)


def apply_statement_counts(log: str | Path, invocation_id: str | None = None) -> dict[str | None, int]:
    """How many statements each node's materialization sent in one invocation (the last by default)."""
    return {node: sum(map(is_materialization_sql, sqls)) for node, sqls in statements(log, invocation_id).items()}


def first_words(sqls: list[str], words: int = 3) -> Counter:
    """How often each statement opening occurs (``create temporary table``, ``merge into`` ...): a
    quick view of what a node spends its statements on."""
    return Counter(" ".join(strip_comment(sql).lower().split()[:words]) for sql in sqls)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    log = argv[0]
    if "--sql" in argv:
        node = argv[argv.index("--sql") + 1]
        for i, sql in enumerate(statements(log).get(node, []), 1):
            print(f"-- {i}\n{strip_comment(sql).strip()}\n")
        return 0
    all_sql = statements(log)
    for node, sqls in sorted(all_sql.items(), key=lambda item: str(item[0])):
        work = sum(map(is_materialization_sql, sqls))
        print(f"{len(sqls):5d} statements ({work} without begin/commit and the adapter's own)  {node or '(no node)'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
