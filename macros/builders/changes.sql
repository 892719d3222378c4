{#-
  Change data feed, as Databricks' change data feed of a streaming table. With
  change_data_feed: true, every run that changes the target records the rows it removed and added
  in <target>__auto_cdc_changes, with _change_type, _commit_version (one per run that changed the
  target, strictly increasing: the run log keeps them, so erasing rows never frees a version) and
  _commit_timestamp (the run's start). A removed and an added row with the same primary key are an
  update (pre- and post-image); otherwise a delete or an insert.
-#}

{#- Record the changes of a run that changed the target (the caller checks); returns the commit version. -#}
{% macro _record_changes(args) %}
  {%- set pk = auto_cdc._row_key(args) -%}
  {%- set ts = "cast('" ~ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") ~ "' as " ~ dbt.type_timestamp() ~ ")" -%}
  {%- if adapter.get_relation(args.changes.database, args.changes.schema, args.changes.identifier) is none -%}
    {% do auto_cdc._run_sql(auto_cdc.create_table_as_sql(args.changes, 'select ' ~ auto_cdc._cols(args.target_columns)
          ~ ', cast(null as ' ~ dbt.type_string() ~ ') as _change_type, cast(0 as ' ~ dbt.type_bigint()
          ~ ') as _commit_version, ' ~ ts ~ ' as _commit_timestamp from ' ~ args.missing ~ ' where 1 = 0')) %}
  {%- endif -%}
  {#- the next version after every one a run has recorded (the run log keeps them; erase_keys may remove
      every row of the latest version from the change feed, never a run) -#}
  {%- set version = auto_cdc._scalar('select coalesce(max(commit_version), 0) + 1 from ' ~ args.runs) | int -%}
  {%- set version = [version, auto_cdc._scalar('select coalesce(max(_commit_version), 0) + 1 from ' ~ args.changes) | int] | max -%}
  {%- set s, m = auto_cdc._alias('s'), auto_cdc._alias('m') -%}
  {%- set sql -%}
insert into {{ args.changes }} ({{ auto_cdc._cols(args.target_columns) }}, _change_type, _commit_version, _commit_timestamp)
select {{ auto_cdc._cols(args.target_columns, s) }},
       case when exists (select 1 from {{ args.missing }} {{ m }} where {{ auto_cdc._eq(pk, m, s) }})
            then 'update_preimage' else 'delete' end,
       {{ version }}, {{ ts }}
from {{ args.stale }} {{ s }}
union all
select {{ auto_cdc._cols(args.target_columns, m) }},
       case when exists (select 1 from {{ args.stale }} {{ s }} where {{ auto_cdc._eq(pk, s, m) }})
            then 'update_postimage' else 'insert' end,
       {{ version }}, {{ ts }}
from {{ args.missing }} {{ m }}
  {%- endset -%}
  {% do auto_cdc._run_sql(sql) %}
  {{ return(version) }}
{% endmacro %}


{#-
  {{ auto_cdc.table_changes(ref('m'), start_version, end_version=none) }}: the changed rows of an
  auto_cdc target with change_data_feed: true, like Databricks' table_changes(): the target's
  columns, _change_type, _commit_version and _commit_timestamp, for commit versions from
  start_version to end_version (inclusive; no end: up to the latest). It renders a FROM item that
  reads as written in Databricks, with or without an alias of the caller's own:
  `select * from {{ auto_cdc.table_changes(ref('m'), 0) }}` or `... }} as c`.
-#}
{% macro table_changes(relation, start_version, end_version=none) %}
  {%- set changes = auto_cdc._side_relation(relation, auto_cdc._names().changes_suffix) -%}
  {%- if execute and load_relation(changes) is none -%}
    {%- do exceptions.raise_compiler_error("auto_cdc.table_changes: " ~ relation ~ " has no change feed (set change_data_feed: true on its model and run it)") -%}
  {%- endif -%}
  {%- set where = '_commit_version >= ' ~ start_version ~ (' and _commit_version <= ' ~ end_version if end_version is not none else '') -%}
  {{- return(adapter.dispatch('_changes_from_item', 'auto_cdc')(changes, where)) -}}
{%- endmacro %}

{#- A subquery in FROM: DuckDB, Spark and PostgreSQL 16+ accept it with or without an alias. -#}
{% macro default___changes_from_item(changes, where) -%}
  {{- return('(select * from ' ~ changes ~ ' where ' ~ where ~ ')') -}}
{%- endmacro %}

{#- PostgreSQL before 16 rejects a subquery in FROM without an alias, and one rendered with an alias
    would reject the caller's own. A function call in FROM needs none and takes one: unnest() of an
    array of the changes table's rows expands to that table's columns, in order. (It holds the
    selected rows in one array, so 16+ keeps the plain subquery.) -#}
{% macro postgres___changes_from_item(changes, where) -%}
  {%- set version = run_query('show server_version_num').columns[0].values()[0] | int if execute else 160000 -%}
  {%- if version >= 160000 -%}
    {{- return(auto_cdc.default___changes_from_item(changes, where)) -}}
  {%- endif -%}
  {%- set row = auto_cdc._alias('row') -%}
  {{- return('unnest(array(select ' ~ row ~ ' from ' ~ changes ~ ' ' ~ row ~ ' where ' ~ where ~ '))') -}}
{%- endmacro %}
