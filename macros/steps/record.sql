{#- One row per run: what it read, what it applied, how far its cursor reached. -#}
{% macro create_runs_sql(args) %}
  {%- set n = auto_cdc._names() -%}
  {%- set sql -%}
select
  cast(0 as {{ dbt.type_bigint() }}) as run_id,
  cast(null as {{ dbt.type_timestamp() }}) as run_started_at,
  cast(null as {{ dbt.type_string() }}) as invocation_id,
  {{ auto_cdc._q(n.cursor) }} as cursor_value,
  cast(0 as {{ dbt.type_bigint() }}) as events_read,
  cast(0 as {{ dbt.type_bigint() }}) as events_applied,
  cast(0 as {{ dbt.type_bigint() }}) as late_events,
  cast(0 as {{ dbt.type_bigint() }}) as num_upserted_rows,
  cast(0 as {{ dbt.type_bigint() }}) as num_deleted_rows,
  cast(null as {{ dbt.type_bigint() }}) as commit_version,
  cast(0 as {{ dbt.type_bigint() }}) as edited_keys,
  cast(0 as {{ dbt.type_bigint() }}) as fast_keys,
  cast(0 as {{ dbt.type_bigint() }}) as replayed_keys,
  cast(null as {{ dbt.type_bigint() }}) as target_version,
  cast(null as {{ dbt.type_string() }}) as strategy,
  cast(null as {{ dbt.type_string() }}) as config
from {{ args.rel.temp.batch }}
where 1 = 0
  {%- endset -%}
  {{ return(auto_cdc.create_table_as_sql(args.rel.runs, sql)) }}
{% endmacro %}


{#- The run's row in the run log, with its metrics (docs/how-it-works.md, "Metrics"). -#}
{% macro record_run_sql(args, metrics, commit_version=none, target_version=none, counted=false) %}
  {%- set n = auto_cdc._names() -%}
  {%- set counts = auto_cdc._change_count_sqls(args) if counted else {'upserted': metrics.num_upserted_rows, 'deleted': metrics.num_deleted_rows} -%}
insert into {{ args.rel.runs }} (run_id, run_started_at, invocation_id, cursor_value, events_read, events_applied,
                             late_events, num_upserted_rows, num_deleted_rows, commit_version, edited_keys,
                             fast_keys, replayed_keys, target_version, strategy, config)
select
  {{ args.plan.run_id }},
  cast('{{ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") }}' as {{ dbt.type_timestamp() }}),
  '{{ invocation_id }}',
  {{ args.plan.get('cursor') or 'coalesce(' ~ (args.cols.cursor_sql or '(select max(' ~ auto_cdc._q(n.cursor) ~ ') from ' ~ args.rel.temp.batch ~ ')') ~ ', ' ~ auto_cdc._last_cursor(args.rel.runs) ~ ')' }},
  {{ metrics.events_read }}, {{ metrics.events_applied }}, {{ metrics.late_events }}, {{ counts.upserted }}, {{ counts.deleted }},
  {{ commit_version if commit_version is not none else 'null' }}, {{ metrics.edited_keys }}, {{ metrics.fast_keys }}, {{ metrics.replayed_keys }},
  {{ target_version if target_version is not none else 'null' }}, '{{ args.plan.strategy }}',
  {{ "'" ~ (tojson({'key': args.cfg.key, 'cfg': args.cfg}, sort_keys=true) | replace("'", "''")) ~ "'" if auto_cdc._engine().config_cache else 'null' }}
{% endmacro %}


{#- The run's row in the run log and dbt's result message (how-it-works.md, "Metrics"). `written`: what
    the strategy returned, none where it wrote nothing: `counts`, its stale and missing rows' counts
    where it read them before the write (_change_counts), else the run log's insert counts them itself;
    `edited_keys`, the keys whose hand edits it folded in. With change_data_feed, the run's changes go
    into the change feed first; a run that recorded none still leaves the change feed's table (_leave_change_table). -#}
{% macro _record_run(args, written) %}
  {%- set args = dict(args, rel=dict(args.rel, temp=written.temp)) if written else args -%}
  {%- set plan, counts = args.plan, (written or {}).get('counts') -%}
  {%- set metrics = {'events_read': plan.events_read, 'events_applied': plan.new_events, 'late_events': plan.late_events,
                     'num_upserted_rows': counts.upserted if counts else 0, 'num_deleted_rows': counts.deleted if counts else 0,
                     'edited_keys': (written or {}).get('edited_keys', 0),
                     'fast_keys': plan.fast_keys if written else 0, 'replayed_keys': plan.replayed_keys if written else 0} -%}
  {%- set target_version = auto_cdc._target_version(args, written) if auto_cdc._engine().table_history else none -%}
  {%- set feed = config.get('change_data_feed', false) -%}
  {%- set commit_version, changed = none, false -%}
  {%- if written and not counts -%}
    {%- set row = auto_cdc._query(auto_cdc.record_run_sql(args, metrics, target_version=target_version, counted=true)
          ~ '\nreturning num_upserted_rows, num_deleted_rows').rows[0] -%}
    {%- do metrics.update({'num_upserted_rows': row[0] | int, 'num_deleted_rows': row[1] | int}) -%}
  {%- else -%}
    {#- a full refresh records its difference from the rows before it (changes.sql, rebuilt_change_feed) -#}
    {%- set changed = written and feed and (counts.upserted + counts.removed > 0 or (plan.get('rebuild') or {}).get('prior')) -%}
    {%- set commit_version = auto_cdc.record_changes(args) if changed else none -%}
    {% do auto_cdc._run_sql(auto_cdc.record_run_sql(args, metrics, commit_version, target_version)) %}
  {%- endif -%}
  {%- if feed and not changed -%}{% do auto_cdc._leave_change_table(args) %}{%- endif -%}
  {% do store_raw_result(name='main', code='AUTO_CDC', rows_affected=metrics.num_upserted_rows + metrics.num_deleted_rows,
        message='num_upserted_rows=' ~ metrics.num_upserted_rows ~ ' num_deleted_rows=' ~ metrics.num_deleted_rows
                ~ ' late_events=' ~ metrics.late_events ~ ' ignored_events=' ~ (metrics.events_read - metrics.events_applied)) %}
{% endmacro %}


{#- The target's version the run leaves unedited, where the engine keeps a history to tell
    (unedited_target_version): a run that wrote nothing leaves the one it found; the run's own schema
    changes are one commit of the target each (drop, widen). -#}
{% macro _target_version(args, written) %}
  {%- set plan, cols = args.plan, args.cols -%}
  {%- set altered = (cols.drop_columns | length) + (cols.widen_columns | length) if plan.incremental else 0 -%}
  {%- if plan.incremental and not written and altered == 0 -%}{{ return(plan.unedited_version) }}{%- endif -%}
  {{ return(auto_cdc.unedited_target_version(args, plan.since, altered) if plan.since is not none or not plan.incremental else none) }}
{% endmacro %}
