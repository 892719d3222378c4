{#-
  materialized='auto_cdc_snapshot': the model returns full snapshots of a source. Each new version is
  diffed against the one before it and the differences are applied like a change feed whose sequence
  is the version, through the same run skeleton (skeleton.sql) and apply as auto_cdc; this file holds
  the snapshots' two steps.
-#}
{% materialization auto_cdc_snapshot, default %}
  {{ return(auto_cdc._materialize('snapshot')) }}
{%- endmaterialization %}


{% macro _resolve_snapshots(run) %}
  {{ return({'cfg': auto_cdc._resolve_snapshot_config(get_columns_in_query(run.sql))}) }}
{% endmacro %}


{#- Stage the snapshots and check them, then diff each new version against the one before it: one
    version (without snapshot_version, the run's snapshot) by a join with the current rows, several in
    one pass ordered by version (snapshot.sql). -#}
{% macro _stage_snapshots(run, resolved) %}
  {%- set n = auto_cdc._names() -%}
  {%- set cfg = resolved.cfg -%}
  {%- set rel = run.rel -%}
  {%- set temp = rel.temp -%}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(temp.snapshot, auto_cdc.stage_snapshot_sql({'cfg': cfg, 'sql': run.sql}))) %}
  {#- the plan first: it refuses a version column whose type changed, which the check compares -#}
  {%- set plan = auto_cdc._plan(cfg, rel, run.incremental, temp.snapshot, none,
        cursor_sql='(select max(' ~ auto_cdc._q(n.version) ~ ') from ' ~ temp.snapshot ~ ')',
        once_skipped=run.incremental and config.get('once', false)) -%}
  {%- set new_versions = auto_cdc._check_snapshot(cfg, rel, run.incremental) -%}
  {%- set args = {'cfg': cfg, 'rel': rel, 'plan': plan} -%}
  {%- set one_version = run.incremental and (new_versions == 1 if cfg.snapshot_version else not plan.once_skipped) -%}
  {%- set diff_sql = auto_cdc.snapshot_join_diff_sql(args) if one_version else auto_cdc.snapshot_diff_sql(args, run.incremental) -%}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(temp.batch, diff_sql)) %}
  {% do auto_cdc._check_delete_fraction(args, run.incremental) %}
  {{ return(args) }}
{% endmacro %}
