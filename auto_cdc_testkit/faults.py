"""The fault-injection hook of tests/functional/test_faults.py, installed into a scratch dbt project.

The package calls ``auto_cdc._fault_point()`` after every statement of a run; its own implementation
is a no-op. A test project overrides it through dbt's dispatch search order (as dbt-utils'
integration tests override its macros): with the environment variable AUTO_CDC_FAULT_AFTER_STATEMENT
(``ENV``) set, every statement of the run is numbered in dbt's log ("auto_cdc statement <n>"), and after
statement number <n> the run stalls inside its open transaction (pg_sleep, which DuckDB has too) so
that the test can kill it exactly there. An environment variable read at run time, unlike a --vars
value, leaves dbt's saved parse of the project valid from one run to the next, so no run parses the
project in full.
"""
from __future__ import annotations

import re

from auto_cdc_testkit.statements import events

ENV = "AUTO_CDC_FAULT_AFTER_STATEMENT"
MACRO = """\
{% macro default___fault_point(last=false) %}
  {%- set after = env_var('AUTO_CDC_FAULT_AFTER_STATEMENT', '') -%}
  {%- if after != '' and not last -%}
    {%- do model.update({'auto_cdc_statements': model.get('auto_cdc_statements', 0) + 1}) -%}
    {%- do log('auto_cdc statement ' ~ model.auto_cdc_statements, info=false) -%}
    {%- if model.auto_cdc_statements == after | int -%}
      {%- do log('auto_cdc fault point: stalling after statement ' ~ after, info=true) -%}
      {% call statement('auto_cdc_fault', auto_begin=True) %}select pg_sleep(3600){% endcall %}
    {%- endif -%}
  {%- endif -%}
{% endmacro %}
"""


# In-process runs (the Spark tier): a run cannot be killed without killing the test, so the hook raises
# instead, which ends the model's run right after that statement. On Spark, where every statement
# commits on its own and no transaction holds a run together, that leaves the tables as a kill between
# two statements does (a Delta commit is atomic, so a kill inside a statement leaves them as before or
# after it). PLAN_ENV holds a JSON object: model name -> the statement to fail after; a run that sends
# fewer statements fails after its last one (the package calls the hook once more, `last`, when the
# apply is done). With a plan, every statement is logged ("auto_cdc statement <model> <n>"): with the key
# "__count__" alone, for count_statements.
PLAN_ENV = "AUTO_CDC_FAULT_PLAN"
# The operations' trials (tests/functional/test_operation_faults.py) take both the failures and the kills of
# the hook above (ENV) in one project, which is then not parsed again between them: this hook stalls too. In a
# run-operation dbt's `model` is the operation's macro: the plan's keys are then "erase_keys" and "compact".
RAISING_MACRO = """\
{% macro default___fault_point(last=false) %}
  {%- set plan = fromjson(env_var('AUTO_CDC_FAULT_PLAN', '{}')) -%}
  {%- set after = env_var('AUTO_CDC_FAULT_AFTER_STATEMENT', '') -%}
  {%- if (plan or after != '') and model is mapping and model.get('name') -%}
    {%- if not last -%}
      {%- do model.update({'auto_cdc_statements': model.get('auto_cdc_statements', 0) + 1}) -%}
      {%- do log('auto_cdc statement ' ~ model.name ~ ' ' ~ model.auto_cdc_statements, info=true) -%}
      {%- if after != '' and model.auto_cdc_statements == after | int -%}
        {%- do log('auto_cdc fault point: stalling after statement ' ~ after, info=true) -%}
        {% call statement('auto_cdc_fault', auto_begin=True) %}select pg_sleep(3600){% endcall %}
      {%- endif -%}
    {%- endif -%}
    {%- if plan.get(model.name) == model.auto_cdc_statements or (last and plan.get(model.name, 0) > model.get('auto_cdc_statements', 0)) -%}
      {%- do exceptions.raise_compiler_error('auto_cdc fault point: failing after statement ' ~ model.auto_cdc_statements
            ~ (' (its last)' if last else '')) -%}
    {%- endif -%}
  {%- endif -%}
{% endmacro %}
"""




def numbered_statements(log, model: str) -> dict[int, str]:
    """Statement number -> its SQL, for one model, from the JSON log (``--log-format-file json
    --log-level-file debug``) of a run made with {"__count__": true} in PLAN_ENV: the hook logs each
    number right after the statement it counts, so a number belongs to the SQL the model sent last."""
    out: dict[int, str] = {}
    last_sql = None
    pattern = re.compile(rf"auto_cdc statement {re.escape(model)} (\d+)")
    for event in events(log):
        info, data = event.get("info", {}), event.get("data", {})
        if info.get("name") == "SQLQuery" and (data.get("node_info") or {}).get("node_name") == model:
            last_sql = data.get("sql", "")
        elif (found := pattern.fullmatch((info.get("msg") or "").strip())) is not None:
            out[int(found.group(1))] = last_sql
    return out


def count_statements(output: str) -> dict[str, int]:
    """Statements per model in the output of a run made with {"__count__": true} in PLAN_ENV."""
    counts: dict[str, int] = {}
    for name, n in re.findall(r"auto_cdc statement (\S+) (\d+)", output):
        counts[name] = max(counts.get(name, 0), int(n))
    return counts


def install(project, raising: bool = False) -> None:
    """Add the hook to the project's macros and put the project first in auto_cdc's dispatch order."""
    (project.path / "macros" / "auto_cdc_fault_point.sql").write_text(RAISING_MACRO if raising else MACRO)
    config = project.path / "dbt_project.yml"
    text = config.read_text()
    name = re.search(r"^name: (\S+)$", text, re.M).group(1)
    if "dispatch:" not in text:
        config.write_text(text + f"dispatch:\n  - macro_namespace: auto_cdc\n    search_order: ['{name}', 'auto_cdc']\n")


def end_stalled_sessions(project) -> None:
    """Postgres: once dbt was killed while the hook stalled it, end its server session (sleeping in pg_sleep it
    would hold its locks for an hour; the end of the sleep would end it the same way, its transaction rolled
    back), and wait until no session of dbt is active."""
    if project.engine != "postgres":
        return
    import time
    project.execute("select pg_terminate_backend(pid) from pg_stat_activity "
                    "where pid <> pg_backend_pid() and datname = current_database() and query like '%pg_sleep(3600)%'")
    for _ in range(100):
        if not project.fetch("select count(*) from pg_stat_activity where pid <> pg_backend_pid() and datname = current_database() "
                             "and application_name = 'dbt' and state <> 'idle'")[0][0]:
            break
        time.sleep(0.1)
