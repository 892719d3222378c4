{#- What the source-format macros (from_debezium, from_wal2json, from_dms, from_soft_deletes) share. -#}


{#- The feed's SELECT as a subquery for a FROM clause, named `alias` (default: the source's table name):
    PostgreSQL before 16 takes no subquery in FROM without a name. -#}
{% macro _feed_from_item(sql, relation, alias) %}
  {%- set name = alias if alias is not none else (relation.identifier if relation.identifier is defined and relation.identifier else 'feed') -%}
  {{ return('(' ~ sql ~ ') as ' ~ auto_cdc._q(name)) }}
{% endmacro %}


{#- The payload columns as (name, type) pairs: `columns` is a dict of names to SQL types, in the order
    the feed returns them; a list of names keeps each value as text. -#}
{% macro _feed_columns(columns, caller_name) %}
  {%- if columns is mapping -%}
    {{ return(columns.items() | list) }}
  {%- elif columns is iterable and columns is not string and columns | length > 0 -%}
    {%- set pairs = [] -%}
    {%- for name in columns -%}{%- do pairs.append((name, dbt.type_string())) -%}{%- endfor -%}
    {{ return(pairs) }}
  {%- endif -%}
  {%- do exceptions.raise_compiler_error("auto_cdc." ~ caller_name ~ ": columns must name the payload's columns and their types, e.g. columns={'id': 'integer', 'name': 'text'}") -%}
{% endmacro %}


{#- `"a", "b", ` for columns of the landing table a feed passes through unchanged (for a cursor_column,
    say); '' for none. -#}
{% macro _feed_passthrough(names) %}
  {%- set out = [] -%}
  {%- for name in ([names] if names is string else (names or [])) -%}{%- do out.append(auto_cdc._q(name) ~ ', ') -%}{%- endfor -%}
  {{ return(out | join('')) }}
{% endmacro %}


{#- The payload of a table-shaped feed (DMS, soft deletes): `cast(col as type)` of each of `columns`
    when given, else every column of the relation but the feed's own (`skip`). -#}
{% macro _feed_table_columns(relation, columns, skip, caller_name) %}
  {%- set out = [] -%}
  {%- if columns -%}
    {%- for name, type in auto_cdc._feed_columns(columns, caller_name) -%}
      {%- do out.append('cast(' ~ auto_cdc._q(name) ~ ' as ' ~ type ~ ') as ' ~ auto_cdc._q(name)) -%}
    {%- endfor -%}
  {%- elif execute -%}
    {%- if relation.identifier is not defined -%}
      {%- do exceptions.raise_compiler_error("auto_cdc." ~ caller_name ~ ": to read the columns of " ~ relation ~ " it must be a source() or ref(); or name them with columns={...}") -%}
    {%- endif -%}
    {%- set skipped = skip | map('lower') | list -%}
    {%- for col in adapter.get_columns_in_relation(relation) if col.name | lower not in skipped -%}
      {%- do out.append(auto_cdc._q(col.name)) -%}
    {%- endfor -%}
  {%- else -%}
    {%- do out.append('*') -%}
  {%- endif -%}
  {{ return(out | join(', ')) }}
{% endmacro %}

