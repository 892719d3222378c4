{#-
  Creating and dropping relations: the temp tables of a run, the target and its bookkeeping tables, their
  indexes, columns, statistics and grants.
  Each hook: its dispatcher, `default__` (what DuckDB and Postgres share unless they override it), then
  the engines' overrides, each saying how its dialect differs. docs/contributing.md lists them all.
-#}


{#- Temporary relations live in the connection's temp schema. They are always named with that
    schema, so a DROP can never reach a user's table of the same name. -#}
{% macro _temp_relation(target_relation, suffix) %}
  {% do return(adapter.dispatch('temp_relation', 'auto_cdc')(auto_cdc._side_identifier(target_relation.identifier, suffix))) %}
{% endmacro %}

{% macro default__temp_relation(identifier) %}
  {% do return(api.Relation.create(identifier=identifier, type='table')) %}
{% endmacro %}

{#- DuckDB: temp tables live in the temp catalog's main schema. -#}
{% macro duckdb__temp_relation(identifier) %}
  {% do return(api.Relation.create(database='temp', schema='main', identifier=identifier, type='table')) %}
{% endmacro %}

{#- Postgres: temp tables live in the session's pg_temp schema. -#}
{% macro postgres__temp_relation(identifier) %}
  {% do return(api.Relation.create(schema='pg_temp', identifier=identifier, type='table')) %}
{% endmacro %}

{#- Temp relations: tables in the target's schema, named after the target. -#}
{% macro spark__temp_relation(identifier) %}
  {% do return(api.Relation.create(schema=this.schema, identifier=identifier, type='table')) %}
{% endmacro %}


{#- The longest identifier the engine keeps, in bytes of UTF-8, or none (no limit the package knows):
    a longer target name fails the run (check_identifier_length). -#}
{% macro max_identifier_bytes() %}
  {{ return(adapter.dispatch('max_identifier_bytes', 'auto_cdc')()) }}
{% endmacro %}

{% macro default__max_identifier_bytes() %}
  {{ return(none) }}
{% endmacro %}

{#- Postgres: NAMEDATALEN - 1 (63 in every build but a custom one); a longer name is cut, not refused. -#}
{% macro postgres__max_identifier_bytes() %}
  {{ return(63) }}
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

{#- Spark: a parquet table beside the target (a temp view is a query, re-evaluated at every read). On
    Delta runs the replayed keys' history is a Delta table: a run deletes the history of hand-edited
    keys from it. An erasure's keys (erase_keys, on Delta only) are a Delta table too: a killed erase
    leaves them whole or not at all, for the next writer to finish it from. -#}
{% macro spark__create_temp_table_sql(relation, sql) %}
  {%- set n = auto_cdc._names() -%}
  {%- set takes_deletes = relation.identifier.endswith(n.erased_suffix)
        or (relation.identifier.endswith(n.history_suffix) and auto_cdc._spark_format() == 'delta') -%}
create table {{ relation }} using {{ 'delta' if takes_deletes else 'parquet' }} as
{{ sql }}
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

{#- Spark: the run's tables are real tables; one listing finds those that exist (a run creates some of
    them only), instead of a DROP per name. -#}
{% macro spark__drop_temp_relations(temp, leftover) %}
  {%- set relations = temp.values() | list -%}
  {%- if not relations -%}{{ return(none) }}{%- endif -%}
  {%- set prefix = this.identifier | lower ~ '__auto_cdc_' -%}
  {%- set found = [] -%}
  {%- for row in auto_cdc._query('show tables in ' ~ relations[0].schema ~ " like '" ~ prefix ~ "*'").rows -%}
    {%- do found.append(row[1] | lower) -%}
  {%- endfor -%}
  {%- for rel in relations if rel.identifier | lower in found -%}
    {% do auto_cdc._run_sql(auto_cdc.drop_temp_table_sql(rel)) %}
  {%- endfor -%}
{% endmacro %}


{#- A permanent table from a query (the run log, the change feed); Spark says which file format. -#}
{% macro create_table_as_sql(relation, sql) %}
  {{ return(adapter.dispatch('create_table_as_sql', 'auto_cdc')(relation, sql)) }}
{% endmacro %}

{% macro default__create_table_as_sql(relation, sql) %}
create table {{ relation }} as
{{ sql }}
{% endmacro %}

{% macro spark__create_table_as_sql(relation, sql) %}
create table {{ relation }} using {{ auto_cdc._spark_format() }} as
{{ sql }}
{% endmacro %}


{% macro create_target_sql(args) %}
  {{ return(adapter.dispatch('create_target_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__create_target_sql(args) %}
create table {{ args.rel.target }} as
select * from {{ args.rel.temp.desired }} where 1 = 0
{% endmacro %}

{#- The target: on parquet the model's columns, then the bucket column it is partitioned by; on Delta
    the model's columns, with the table properties of _spark_table_properties. -#}
{% macro spark__create_target_sql(args) %}
  {%- set n = auto_cdc._names() -%}
  {%- if auto_cdc._spark_has_merge() -%}
create table {{ args.rel.target }}
using {{ auto_cdc._spark_format() }}
{{ auto_cdc._spark_table_properties(config.get('change_data_feed', false)) }}
as
select {{ auto_cdc._cols(args.cols.target_columns) }}
from {{ args.rel.temp.desired }}
where 1 = 0
  {%- else %}
create table {{ args.rel.target }}
using {{ auto_cdc._spark_format() }}
partitioned by ({{ auto_cdc._q(n.bucket) }})
as
select {{ auto_cdc._cols(args.cols.target_columns) }}, cast(0 as int) as {{ auto_cdc._q(n.bucket) }}
from {{ args.rel.temp.desired }}
where 1 = 0
  {%- endif %}
{% endmacro %}


{% macro create_log_sql(args) %}
  {{ return(adapter.dispatch('create_log_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__create_log_sql(args) %}
  {%- set n = auto_cdc._names() -%}
create table {{ args.rel.log }} as
select {{ auto_cdc._cols(args.cfg.stored) }}, {{ auto_cdc._q(n.op) }}, cast(0 as {{ dbt.type_bigint() }}) as {{ auto_cdc._q(n.run) }},
  cast(null as {{ dbt.type_boolean() }}) as {{ auto_cdc._q(n.edit) }}, cast(null as {{ dbt.type_bigint() }}) as {{ auto_cdc._q(n.fingerprint) }}
from {{ args.rel.temp.batch }}
where 1 = 0
{% endmacro %}

{% macro spark__create_log_sql(args) %}
  {%- set n = auto_cdc._names() -%}
  {%- if auto_cdc._spark_has_merge() -%}
create table {{ args.rel.log }}
using {{ auto_cdc._spark_format() }}
{{ auto_cdc._spark_table_properties(false) }}
as
select {{ auto_cdc._cols(args.cfg.stored) }}, {{ auto_cdc._q(n.op) }}, cast(0 as bigint) as {{ auto_cdc._q(n.run) }},
       cast(null as boolean) as {{ auto_cdc._q(n.edit) }}, cast(null as bigint) as {{ auto_cdc._q(n.fingerprint) }}
from {{ args.rel.temp.batch }}
where 1 = 0
  {%- else %}
create table {{ args.rel.log }}
using {{ auto_cdc._spark_format() }}
partitioned by ({{ auto_cdc._q(n.bucket) }})
tblproperties ('auto_cdc.buckets' = '{{ args.cols.spark_buckets }}')
as
select {{ auto_cdc._cols(args.cfg.stored) }}, {{ auto_cdc._q(n.op) }}, cast(0 as bigint) as {{ auto_cdc._q(n.run) }},
       cast(null as boolean) as {{ auto_cdc._q(n.edit) }}, cast(null as bigint) as {{ auto_cdc._q(n.fingerprint) }},
       cast(0 as int) as {{ auto_cdc._q(n.bucket) }}
from {{ args.rel.temp.batch }}
where 1 = 0
  {%- endif %}
{% endmacro %}


{#- How many buckets the target and its log are partitioned into, where an engine partitions them by
    a bucket of their keys (the run's plan: spark_buckets, skeleton.sql); none elsewhere. -#}
{% macro bucket_count(rel, incremental) %}
  {{ return(adapter.dispatch('bucket_count', 'auto_cdc')(rel, incremental)) }}
{% endmacro %}

{% macro default__bucket_count(rel, incremental) %}
  {{ return(none) }}
{% endmacro %}

{#- Spark on parquet: config `spark_buckets` (default 16) on the first run, kept in the event log's table
    properties afterwards, since changing it would move keys between buckets. Delta tables are not
    bucketed. -#}
{% macro spark__bucket_count(rel, incremental) %}
  {%- if auto_cdc._spark_has_merge() -%}{{ return(none) }}{%- endif -%}
  {%- if incremental -%}
    {%- for row in auto_cdc._query('show tblproperties ' ~ rel.log).rows if row[0] == 'auto_cdc.buckets' -%}
      {{ return(row[1] | int) }}
    {%- endfor -%}
  {%- endif -%}
  {{ return(config.get('spark_buckets', 16) | int) }}
{% endmacro %}


{#- Create the ordered type a multi-column sequence needs, where the engine needs one. -#}
{% macro create_seq_type(args) %}
  {{ return(adapter.dispatch('create_seq_type', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__create_seq_type(args) %}
{% endmacro %}

{% macro postgres__create_seq_type(args) %}
  {%- if args.cfg.seq_columns | length > 1 and args.cfg.scd != 1 -%}
    {%- set types = auto_cdc._column_types('select ' ~ auto_cdc._cols(args.cfg.seq_columns) ~ ' from ' ~ args.rel.temp.batch) -%}
    {%- set fields = [] -%}
    {%- for c in args.cfg.seq_columns -%}
      {%- do fields.append(auto_cdc._q(c) ~ ' ' ~ types[c]) -%}
    {%- endfor -%}
    {% do auto_cdc._run_sql('drop type if exists ' ~ args.rel.seq_type ~ ' cascade') %}
    {% do auto_cdc._run_sql('create type ' ~ args.rel.seq_type ~ ' as (' ~ (fields | join(', ')) ~ ')') %}
  {%- endif -%}
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
  {% do auto_cdc._run_sql('create index on ' ~ args.rel.log ~ ' (' ~ auto_cdc._cols(args.cfg.key_columns + args.cfg.seq_columns) ~ ')') %}
  {#- SCD1 looks up the last truncate every run: a partial index keeps that from scanning the log -#}
  {% do auto_cdc._run_sql('create index on ' ~ args.rel.log ~ ' (' ~ auto_cdc._cols(args.cfg.seq_columns) ~ ') where '
        ~ auto_cdc._q(n.op) ~ " = '" ~ n.truncate ~ "'") %}
  {% do auto_cdc._run_sql('create index on ' ~ args.rel.target ~ ' (' ~ auto_cdc._cols(args.cfg.key_columns) ~ ')') %}
{% endmacro %}


{% macro add_column_sql(relation, column, type) %}
  {{ return(adapter.dispatch('add_column_sql', 'auto_cdc')(relation, column, type)) }}
{% endmacro %}

{% macro default__add_column_sql(relation, column, type) -%}
alter table {{ relation }} add column {{ auto_cdc._q(column) }} {{ type }}
{%- endmacro %}

{#- on_schema_change on parquet: columns are added with ADD COLUMNS; a parquet (v1) table cannot drop a
    column or change its type (dbt-spark refuses the same, asking for Delta), so such a change fails
    the run before anything is written. -#}
{% macro spark__add_column_sql(relation, column, type) -%}
alter table {{ relation }} add columns ({{ auto_cdc._q(column) }} {{ type }})
{%- endmacro %}


{#- Whether the target's table format can take the planned changes (columns dropped, types widened);
    raises a clear error before anything is written when it cannot. -#}
{% macro check_schema_changes(dropped, widened) %}
  {{ return(adapter.dispatch('check_schema_changes', 'auto_cdc')(dropped, widened)) }}
{% endmacro %}

{% macro default__check_schema_changes(dropped, widened) %}{% endmacro %}

{% macro spark__check_schema_changes(dropped, widened) %}
  {%- if auto_cdc._spark_has_merge() or not (dropped or widened) -%}{{ return(none) }}{%- endif -%}
  {%- set changes = [] -%}
  {%- for c in dropped -%}{%- do changes.append('drop ' ~ c) -%}{%- endfor -%}
  {%- for c, t in widened.items() -%}{%- do changes.append(c ~ ' to ' ~ t) -%}{%- endfor -%}
  {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': the source's columns changed ("
        ~ (changes | join(', ')) ~ ") and a " ~ auto_cdc._spark_format() ~ " table on Spark cannot drop a column or change its type. "
        ~ "Run with --full-refresh (it rebuilds the history from what the source still holds: events it no longer holds are lost); or keep the table's columns and types with on_schema_change 'ignore' "
        ~ "(or 'append_new_columns' when no type changed); or use file_format delta or iceberg") -%}
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


{#- Revoke the privileges a grants dict names from its grantees (revoking one not held changes nothing). -#}
{% macro revoke_grants(relation, grant_config) %}
  {{ return(adapter.dispatch('revoke_grants', 'auto_cdc')(relation, grant_config)) }}
{% endmacro %}

{% macro default__revoke_grants(relation, grant_config) %}
  {%- set statements = get_dcl_statement_list(relation, grant_config, get_revoke_sql) -%}
  {%- if statements -%}{% do call_dcl_statements(statements) %}{%- endif -%}
{% endmacro %}

{#- DuckDB has no roles or grants. -#}
{% macro duckdb__revoke_grants(relation, grant_config) %}
{% endmacro %}


{% macro drop_temp_table_sql(relation) %}
drop table if exists {{ relation }}
{% endmacro %}


{#- Give `relation` exactly the grants of `grant_config` (a grants dict; `{}`: none): revoke what the
    owner granted beyond them, grant what is missing. dbt's apply_grants does nothing for an empty
    dict; change_data_feed_grants: {} must take every reader off the change feed. -#}
{% macro apply_exact_grants(relation, grant_config) %}
  {{ return(adapter.dispatch('apply_exact_grants', 'auto_cdc')(relation, grant_config)) }}
{% endmacro %}

{% macro default__apply_exact_grants(relation, grant_config) %}
  {%- set current = adapter.standardize_grants_dict(auto_cdc._query(get_show_grant_sql(relation))) -%}
  {%- set statements = get_dcl_statement_list(relation, diff_of_two_dicts(current, grant_config), get_revoke_sql)
        + get_dcl_statement_list(relation, diff_of_two_dicts(grant_config, current), get_grant_sql) -%}
  {%- if statements -%}{% do call_dcl_statements(statements) %}{%- endif -%}
{% endmacro %}

{#- DuckDB has no roles or grants. -#}
{% macro duckdb__apply_exact_grants(relation, grant_config) %}
{% endmacro %}


{#- With no log_grants, on an incremental run: take from the event log and the run log (`logs`) the
    grants a reader may still hold there. -#}
{% macro revoke_log_grants(logs, grant_config) %}
  {{ return(adapter.dispatch('revoke_log_grants', 'auto_cdc')(logs, grant_config)) }}
{% endmacro %}

{#- The grantees of the target's `grants`, which earlier versions of the package gave the logs too
    (revoking a privilege not held changes nothing; DuckDB: revoke_grants does nothing). -#}
{% macro default__revoke_log_grants(logs, grant_config) %}
  {%- for relation in logs if grant_config -%}{% do auto_cdc.revoke_grants(relation, grant_config) %}{%- endfor -%}
{% endmacro %}

{#- Postgres: already done, in the run's first round trip: the model's lock statement revoked every
    privilege the owner had granted on the logs (_pg_revoke_log_grants_sql, locking.sql), whoever holds
    it, a grantee of an earlier log_grants included. -#}
{% macro postgres__revoke_log_grants(logs, grant_config) %}
{% endmacro %}
