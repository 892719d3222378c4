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

ENV = "AUTO_CDC_FAULT_AFTER_STATEMENT"
MACRO = """\
{% macro default___fault_point() %}
  {%- set after = env_var('AUTO_CDC_FAULT_AFTER_STATEMENT', '') -%}
  {%- if after != '' -%}
    {%- do model.update({'auto_cdc_statements': model.get('auto_cdc_statements', 0) + 1}) -%}
    {%- do log('auto_cdc statement ' ~ model.auto_cdc_statements, info=false) -%}
    {%- if model.auto_cdc_statements == after | int -%}
      {%- do log('auto_cdc fault point: stalling after statement ' ~ after, info=true) -%}
      {% call statement('auto_cdc_fault', auto_begin=True) %}select pg_sleep(3600){% endcall %}
    {%- endif -%}
  {%- endif -%}
{% endmacro %}
"""


def install(project) -> None:
    """Add the hook to the project's macros and put the project first in auto_cdc's dispatch order."""
    (project.path / "macros" / "auto_cdc_fault_point.sql").write_text(MACRO)
    config = project.path / "dbt_project.yml"
    text = config.read_text()
    name = re.search(r"^name: (\S+)$", text, re.M).group(1)
    if "dispatch:" not in text:
        config.write_text(text + f"dispatch:\n  - macro_namespace: auto_cdc\n    search_order: ['{name}', 'auto_cdc']\n")
