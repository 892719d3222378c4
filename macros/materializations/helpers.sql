{#- Steps of the auto_cdc materialization that are not SQL builders. -#}

{#-
  The model's SQL. dbt's is_incremental() answers only for materialized='incremental', so when
  the model uses it and this run is incremental, the model is rendered again with
  is_incremental() true; anything else in the model renders as before.
-#}
{% macro _model_sql(incremental) %}
  {#- once: a backfill flow, read on the first run and on --full-refresh only -#}
  {% if incremental and config.get('once', false) %}
    {% do return('select * from (' ~ sql ~ ') once_source where 1 = 0') %}
  {% endif %}
  {% if incremental and 'is_incremental' in model.raw_code %}
    {% set materialized = model.config.materialized %}
    {% do model.config.update({'materialized': 'incremental'}) %}
    {% set rendered = render(model.raw_code) %}
    {% do model.config.update({'materialized': materialized}) %}
    {% do return(rendered) %}
  {% endif %}
  {% do return(sql) %}
{% endmacro %}


{#- The relations of a run: its target, the bookkeeping beside it (names.sql), the side type of a
    multi-column sequence (seq_type: change feeds), and `temp`, this run's temp relations.
    `bookkeeping`: the relations this model keeps beside its target (they get its grants and go into
    dbt's cache); `existing`: those found in the database, dropped by a full refresh. -#}
{% macro _relations(target_relation, shape) %}
  {%- set n = auto_cdc._names() -%}
  {#- the apply's temp tables (macros/builders/apply.sql), in the order a run creates them -#}
  {%- set temp_names = (['snapshot'] if shape == 'snapshot' else [])
        + ['batch', 'logged', 'new', 'affected', 'history', 'held', 'recorded', 'edited', 'edits', 'desired', 'stale', 'missing'] -%}
  {%- set log = auto_cdc._side_relation(target_relation, n.log_suffix) -%}
  {%- set runs = auto_cdc._side_relation(target_relation, n.runs_suffix) -%}
  {%- set changes = auto_cdc._side_relation(target_relation, n.changes_suffix) -%}
  {%- set seq_type = auto_cdc._side_relation(target_relation, n.seq_type_suffix).include(database=false) if shape == 'feed' else none -%}
  {%- set temp = {} -%}
  {%- for name in temp_names -%}
    {%- do temp.update({name: auto_cdc._temp_relation(target_relation, n[name ~ '_suffix'])}) -%}
  {%- endfor -%}
  {%- set existing = [] -%}
  {%- for relation in [log, runs, changes] -%}{%- do existing.append(load_cached_relation(relation)) -%}{%- endfor -%}
  {{ return({'target': target_relation, 'log': log, 'runs': runs, 'changes': changes, 'seq_type': seq_type, 'temp': temp,
             'existing_log': existing[0], 'existing_runs': existing[1], 'existing': existing,
             'bookkeeping': [log, runs] + ([changes] if config.get('change_data_feed', false) and auto_cdc.keeps_change_table() else [])}) }}
{% endmacro %}


{#- The target's grants on the target and its change feed; the logs keep the owner's (grants.sql). -#}
{% macro _apply_grants(relations, grant_config, should_revoke) %}
  {% do auto_cdc.apply_model_grants(relations, grant_config, should_revoke) %}
{% endmacro %}


{% macro drop_temp_table_sql(relation) %}
  {{ return(adapter.dispatch('drop_temp_table_sql', 'auto_cdc')(relation)) }}
{% endmacro %}

{% macro default__drop_temp_table_sql(relation) %}
drop table if exists {{ relation }}
{% endmacro %}


{#- (r, column name, type, i): r numbers the relations from `first`, i orders their columns. -#}
{% macro _duckdb_relation_types_sql(relations, first) %}
  {%- set cases = [] -%}
  {%- for name, rel in relations.items() -%}
    {%- do cases.append("when lower(database_name) = lower('" ~ (rel.database or target.database) | replace("'", "''") ~ "') and lower(schema_name) = lower('"
          ~ (rel.schema or 'main') | replace("'", "''") ~ "') and lower(table_name) = lower('" ~ rel.identifier | replace("'", "''") ~ "') then " ~ (first + loop.index0)) -%}
  {%- endfor -%}
select r, column_name, data_type, column_index as i from (
  select case {{ cases | join(' ') }} end as r, column_name, data_type, column_index from duckdb_columns()
) c where r is not null
{%- endmacro %}

{% macro _types_by_relation(names, rows) %}
  {%- set out = {} -%}
  {%- for name in names -%}{%- do out.update({name: {}}) -%}{%- endfor -%}
  {%- for row in rows -%}{%- do out[names[row[0] | int]].update({row[1]: row[2]}) -%}{%- endfor -%}
  {{ return(out) }}
{% endmacro %}


{#- The target's columns: the output columns, then the history columns of the shape. -#}
{% macro _target_columns(cfg, output) %}
  {%- set n = auto_cdc._names() -%}
  {%- if cfg.scd == 1 -%}{{ return(output) }}{%- endif -%}
  {%- set history = [n.start_at, n.end_at] + ([n.system_start_at, n.system_end_at] if cfg.scd == 'bitemporal' else []) -%}
  {{ return(output + history) }}
{% endmacro %}


{#- Is a column type an array (DuckDB `VARCHAR[]`, Postgres `text[]` / `_text` / `ARRAY`)? -#}
{% macro _is_list_type(type_name) %}
  {%- set t = (type_name or '') | lower -%}
  {{ return(t.endswith(']') or t.startswith('_') or 'array' in t or t.startswith('list')) }}
{% endmacro %}


{#- First run or full refresh: drop what was there, create the event log and the run log. The
    target itself is created from the first recomputation (create_target_sql). -#}
{% macro _create_bookkeeping(args, existing) %}
  {%- set n = auto_cdc._names() -%}
  {%- for rel in existing if rel is not none -%}
    {% do adapter.drop_relation(rel) %}
  {%- endfor -%}
  {% do auto_cdc.create_seq_type(args) %}
  {% do auto_cdc._run_sql(auto_cdc.create_log_sql(args)) %}
  {% do auto_cdc._run_sql(auto_cdc.create_runs_sql(args)) %}
{% endmacro %}


{#- One row per run: what it read, what it applied, how far its cursor reached. -#}
{% macro create_runs_sql(args) %}
  {{ return(adapter.dispatch('create_runs_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__create_runs_sql(args) %}
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
  cast(null as {{ dbt.type_bigint() }}) as target_version
from {{ args.rel.temp.batch }}
where 1 = 0
  {%- endset -%}
  {{ return(auto_cdc.create_table_as_sql(args.rel.runs, sql)) }}
{% endmacro %}


{#- The run's new events into its history of the affected keys (which holds no truncates). -#}
{% macro append_to_history_sql(args, run_id) %}
  {%- set n = auto_cdc._names() -%}
insert into {{ args.rel.temp.history }} ({{ auto_cdc._cols(args.plan.stored) }}, {{ auto_cdc._q(n.op) }}, {{ auto_cdc._q(n.run) }})
select {{ auto_cdc._cols(args.plan.stored) }}, {{ auto_cdc._q(n.op) }}, {{ run_id }}
from {{ args.rel.temp.new }} b
where {{ auto_cdc._q(n.op) }} <> '{{ n.truncate }}'
{%- if args.path.fast_path %}
  and exists (select 1 from {{ args.path.replay_keys }} r where {{ auto_cdc._eq(args.cfg.key_columns, 'r', 'b') }})
{%- endif %}
{% endmacro %}


{#- The run's row in the run log, with its metrics (see docs/how-it-works.md "Metrics"). -#}
{% macro record_run_sql(args, run_id, metrics, commit_version, upserted=none, deleted=none, target_version=none) %}
  {%- set n = auto_cdc._names() -%}
insert into {{ args.rel.runs }} (run_id, run_started_at, invocation_id, cursor_value, events_read, events_applied,
                             late_events, num_upserted_rows, num_deleted_rows, commit_version, edited_keys,
                             fast_keys, replayed_keys, target_version)
select
  {{ run_id }},
  cast('{{ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") }}' as {{ dbt.type_timestamp() }}),
  '{{ invocation_id }}',
  {{ args.run.get('cursor') or 'coalesce(' ~ (args.plan.cursor_sql or '(select max(' ~ auto_cdc._q(n.cursor) ~ ') from ' ~ args.rel.temp.batch ~ ')') ~ ', ' ~ auto_cdc._last_cursor(args.rel.runs) ~ ')' }},
  {{ metrics.events_read }}, {{ metrics.events_applied }}, {{ metrics.late_events }},
  {{ upserted or metrics.num_upserted_rows }}, {{ deleted or metrics.num_deleted_rows }},
  {{ commit_version if commit_version is not none else 'null' }},
  {{ metrics.edited_keys }}, {{ metrics.get('fast_keys', 0) }}, {{ metrics.get('replayed_keys', 0) }},
  {{ target_version if target_version is not none else 'null' }}
{% endmacro %}


{#-
  Incremental run: compare the model's output columns with the target's and follow
  on_schema_change (default append_new_columns). A new column is added to the target and the log
  with NULL for the rows and events before it: it opens no version by itself. A column the model no
  longer returns is kept (NULL in later events, and no longer tracked) unless sync_all_columns
  drops it. Returns the columns to use, the changes to make and the column types read (`types`, when
  not given: of the target, the logs and the staged `source`).
-#}
{% macro _plan_schema_changes(cfg, rel, source, types) %}
  {%- set n = auto_cdc._names() -%}
  {%- set reserved = [n.start_at, n.end_at, n.system_start_at, n.system_end_at] | map('lower') | list -%}
  {#- the column types of the target, the logs and the staged source, read in one query -#}
  {%- set types = types or auto_cdc._relation_types({'target': rel.target, 'log': rel.log, 'runs': rel.runs, 'source': source}) -%}
  {%- set existing = [] -%}
  {%- for name in types.target if (name | lower) not in reserved and not (name | lower).startswith(n.internal_prefix) -%}
    {%- do existing.append(name) -%}
  {%- endfor -%}
  {%- set added = [] -%}
  {%- for c in cfg.output if auto_cdc._resolve_column(c, existing) is none -%}{%- do added.append(c) -%}{%- endfor -%}
  {%- set removed = [] -%}
  {%- for c in existing if auto_cdc._resolve_column(c, cfg.output) is none -%}{%- do removed.append(c) -%}{%- endfor -%}
  {#- events are ordered by their sequence across runs, so its type may not change between runs -#}
  {%- set seq_cols = auto_cdc._cols(cfg.seq_columns) -%}
  {%- set before = types.log -%}
  {%- set now = types.source -%}
  {%- for c in cfg.seq_columns if c in before and c in now and (before[c] | lower) != (now[c] | lower) -%}
    {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': the sequence column '" ~ c ~ "' changed type from "
          ~ before[c] ~ " to " ~ now[c] ~ " since the last run; events of both types cannot be ordered together "
          ~ "(cast it back to " ~ before[c] ~ "; or rebuild with --full-refresh, which rebuilds the history from what the source "
          ~ "still holds: events it no longer holds are lost)") -%}
  {%- endfor -%}
  {%- set mode = cfg.on_schema_change -%}
  {%- set widen = auto_cdc._widened_types(cfg, rel.target, source, types, existing) if mode != 'ignore' else {} -%}
  {%- if mode == 'fail' and (added or removed or widen) -%}
    {%- set widened = [] -%}
    {%- for c, t in widen.items() -%}{%- do widened.append(c ~ ' to ' ~ t) -%}{%- endfor -%}
    {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': the source's columns changed and on_schema_change is 'fail' (new: "
          ~ (added | join(', ') or 'none') ~ "; missing: " ~ (removed | join(', ') or 'none') ~ "; widened: " ~ (widened | join(', ') or 'none') ~ ")") -%}
  {%- endif -%}
  {%- set add = added if mode in ['append_new_columns', 'sync_all_columns'] else [] -%}
  {%- set drop = removed if mode == 'sync_all_columns' else [] -%}
  {% do auto_cdc.check_schema_changes(drop, widen) %}
  {%- set output = [] -%}
  {%- for c in existing if c not in drop -%}{%- do output.append(auto_cdc._resolve_column(c, cfg.output) or c) -%}{%- endfor -%}
  {%- set output = output + add -%}
  {%- set tracked = [] -%}
  {%- for c in output if c in cfg.tracked -%}{%- do tracked.append(c) -%}{%- endfor -%}
  {%- set stored = [] -%}
  {%- for c in cfg.stored if c not in added or c in add -%}{%- do stored.append(c) -%}{%- endfor -%}
  {{ return({'types': types, 'output': output, 'tracked': tracked, 'stored': stored, 'add_columns': add,
             'drop_columns': drop, 'widen_columns': widen}) }}
{% endmacro %}


{#- Bookkeeping columns added since a target was created, all bigint, by table: the run log's counts of
    the keys each path took and the target's version each run left unedited (unedited_target_version),
    and the event log's fingerprint of each upsert (an event logged before it has none: its key is
    replayed until its next event). -#}
{% macro _bookkeeping_columns_added() %}
  {{ return({'runs': ['fast_keys', 'replayed_keys', 'target_version'], 'log': [auto_cdc._names().fingerprint]}) }}
{% endmacro %}

{% macro _apply_schema_changes(args) %}
  {%- set rel, plan = args.rel, args.plan -%}
  {%- for table, added in auto_cdc._bookkeeping_columns_added().items() -%}
    {%- set existing = plan.types.get(table, {}).keys() | map('lower') | list -%}
    {%- for c in added if existing and (c | lower) not in existing -%}
      {% do auto_cdc._run_sql(auto_cdc.add_column_sql(rel[table], c, dbt.type_bigint())) %}
    {%- endfor -%}
  {%- endfor -%}
  {#- new and widened columns go into the change feed too (it has the target's columns), when it exists -#}
  {%- set typed = [rel.target, rel.log] -%}
  {%- if plan.add_columns or plan.widen_columns -%}
    {%- set changes = adapter.get_relation(rel.changes.database, rel.changes.schema, rel.changes.identifier) -%}
    {%- if changes is not none -%}{%- do typed.append(changes) -%}{%- endif -%}
  {%- endif -%}
  {%- if plan.add_columns -%}
    {%- set types = auto_cdc._column_types('select ' ~ auto_cdc._cols(plan.add_columns) ~ ' from ' ~ rel.temp.batch) -%}
    {%- for c in plan.add_columns -%}
      {%- for relation in typed -%}
        {% do auto_cdc._run_sql(auto_cdc.add_column_sql(relation, c, types[c])) %}
      {%- endfor -%}
    {%- endfor -%}
  {%- endif -%}
  {%- for c in plan.drop_columns -%}
    {%- for relation in [rel.target, rel.log] -%}
      {% do auto_cdc._run_sql('alter table ' ~ relation ~ ' drop column ' ~ auto_cdc._q(c)) %}
    {%- endfor -%}
  {%- endfor -%}
  {%- for c, type in plan.widen_columns.items() -%}
    {%- for relation in typed -%}
      {% do auto_cdc._run_sql('alter table ' ~ relation ~ ' alter column ' ~ auto_cdc._q(c) ~ ' type ' ~ type) %}
    {%- endfor -%}
  {%- endfor -%}
{% endmacro %}


{#-
  Target columns whose source type has widened (int to bigint, varchar(10) to varchar(20), a
  decimal's precision): target column -> the type both old and new values fit in, the type the
  engine gives a UNION of the two. A narrower source type needs nothing: its values fit. Sequence
  columns are checked separately (their type may not change).
-#}
{% macro _widened_types(cfg, target, source, types, existing) %}
  {%- set pairs = [] -%}
  {%- for c in existing -%}
    {%- set s = auto_cdc._resolve_column(c, cfg.output) -%}
    {%- if s is not none and s not in cfg.seq_columns -%}{%- do pairs.append((c, s)) -%}{%- endif -%}
  {%- endfor -%}
  {%- if not pairs -%}{{ return({}) }}{%- endif -%}
  {%- set target_cols = [] -%}{%- set source_cols = [] -%}
  {%- for c, s in pairs -%}
    {%- do target_cols.append(auto_cdc._q(c)) -%}
    {%- do source_cols.append(auto_cdc._q(s) ~ ' as ' ~ auto_cdc._q(c)) -%}
  {%- endfor -%}
  {%- set before = types.target -%}
  {%- set changed = [] -%}
  {%- for c, s in pairs if (before[c] | lower) != (types.source[s] | lower) -%}{%- do changed.append(c) -%}{%- endfor -%}
  {%- if not changed -%}{{ return({}) }}{%- endif -%}
  {%- set both = auto_cdc._column_types('select ' ~ (target_cols | join(', ')) ~ ' from ' ~ target ~ ' where 1 = 0 union all select '
        ~ (source_cols | join(', ')) ~ ' from ' ~ source ~ ' where 1 = 0') -%}
  {%- set widen = {} -%}
  {%- for c in changed if (both[c] | lower) != (before[c] | lower) -%}{%- do widen.update({c: both[c]}) -%}{%- endfor -%}
  {{ return(widen) }}
{% endmacro %}
