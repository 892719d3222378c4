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
