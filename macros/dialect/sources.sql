{#-
  What the source-format macros (macros/sources/) read whose syntax differs by engine: JSON documents
  and Postgres log positions. Each hook: its dispatcher, `default__` (DuckDB's), then the overrides.
  docs/contributing.md lists them all.
-#}


{#- A JSON document from a column holding one as text (or already as JSON). -#}
{% macro json_parse_sql(expr) %}
  {{ return(adapter.dispatch('json_parse_sql', 'auto_cdc')(expr)) }}
{% endmacro %}

{% macro default__json_parse_sql(expr) %}
  {{ return('cast(' ~ expr ~ ' as json)') }}
{% endmacro %}

{#- Postgres: jsonb, parsed once, where each `->` of a json value parses its text again. -#}
{% macro postgres__json_parse_sql(expr) %}
  {{ return('cast(' ~ expr ~ ' as jsonb)') }}
{% endmacro %}

{#- Spark has no JSON type: its JSON functions read the text. -#}
{% macro spark__json_parse_sql(expr) %}
  {{ return('cast(' ~ expr ~ ' as string)') }}
{% endmacro %}


{#- The JSON value at `path` (a list of object keys) of the document `doc`, as JSON; SQL NULL where a
    key is missing. -#}
{% macro json_get_sql(doc, path) %}
  {{ return(adapter.dispatch('json_get_sql', 'auto_cdc')(doc, path)) }}
{% endmacro %}

{#- DuckDB: a JSON path whose keys are quoted, so that a key holding `.` or `$` is one key. -#}
{% macro default__json_get_sql(doc, path) %}
  {{ return('json_extract(' ~ doc ~ ', ' ~ auto_cdc._duckdb_json_path(path) ~ ')') }}
{% endmacro %}

{% macro postgres__json_get_sql(doc, path) %}
  {{ return('(' ~ doc ~ ' #> ' ~ auto_cdc._postgres_text_array(path) ~ ')') }}
{% endmacro %}

{#- Spark: get_json_object returns an object or array as its JSON text, which the next call reads. -#}
{% macro spark__json_get_sql(doc, path) %}
  {{ return('get_json_object(' ~ doc ~ ', ' ~ auto_cdc._spark_json_path(path) ~ ')') }}
{% endmacro %}


{#- The value at `path` as text: a string without its quotes, a number or boolean as written, SQL NULL
    for a JSON null or a missing key. -#}
{% macro json_text_sql(doc, path) %}
  {{ return(adapter.dispatch('json_text_sql', 'auto_cdc')(doc, path)) }}
{% endmacro %}

{% macro default__json_text_sql(doc, path) %}
  {{ return('json_extract_string(' ~ doc ~ ', ' ~ auto_cdc._duckdb_json_path(path) ~ ')') }}
{% endmacro %}

{% macro postgres__json_text_sql(doc, path) %}
  {{ return('(' ~ doc ~ ' #>> ' ~ auto_cdc._postgres_text_array(path) ~ ')') }}
{% endmacro %}

{% macro spark__json_text_sql(doc, path) %}
  {{ return('get_json_object(' ~ doc ~ ', ' ~ auto_cdc._spark_json_path(path) ~ ')') }}
{% endmacro %}


{#- An array of `{"name": ..., "value": ...}` objects (wal2json's `columns` and `identity`) at the key
    `key` of `doc`, as a lookup by name that json_pair_text_sql reads; SQL NULL without the key. -#}
{% macro json_pairs_sql(doc, key) %}
  {{ return(adapter.dispatch('json_pairs_sql', 'auto_cdc')(doc, key)) }}
{% endmacro %}

{#- DuckDB: a MAP of the names to the values' text, built by a lambda (no subquery per row). -#}
{% macro default__json_pairs_sql(doc, key) %}
  {%- set array = 'cast(' ~ auto_cdc.json_get_sql(doc, [key]) ~ ' as json[])' -%}
  {{ return("map_from_entries(list_transform(" ~ array ~ ", lambda e: struct_pack(k := e ->> 'name', v := e ->> 'value')))") }}
{% endmacro %}

{#- Postgres has no map type: one jsonb object of the names to the values. -#}
{% macro postgres__json_pairs_sql(doc, key) %}
  {{ return("(select jsonb_object_agg(e ->> 'name', e -> 'value') from jsonb_array_elements(" ~ doc ~ " -> '" ~ (key | replace("'", "''")) ~ "') as e)") }}
{% endmacro %}

{#- Spark: a map<string,string> (from_json reads a number or boolean into a string field as its text). -#}
{% macro spark__json_pairs_sql(doc, key) %}
  {%- set array = "from_json(" ~ auto_cdc.json_get_sql(doc, [key]) ~ ", 'array<struct<name:string,value:string>>')" -%}
  {{ return('map_from_entries(transform(' ~ array ~ ', e -> struct(e.name, e.value)))') }}
{% endmacro %}


{#- The text of the value named `name` in a lookup json_pairs_sql built; SQL NULL where it has none. -#}
{% macro json_pair_text_sql(pairs, name) %}
  {{ return(adapter.dispatch('json_pair_text_sql', 'auto_cdc')(pairs, name)) }}
{% endmacro %}

{% macro default__json_pair_text_sql(pairs, name) %}
  {{ return(pairs ~ "['" ~ (name | replace("'", "''")) ~ "']") }}
{% endmacro %}

{% macro postgres__json_pair_text_sql(pairs, name) %}
  {{ return('(' ~ pairs ~ " ->> '" ~ (name | replace("'", "''")) ~ "')") }}
{% endmacro %}

{#- Spark: try_element_at, where a subscript of a missing key fails under ANSI mode. -#}
{% macro spark__json_pair_text_sql(pairs, name) %}
  {{ return('try_element_at(' ~ pairs ~ ", '" ~ (name | replace("'", "''")) ~ "')") }}
{% endmacro %}


{#- A Postgres log position written as text (`16/B374D848`: two hexadecimal halves) as a bigint that
    orders like the position. -#}
{% macro lsn_number_sql(expr) %}
  {{ return(adapter.dispatch('lsn_number_sql', 'auto_cdc')(expr)) }}
{% endmacro %}

{#- DuckDB casts a `0x` text to an integer. -#}
{% macro default__lsn_number_sql(expr) %}
  {{ return("(cast('0x' || split_part(" ~ expr ~ ", '/', 1) as bigint) * 4294967296 + cast('0x' || split_part(" ~ expr ~ ", '/', 2) as bigint))") }}
{% endmacro %}

{#- Postgres: the distance from 0/0 of the pg_lsn value. -#}
{% macro postgres__lsn_number_sql(expr) %}
  {{ return("cast(cast(" ~ expr ~ " as pg_lsn) - '0/0'::pg_lsn as bigint)") }}
{% endmacro %}

{#- Spark: conv() reads each half from base 16. -#}
{% macro spark__lsn_number_sql(expr) %}
  {{ return("(cast(conv(split_part(" ~ expr ~ ", '/', 1), 16, 10) as bigint) * 4294967296 + cast(conv(split_part(" ~ expr ~ ", '/', 2), 16, 10) as bigint))") }}
{% endmacro %}


{#- `'$."a"."b"'`: DuckDB's JSON path of the keys, each quoted. -#}
{% macro _duckdb_json_path(path) %}
  {%- set keys = [] -%}
  {%- for key in path -%}
    {%- do keys.append('."' ~ (key | replace('\\', '\\\\') | replace('"', '\\"') | replace("'", "''")) ~ '"') -%}
  {%- endfor -%}
  {{ return("'$" ~ (keys | join('')) ~ "'") }}
{% endmacro %}

{#- `array['a', 'b']`: Postgres' path of the keys for #> and #>>. -#}
{% macro _postgres_text_array(path) %}
  {%- set keys = [] -%}
  {%- for key in path -%}{%- do keys.append("'" ~ (key | replace("'", "''")) ~ "'") -%}{%- endfor -%}
  {{ return('array[' ~ (keys | join(', ')) ~ ']::text[]') }}
{% endmacro %}

{#- `'$['a']['b']'`: Spark's JSON path of the keys, each subscripted (a key may hold a dot). -#}
{% macro _spark_json_path(path) %}
  {%- set keys = [] -%}
  {%- for key in path -%}{%- do keys.append("['" ~ key ~ "']") -%}{%- endfor -%}
  {{ return("'$" ~ ((keys | join('')) | replace('\\', '\\\\') | replace("'", "\\'")) ~ "'") }}
{% endmacro %}
