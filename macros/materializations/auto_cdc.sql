{#-
  materialized='auto_cdc': the model returns a change feed; its relation is the target. The state is
  the event log beside the target (every event ever applied) and a run log (one row per run). The run
  itself is the shared skeleton (skeleton.sql); this file holds the change feed's two steps.
-#}
{% materialization auto_cdc, default %}
  {{ return(auto_cdc._materialize('feed')) }}
{%- endmaterialization %}


{#- The model's columns and the config resolved from them; an incremental run reads the column
    types of the target and its logs with them where one query can. -#}
{% macro _resolve_feed(run) %}
  {%- set rel = run.rel -%}
  {%- set source = auto_cdc._source_columns(run.sql, {'target': rel.target, 'log': rel.log, 'runs': rel.runs} if run.incremental else {}) -%}
  {{ return({'cfg': auto_cdc._resolve_config(source.names), 'types': source.types}) }}
{% endmacro %}


{#- Stage the feed (stage.sql) and plan the run (skeleton.sql: its columns, its schema changes); the
    apply checks the feed (R7) before anything is written. -#}
{% macro _stage_feed(run, resolved) %}
  {%- set cfg = resolved.cfg -%}
  {%- set rel = run.rel -%}
  {%- set temp = rel.temp -%}
  {%- set ctu_is_list = cfg.columns_to_update is not none and auto_cdc._is_list_type(
        auto_cdc._column_types('select ' ~ auto_cdc._q(cfg.columns_to_update) ~ ' from (' ~ run.sql ~ ') s').values() | first) -%}
  {#- what the run needs from the run log, where the engine reads it once first (prior_runs) -#}
  {%- set prior = auto_cdc.prior_runs(rel) if run.incremental else none -%}
  {%- set create_batch = auto_cdc.create_temp_table_sql(temp.batch, auto_cdc.stage_batch_sql({
        'cfg': cfg, 'sql': run.sql, 'runs': rel.runs if run.incremental else none,
        'cursor_floor': prior.cursor if prior else none, 'columns_to_update_is_list': ctu_is_list})) -%}
  {#- an incremental run reads the column types of the target, its logs and the batch (unless the
      model's columns came with them) in the same round trip -#}
  {%- set types = resolved.types -%}
  {%- if run.incremental and not types -%}
    {%- set types = auto_cdc._relation_types({'target': rel.target, 'log': rel.log, 'runs': rel.runs, 'source': temp.batch}, create_batch) -%}
  {%- else -%}
    {% do auto_cdc._run_sql(create_batch) %}
  {%- endif -%}
  {%- set plan = auto_cdc._plan(cfg, rel, run.incremental, temp.batch, types, check_feed=true, prior=prior) -%}
  {{ return({'cfg': cfg, 'rel': rel, 'plan': plan}) }}
{% endmacro %}
