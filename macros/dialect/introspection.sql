{#-
  Reading column types, and sending several statements in one round trip where the driver allows.
  Each hook: its dispatcher, `default__` (what DuckDB and Postgres share unless they override it), then
  the engines' overrides, each saying how its dialect differs. docs/contributing.md lists them all.
-#}


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

{#- DuckDB: DESCRIBE gives the full type (decimal precision, STRUCT fields). -#}
{% macro duckdb__column_types(sql) %}
  {%- set types = {} -%}
  {%- for row in auto_cdc._query('describe ' ~ sql).rows -%}
    {%- do types.update({row[0]: row[1]}) -%}
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

{#- DESCRIBE QUERY gives Spark's full type names (array<string>, decimal(p,s), struct<...>). -#}
{% macro spark__column_types(sql) %}
  {%- set types = {} -%}
  {%- for row in auto_cdc._query('describe query ' ~ sql).rows -%}
    {%- do types.update({row[0]: row[1]}) -%}
  {%- endfor -%}
  {{ return(types) }}
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


{#- The model query's column names and (as `types`) the column types of it ('source') and of the given
    relations ({name: relation}) where one query can read them all (else `types` is none and the run reads
    them later), and (as `last_run`) the run log's last row as a dict where `runs` is given (none before a
    first run, or where the engine keeps no config in it: _engine().config_cache). -#}
{% macro _source_columns(sql, relations, runs=none) %}
  {{ return(adapter.dispatch('source_columns', 'auto_cdc')(sql, relations, runs)) }}
{% endmacro %}

{#- The query's columns (Postgres: with the run log's last row, row_to_json, in the same query: one row
    whose last column holds it and whose others are the query's, NULL). -#}
{% macro default__source_columns(sql, relations, runs) %}
  {%- if runs is none or not auto_cdc._engine().config_cache -%}{{ return({'names': get_columns_in_query(sql), 'types': none, 'last_run': none}) }}{%- endif -%}
  {%- set last = auto_cdc._alias('last_run') -%}
  {%- set result = auto_cdc._query('select q.*, (select cast(row_to_json(r) as text) from (select * from ' ~ runs
        ~ ' order by run_id desc limit 1) r) as ' ~ last ~ ' from (select 1) as o left join (select * from (\n' ~ sql
        ~ '\n) as s where false) as q on true') -%}
  {%- set last_run = result.rows[0][-1] -%}
  {{ return({'names': result.column_names[:-1] | list, 'types': none, 'last_run': fromjson(last_run) if last_run else none}) }}
{% endmacro %}

{#- DuckDB: DESCRIBE of the query, duckdb_columns() of the relations and the run log's last row (to_json),
    in one query. -#}
{% macro duckdb__source_columns(sql, relations, runs) %}
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
    {%- if runs is not none %}
union all
select -1, cast(to_json(x) as varchar), null, 0 from (select * from {{ runs }} order by run_id desc limit 1) x
    {%- endif %}
order by r, i
  {%- endset -%}
  {%- set rows = auto_cdc._query(query).rows -%}
  {%- set last = rows[0][1] if rows and rows[0][0] == -1 else none -%}
  {%- set types = auto_cdc._types_by_relation(names, rows[1:] if last else rows) -%}
  {{ return({'names': types.source.keys() | list, 'types': types if relations else none, 'last_run': fromjson(last) if last else none}) }}
{% endmacro %}


{#- Run a statement and a query after it in one round trip, and return the query's rows: engines whose
    drivers take several statements in one call get them together (the same as _run_sql then
    _query elsewhere). -#}
{% macro _run_then_query(sql, query) %}
  {{ return(adapter.dispatch('run_then_query', 'auto_cdc')([sql] if sql is string else sql, query)) }}
{% endmacro %}

{% macro default__run_then_query(statements, query) %}
  {%- set trimmed = [] -%}
  {%- for sql in statements -%}{%- do trimmed.append(sql | trim) -%}{%- endfor -%}
  {{ return(auto_cdc._query((trimmed + [query]) | join(';\n'))) }}
{% endmacro %}

{% macro spark__run_then_query(statements, query) %}
  {% do auto_cdc._run_statements(statements) %}
  {{ return(auto_cdc._query(query)) }}
{% endmacro %}


{#- Run statements that need no answer in between, in one round trip where the engine's driver takes
    several statements in one call (the same as one _run_sql each elsewhere). -#}
{% macro _run_statements(statements) %}
  {{ return(adapter.dispatch('run_statements', 'auto_cdc')(statements)) }}
{% endmacro %}

{% macro default__run_statements(statements) %}
  {%- set trimmed = [] -%}
  {%- for sql in statements -%}{%- do trimmed.append(sql | trim) -%}{%- endfor -%}
  {% do auto_cdc._run_sql(trimmed | join(';\n')) %}
{% endmacro %}

{#- Spark: spark.sql takes one statement per call. -#}
{% macro spark__run_statements(statements) %}
  {%- for sql in statements -%}{% do auto_cdc._run_sql(sql) %}{%- endfor -%}
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
