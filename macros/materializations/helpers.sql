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


{#- The bookkeeping beside a target (names.sql) and the temp relations of this run.
    `bookkeeping`: the relations this model keeps beside its target (they get its grants and go into
    dbt's cache); `existing`: those found in the database, dropped by a full refresh. -#}
{% macro _relations(target_relation, extra_temp_names=[]) %}
  {%- set n = auto_cdc._names() -%}
  {#- the apply's temp tables (macros/builders/apply.sql), in the order a run creates them -#}
  {%- set temp_names = extra_temp_names + ['batch', 'new', 'affected', 'history', 'held', 'recorded', 'edited', 'edits',
                                            'desired', 'stale', 'missing'] -%}
  {%- set log = auto_cdc._side_relation(target_relation, n.log_suffix) -%}
  {%- set runs = auto_cdc._side_relation(target_relation, n.runs_suffix) -%}
  {%- set changes = auto_cdc._side_relation(target_relation, n.changes_suffix) -%}
  {%- set temp = {} -%}
  {%- for name in temp_names -%}
    {%- do temp.update({name: auto_cdc._temp_relation(target_relation, n[name ~ '_suffix'])}) -%}
  {%- endfor -%}
  {%- set existing = [] -%}
  {%- for relation in [log, runs, changes] -%}{%- do existing.append(load_cached_relation(relation)) -%}{%- endfor -%}
  {{ return({'log': log, 'runs': runs, 'changes': changes, 'temp': temp,
             'existing_log': existing[0], 'existing_runs': existing[1], 'existing': existing,
             'bookkeeping': [log, runs] + ([changes] if config.get('change_data_feed', false) else [])}) }}
{% endmacro %}


{#- The target's grants on the target and its change feed; the logs keep the owner's (grants.sql). -#}
{% macro _apply_grants(relations, grant_config, should_revoke) %}
  {% do auto_cdc.apply_model_grants(relations, grant_config, should_revoke) %}
{% endmacro %}


{#- Drop this run's temp relations. `leftover`: at the start of a run, those a failed run may have left;
    engines whose temp tables cannot outlive their run (Postgres: ON COMMIT DROP) or are replaced on
    creation (DuckDB: CREATE OR REPLACE) need nothing then. -#}
{% macro _drop_temp_relations(temp, leftover=false) %}
  {{ return(adapter.dispatch('drop_temp_relations', 'auto_cdc')(temp, leftover)) }}
{% endmacro %}

{% macro default__drop_temp_relations(temp, leftover) %}
  {%- for rel in temp.values() -%}
    {% do auto_cdc._run_sql(auto_cdc.drop_temp_table_sql(rel)) %}
  {%- endfor -%}
{% endmacro %}

{#- DuckDB: temp tables belong to the connection, and dbt-duckdb gives each node its own connection
    (a cursor of the database) and closes it when the node is done, which drops them. -#}
{% macro duckdb__drop_temp_relations(temp, leftover) %}
{% endmacro %}

{#- Postgres: the run's temp tables are dropped by its commit (or rollback). -#}
{% macro postgres__drop_temp_relations(temp, leftover) %}
{% endmacro %}


{% macro create_temp_table_sql(relation, sql) %}
  {{ return(adapter.dispatch('create_temp_table_sql', 'auto_cdc')(relation, sql)) }}
{% endmacro %}

{% macro default__create_temp_table_sql(relation, sql) %}
create temporary table {{ adapter.quote(relation.identifier) }} as
{{ sql }}
{% endmacro %}

{#- DuckDB: a temp table left by an earlier run on this connection is replaced. -#}
{% macro duckdb__create_temp_table_sql(relation, sql) %}
create or replace temporary table {{ adapter.quote(relation.identifier) }} as
{{ sql }}
{% endmacro %}

{#- Postgres: autovacuum never analyzes temporary tables; without statistics the planner guesses their
    size and scans the target and the log instead of using their key indexes. -#}
{% macro postgres__create_temp_table_sql(relation, sql) %}
create temporary table {{ adapter.quote(relation.identifier) }} on commit drop as
{{ sql }};
analyze {{ relation }}
{% endmacro %}


{% macro drop_temp_table_sql(relation) %}
  {{ return(adapter.dispatch('drop_temp_table_sql', 'auto_cdc')(relation)) }}
{% endmacro %}

{% macro default__drop_temp_table_sql(relation) %}
drop table if exists {{ relation }}
{% endmacro %}


{#- Column name -> type of a query's result. -#}
{% macro _column_types(sql) %}
  {{ return(adapter.dispatch('column_types', 'auto_cdc')(sql)) }}
{% endmacro %}

{% macro default__column_types(sql) %}
  {%- set types = {} -%}
  {%- for col in get_column_schema_from_query(sql) -%}
    {%- do types.update({col.name: col.data_type}) -%}
  {%- endfor -%}
  {{ return(types) }}
{% endmacro %}

{#- Postgres: a cursor's description has no length or precision (varchar(10) reads as varchar);
    the catalog's format_type of a temporary view over the query has them. -#}
{% macro postgres__column_types(sql) %}
  {%- set view = 'pg_temp.' ~ auto_cdc._q(auto_cdc._names().internal_prefix ~ 'types') -%}
  {% do auto_cdc._run_sql('create or replace temporary view ' ~ view ~ ' as ' ~ sql) %}
  {%- set types = {} -%}
  {%- for row in auto_cdc._query("select attname, format_type(atttypid, atttypmod) from pg_attribute where attrelid = '"
        ~ view ~ "'::regclass and attnum > 0 and not attisdropped order by attnum").rows -%}
    {%- do types.update({row[0]: row[1]}) -%}
  {%- endfor -%}
  {% do auto_cdc._run_sql('drop view ' ~ view) %}
  {{ return(types) }}
{% endmacro %}

{#- DuckDB: DESCRIBE gives the full type (decimal precision, STRUCT fields). -#}
{% macro duckdb__column_types(sql) %}
  {%- set types = {} -%}
  {%- for row in auto_cdc._query('describe ' ~ sql).rows -%}
    {%- do types.update({row[0]: row[1]}) -%}
  {%- endfor -%}
  {{ return(types) }}
{% endmacro %}


{#- The model query's column names, and (as `types`) the column types of it ('source') and of the
    given relations ({name: relation}) where one query can read them all; otherwise `types` is none
    and _plan_schema_changes reads them later. -#}
{% macro _source_columns(sql, relations) %}
  {{ return(adapter.dispatch('source_columns', 'auto_cdc')(sql, relations)) }}
{% endmacro %}

{% macro default__source_columns(sql, relations) %}
  {{ return({'names': get_columns_in_query(sql), 'types': none}) }}
{% endmacro %}

{#- DuckDB: DESCRIBE of the query and duckdb_columns() of the relations, in one query. -#}
{% macro duckdb__source_columns(sql, relations) %}
  {%- set names = ['source'] + (relations.keys() | list) -%}
  {%- set query -%}
select 0 as r, column_name, column_type, row_number() over () as i
from (describe (select * from (
{{ sql }}
) as {{ auto_cdc._alias('source') }}))
    {%- if relations %}
union all
{{ auto_cdc._duckdb_relation_types_sql(relations, 1) }}
    {%- endif %}
order by r, i
  {%- endset -%}
  {%- set types = auto_cdc._types_by_relation(names, auto_cdc._query(query).rows) -%}
  {{ return({'names': types.source.keys() | list, 'types': types}) }}
{% endmacro %}

{#- Column name -> type of each of several relations ({name: relation}), in column order, in one
    query where the engine's catalog allows it. -#}
{% macro _relation_types(relations, before=none) %}
  {{ return(adapter.dispatch('relation_types', 'auto_cdc')(relations, before)) }}
{% endmacro %}

{#- `before`: a statement to run first (in the same round trip where the engine allows). -#}
{% macro default__relation_types(relations, before) %}
  {%- if before -%}{% do auto_cdc._run_sql(before) %}{%- endif -%}
  {%- set out = {} -%}
  {%- for name, rel in relations.items() -%}
    {%- do out.update({name: auto_cdc._column_types('select * from ' ~ rel)}) -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}

{#- The same type names as DESCRIBE, from duckdb_columns(). -#}
{% macro duckdb__relation_types(relations, before) %}
  {%- set sql = auto_cdc._duckdb_relation_types_sql(relations, 0) ~ '\norder by r, i' -%}
  {{ return(auto_cdc._types_by_relation(relations.keys() | list, (auto_cdc._run_then_query(before, sql) if before else auto_cdc._query(sql)).rows)) }}
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

{#- The same type names as format_type (with lengths and precision), from pg_attribute. -#}
{% macro postgres__relation_types(relations, before) %}
  {%- set names = relations.keys() | list -%}
  {%- set cases = [] -%}{%- set oids = [] -%}
  {%- for name in names -%}
    {%- set oid = "to_regclass('" ~ (relations[name] | string | replace("'", "''")) ~ "')" -%}
    {%- do oids.append(oid) -%}
    {%- do cases.append("when " ~ oid ~ " then " ~ loop.index0) -%}
  {%- endfor -%}
  {%- set sql -%}
select r, attname, format_type(atttypid, atttypmod) from (
  select case attrelid {{ cases | join(' ') }} end as r, attname, atttypid, atttypmod, attnum
  from pg_attribute where attrelid in ({{ oids | join(', ') }}) and attnum > 0 and not attisdropped
) a where r is not null order by r, attnum
  {%- endset -%}
  {{ return(auto_cdc._types_by_relation(names, (auto_cdc._run_then_query(before, sql) if before else auto_cdc._query(sql)).rows)) }}
{% endmacro %}

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


{% macro create_log_sql(args) %}
  {{ return(adapter.dispatch('create_log_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__create_log_sql(args) %}
  {%- set n = auto_cdc._names() -%}
create table {{ args.log }} as
select {{ auto_cdc._cols(args.cfg.stored) }}, {{ auto_cdc._q(n.op) }}, cast(0 as {{ dbt.type_bigint() }}) as {{ auto_cdc._q(n.run) }},
  cast(null as {{ dbt.type_boolean() }}) as {{ auto_cdc._q(n.edit) }}
from {{ args.batch }}
where 1 = 0
{% endmacro %}


{#- A permanent table from a query (the run log, the change feed); Spark says which file format. -#}
{% macro create_table_as_sql(relation, sql) %}
  {{ return(adapter.dispatch('create_table_as_sql', 'auto_cdc')(relation, sql)) }}
{% endmacro %}

{% macro default__create_table_as_sql(relation, sql) %}
create table {{ relation }} as
{{ sql }}
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
  cast(0 as {{ dbt.type_bigint() }}) as replayed_keys
from {{ args.batch }}
where 1 = 0
  {%- endset -%}
  {{ return(auto_cdc.create_table_as_sql(args.runs, sql)) }}
{% endmacro %}


{% macro create_target_sql(args) %}
  {{ return(adapter.dispatch('create_target_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__create_target_sql(args) %}
create table {{ args.target }} as
select * from {{ args.desired }} where 1 = 0
{% endmacro %}


{#- Statistics for tables the run has just filled (the first run's target and log). -#}
{% macro analyze_relations(relations) %}
  {{ return(adapter.dispatch('analyze_relations', 'auto_cdc')(relations)) }}
{% endmacro %}

{% macro default__analyze_relations(relations) %}
{% endmacro %}

{#- Postgres: autovacuum analyzes a new table only later; until then the planner guesses its size and
    scans it whole instead of using the key indexes. -#}
{% macro postgres__analyze_relations(relations) %}
  {%- for relation in relations -%}
    {% do auto_cdc._run_sql('analyze ' ~ relation) %}
  {%- endfor -%}
{% endmacro %}


{#- Indexes where the engine uses them for the apply's lookups by key. -#}
{% macro create_key_indexes(args) %}
  {{ return(adapter.dispatch('create_key_indexes', 'auto_cdc')(args)) }}
{% endmacro %}

{#- DuckDB scans columns with zone maps; an ART index would only slow the appends. -#}
{% macro default__create_key_indexes(args) %}
{% endmacro %}

{#- Postgres: the apply joins the log and the target on the key (and the log on the sequence). -#}
{% macro postgres__create_key_indexes(args) %}
  {%- set n = auto_cdc._names() -%}
  {% do auto_cdc._run_sql('create index on ' ~ args.log ~ ' (' ~ auto_cdc._cols(args.cfg.key_columns + args.cfg.seq_columns) ~ ')') %}
  {#- SCD1 looks up the last truncate every run: a partial index keeps that from scanning the log -#}
  {% do auto_cdc._run_sql('create index on ' ~ args.log ~ ' (' ~ auto_cdc._cols(args.cfg.seq_columns) ~ ') where '
        ~ auto_cdc._q(n.op) ~ " = '" ~ n.truncate ~ "'") %}
  {% do auto_cdc._run_sql('create index on ' ~ args.target ~ ' (' ~ auto_cdc._cols(args.cfg.key_columns) ~ ')') %}
{% endmacro %}


{#- The run's new events into the log. -#}
{% macro append_to_log_sql(args, run_id) %}
  {{ return(adapter.dispatch('append_to_log_sql', 'auto_cdc')(args, run_id)) }}
{% endmacro %}

{% macro default__append_to_log_sql(args, run_id) %}
  {%- set n = auto_cdc._names() -%}
insert into {{ args.log }} ({{ auto_cdc._cols(args.stored) }}, {{ auto_cdc._q(n.op) }}, {{ auto_cdc._q(n.run) }})
select {{ auto_cdc._cols(args.stored) }}, {{ auto_cdc._q(n.op) }}, {{ run_id }}
from {{ args.new }}
{% endmacro %}


{#- The run's new events into its history of the affected keys (which holds no truncates). -#}
{% macro append_to_history_sql(args, run_id) %}
  {%- set n = auto_cdc._names() -%}
insert into {{ args.history }} ({{ auto_cdc._cols(args.stored) }}, {{ auto_cdc._q(n.op) }}, {{ auto_cdc._q(n.run) }})
select {{ auto_cdc._cols(args.stored) }}, {{ auto_cdc._q(n.op) }}, {{ run_id }}
from {{ args.new }} b
where {{ auto_cdc._q(n.op) }} <> '{{ n.truncate }}'
{%- if args.get('fast_path') %}
  and exists (select 1 from {{ args.replay_keys }} r where {{ auto_cdc._eq(args.cfg.key_columns, 'r', 'b') }})
{%- endif %}
{% endmacro %}


{#- The run's row in the run log, with its metrics (see README "Metrics"). -#}
{% macro record_run_sql(args, run_id, metrics, commit_version, upserted=none, deleted=none) %}
  {%- set n = auto_cdc._names() -%}
insert into {{ args.runs }} (run_id, run_started_at, invocation_id, cursor_value, events_read, events_applied,
                             late_events, num_upserted_rows, num_deleted_rows, commit_version, edited_keys,
                             fast_keys, replayed_keys)
select
  {{ run_id }},
  cast('{{ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") }}' as {{ dbt.type_timestamp() }}),
  '{{ invocation_id }}',
  coalesce({{ args.get('cursor_sql') or '(select max(' ~ auto_cdc._q(n.cursor) ~ ') from ' ~ args.batch ~ ')' }}, (select max(cursor_value) from {{ args.runs }})),
  {{ metrics.events_read }}, {{ metrics.events_applied }}, {{ metrics.late_events }},
  {{ upserted or metrics.num_upserted_rows }}, {{ deleted or metrics.num_deleted_rows }},
  {{ commit_version if commit_version is not none else 'null' }},
  {{ metrics.edited_keys }}, {{ metrics.get('fast_keys', 0) }}, {{ metrics.get('replayed_keys', 0) }}
{% endmacro %}


{#-
  Incremental run: compare the model's output columns with the target's and follow
  on_schema_change (default append_new_columns). A new column is added to the target and the log
  with NULL for the rows and events before it: it opens no version by itself. A column the model no
  longer returns is kept (NULL in later events, and no longer tracked) unless sync_all_columns
  drops it. Returns the output and tracked columns to use.
-#}
{% macro _plan_schema_changes(args) %}
  {%- set n = auto_cdc._names() -%}
  {%- set cfg = args.cfg -%}
  {%- set reserved = [n.start_at, n.end_at, n.system_start_at, n.system_end_at] | map('lower') | list -%}
  {%- set source = args.get('snapshot') or args.batch -%}
  {#- the column types of the target, the logs and the staged source, read in one query -#}
  {%- set types = args.get('types') or auto_cdc._relation_types({'target': args.target, 'log': args.log, 'runs': args.runs, 'source': source}) -%}
  {%- do args.update({'types': types}) -%}
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
  {%- set widen = auto_cdc._widened_types(args, existing) if mode != 'ignore' else {} -%}
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
  {{ return({'output': output, 'tracked': tracked, 'stored': stored, 'add_columns': add, 'drop_columns': drop,
             'widen_columns': widen}) }}
{% endmacro %}


{#- Run-log columns added since a target was created (which path its keys took). -#}
{% macro _run_log_columns_added() %}
  {{ return(['fast_keys', 'replayed_keys']) }}
{% endmacro %}

{% macro _apply_schema_changes(args) %}
  {%- set runs_columns = (args.get('types') or {}).get('runs', {}).keys() | map('lower') | list -%}
  {%- for c in auto_cdc._run_log_columns_added() if runs_columns and c not in runs_columns -%}
    {% do auto_cdc._run_sql(auto_cdc.add_column_sql(args.runs, c, dbt.type_bigint())) %}
  {%- endfor -%}
  {#- new and widened columns go into the change feed too (it has the target's columns), when it exists -#}
  {%- set typed = [args.target, args.log] -%}
  {%- if (args.add_columns or args.get('widen_columns')) and args.get('changes') -%}
    {%- set changes = adapter.get_relation(args.changes.database, args.changes.schema, args.changes.identifier) -%}
    {%- if changes is not none -%}{%- do typed.append(changes) -%}{%- endif -%}
  {%- endif -%}
  {%- if args.add_columns -%}
    {%- set types = auto_cdc._column_types('select ' ~ auto_cdc._cols(args.add_columns) ~ ' from ' ~ args.batch) -%}
    {%- for c in args.add_columns -%}
      {%- for rel in typed -%}
        {% do auto_cdc._run_sql(auto_cdc.add_column_sql(rel, c, types[c])) %}
      {%- endfor -%}
    {%- endfor -%}
  {%- endif -%}
  {%- for c in args.drop_columns -%}
    {%- for rel in [args.target, args.log] -%}
      {% do auto_cdc._run_sql('alter table ' ~ rel ~ ' drop column ' ~ auto_cdc._q(c)) %}
    {%- endfor -%}
  {%- endfor -%}
  {%- for c, type in (args.get('widen_columns') or {}).items() -%}
    {%- for rel in typed -%}
      {% do auto_cdc._run_sql('alter table ' ~ rel ~ ' alter column ' ~ auto_cdc._q(c) ~ ' type ' ~ type) %}
    {%- endfor -%}
  {%- endfor -%}
{% endmacro %}


{#- Whether the target's table format can take the planned changes (columns dropped, types widened);
    raises a clear error before anything is written when it cannot. -#}
{% macro check_schema_changes(dropped, widened) %}
  {{ return(adapter.dispatch('check_schema_changes', 'auto_cdc')(dropped, widened)) }}
{% endmacro %}

{% macro default__check_schema_changes(dropped, widened) %}{% endmacro %}


{% macro add_column_sql(relation, column, type) %}
  {{ return(adapter.dispatch('add_column_sql', 'auto_cdc')(relation, column, type)) }}
{% endmacro %}

{% macro default__add_column_sql(relation, column, type) -%}
alter table {{ relation }} add column {{ auto_cdc._q(column) }} {{ type }}
{%- endmacro %}


{#-
  Target columns whose source type has widened (int to bigint, varchar(10) to varchar(20), a
  decimal's precision): target column -> the type both old and new values fit in, the type the
  engine gives a UNION of the two. A narrower source type needs nothing: its values fit. Sequence
  columns are checked separately (their type may not change).
-#}
{% macro _widened_types(args, existing) %}
  {%- set source = args.get('snapshot') or args.batch -%}
  {%- set pairs = [] -%}
  {%- for c in existing -%}
    {%- set s = auto_cdc._resolve_column(c, args.cfg.output) -%}
    {%- if s is not none and s not in args.cfg.seq_columns -%}{%- do pairs.append((c, s)) -%}{%- endif -%}
  {%- endfor -%}
  {%- if not pairs -%}{{ return({}) }}{%- endif -%}
  {%- set target_cols = [] -%}{%- set source_cols = [] -%}
  {%- for c, s in pairs -%}
    {%- do target_cols.append(auto_cdc._q(c)) -%}
    {%- do source_cols.append(auto_cdc._q(s) ~ ' as ' ~ auto_cdc._q(c)) -%}
  {%- endfor -%}
  {%- set before = args.types.target -%}
  {%- set changed = [] -%}
  {%- for c, s in pairs if (before[c] | lower) != (args.types.source[s] | lower) -%}{%- do changed.append(c) -%}{%- endfor -%}
  {%- if not changed -%}{{ return({}) }}{%- endif -%}
  {%- set both = auto_cdc._column_types('select ' ~ (target_cols | join(', ')) ~ ' from ' ~ args.target ~ ' where 1 = 0 union all select '
        ~ (source_cols | join(', ')) ~ ' from ' ~ source ~ ' where 1 = 0') -%}
  {%- set widen = {} -%}
  {%- for c in changed if (both[c] | lower) != (before[c] | lower) -%}{%- do widen.update({c: both[c]}) -%}{%- endfor -%}
  {{ return(widen) }}
{% endmacro %}


{#-
  Concurrent runs of one model (README "Guarantees"): the run holds its model's lock from its first
  statement to its commit, so a second run of the same model waits, then applies only what the first
  did not (R2). Called first thing after the outside-transaction pre-hooks, before the relations are
  looked up: dbt's relation cache was filled when the invocation started, so once the lock is held
  the cache is brought up to date for the target and its bookkeeping, which the other run may have
  created or dropped meanwhile.
-#}
{% macro lock_model(relation) %}
  {{ return(adapter.dispatch('lock_model', 'auto_cdc')(relation)) }}
{% endmacro %}

{#- DuckDB: a database file is open in one process at a time (DuckDB's file lock), and one dbt
    invocation never runs a model twice, so two runs of one model cannot overlap. -#}
{% macro default__lock_model(relation) %}
{% endmacro %}

{#- Postgres: the model's lock (locking.sql), then dbt's cache brought up to date. -#}
{% macro postgres__lock_model(relation) %}
  {%- set n = auto_cdc._names() -%}
  {% do auto_cdc.take_model_lock(relation, model.name, config.get('lock_timeout', '1h'), config.get('statement_timeout')) %}
  {%- set names = [relation.identifier] -%}
  {%- for suffix in [n.log_suffix, n.runs_suffix, n.changes_suffix] -%}
    {%- do names.append(auto_cdc._side_relation(relation, suffix).identifier) -%}
  {%- endfor -%}
  {%- set quoted = [] -%}
  {%- for name in names -%}{%- do quoted.append("'" ~ (name | replace("'", "''")) ~ "'") -%}{%- endfor -%}
  {%- set found = {} -%}
  {#- a hand edit of the target waits for this run's commit (locking.sql); the lock and the lookup in
      one round trip -#}
  {%- for row in auto_cdc._run_then_query(auto_cdc._lock_target_sql(relation, model.name),
        "select c.relname, c.relkind from pg_class c join pg_namespace s on s.oid = c.relnamespace "
        ~ "where s.nspname = '" ~ (relation.schema | replace("'", "''")) ~ "' and c.relname in (" ~ (quoted | join(', ')) ~ ")").rows -%}
    {%- do found.update({row[0]: 'view' if row[1] in ['v', 'm'] else 'table'}) -%}
  {%- endfor -%}
  {%- for name in names -%}
    {%- set rel = relation.incorporate(path={'identifier': name}) -%}
    {%- set cached = load_cached_relation(rel) -%}
    {%- if name in found and cached is none -%}
      {%- do adapter.cache_added(rel.incorporate(type=found[name])) -%}
    {%- elif name not in found and cached is not none -%}
      {%- do adapter.cache_dropped(cached) -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}
