{#-
  What the run-operations that delete from a model's state (erase_keys, compact) need.
  Each hook: its dispatcher, `default__` (what DuckDB and Postgres share unless they override it), then
  the engines' overrides, each saying how its dialect differs. docs/contributing.md lists them all.
-#}


{#- Whether the target's tables take the DELETE that an operation writing the model's state
    (`operation`: 'erase_keys', 'compact'; `target`: the model's target) needs; a clear error before
    anything is read otherwise. -#}
{% macro _check_deletes_supported(operation, target) %}
  {{ return(adapter.dispatch('check_deletes_supported', 'auto_cdc')(operation, target)) }}
{% endmacro %}

{% macro default__check_deletes_supported(operation, target) %}
{% endmacro %}

{#- Spark: parquet tables take no DELETE; Delta tables take erase_keys' DELETEs. compact is not
    available on Spark yet (docs/spark.md). -#}
{% macro spark__check_deletes_supported(operation, target) %}
  {%- set format = auto_cdc._spark_format(target) -%}
  {%- if operation == 'erase_keys' and format == 'delta' -%}{{ return(none) }}{%- endif -%}
  {%- do exceptions.raise_compiler_error("auto_cdc." ~ operation ~ ": not available on Spark " ~ format ~ " tables"
        ~ (", which take no DELETE" if format == 'parquet' else "") ~ " (docs/spark.md)") -%}
{% endmacro %}


{#- Delete the rows of `relation` that meet `where`; returns how many it deleted, the number the
    operation reports and that erase_keys takes as whether it changed the target. -#}
{% macro delete_where(relation, where) %}
  {{ return(adapter.dispatch('delete_where', 'auto_cdc')(relation, where)) }}
{% endmacro %}

{#- A count, then the DELETE, in the operation's transaction. -#}
{% macro default__delete_where(relation, where) %}
  {%- set count = auto_cdc._scalar('select count(*) from ' ~ relation ~ ' where ' ~ where) | int -%}
  {% do auto_cdc._run_sql('delete from ' ~ relation ~ ' where ' ~ where) %}
  {{ return(count) }}
{% endmacro %}

{#- Spark (Delta, the one format erase_keys runs on): no transaction spans two statements, and Delta's
    DELETE returns the rows it deleted (`num_affected_rows`) and commits nothing where it deleted none, so
    the count is the commit's own: a change committed by someone else between a count and the DELETE is
    never taken for the erase's (erase_keys' _keep_target_unedited). -#}
{% macro spark__delete_where(relation, where) %}
  {%- set rows = auto_cdc._query('delete from ' ~ relation ~ ' where ' ~ where).rows -%}
  {{ return((rows[0][0] | int) if rows | length > 0 and rows[0][0] is not none else 0) }}
{% endmacro %}
