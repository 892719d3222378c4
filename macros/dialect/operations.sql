{#-
  What the run-operations that delete from a model's state (erase_keys, compact) need.
  Each hook: its dispatcher, `default__` (what DuckDB and Postgres share unless they override it), then
  the engines' overrides, each saying how its dialect differs. docs/contributing.md lists them all.
-#}


{#- Whether the engine's tables take the DELETE that an operation writing the model's state
    (`operation`: 'erase_keys', 'compact') needs; a clear error before anything is read otherwise. -#}
{% macro _check_deletes_supported(operation) %}
  {{ return(adapter.dispatch('check_deletes_supported', 'auto_cdc')(operation)) }}
{% endmacro %}

{% macro default__check_deletes_supported(operation) %}
{% endmacro %}

{#- Spark on parquet: tables take no DELETE. -#}
{% macro spark__check_deletes_supported(operation) %}
  {%- do exceptions.raise_compiler_error("auto_cdc." ~ operation ~ ": not available on Spark parquet tables, which take no DELETE (docs/spark.md)") -%}
{% endmacro %}
