{#-
  Helpers of the Spark (dbt-spark) overrides, which sit beside their defaults in macros/dialect/. The tested path is plain parquet tables in a Hive metastore: no
  UPDATE, DELETE or MERGE, and no transactions. So the target and its event log are partitioned by
  a bucket of their keys, `__auto_cdc_bucket = pmod(xxhash64(keys), buckets)`, and a run rewrites
  only the buckets that hold affected keys (INSERT OVERWRITE with dynamic partition overwrite);
  appends are plain INSERTs. A run's cost follows its batch: the affected keys' buckets, not the
  table. With file_format delta, iceberg or hudi (not tested here) the target takes MERGE instead.
  Temporary relations are real parquet tables beside the target (a Spark temp view is a query,
  recomputed at each read, and would see the log after the append).
  Aliases: in a correlated subquery Spark resolves `b.x` against the inner tables' columns first, so
  an outer alias `b` breaks on a table with a column named `b` (then `b.x` is a field of that
  column). The Spark queries with correlated subqueries alias their tables with reserved names.
-#}

{#- The bucket of a row, from its key columns. -#}
{% macro _spark_bucket_expr(args, prefix=none) -%}
pmod(xxhash64({{ auto_cdc._cols(args.cfg.key_columns, prefix) }}), {{ args.plan.spark_buckets }})
{%- endmacro %}

{% macro _spark_format() %}
  {{ return(config.get('file_format', 'parquet')) }}
{% endmacro %}

{% macro _spark_has_merge() %}
  {{ return(auto_cdc._spark_format() in ['delta', 'iceberg', 'hudi']) }}
{% endmacro %}

{#- The bucket numbers a query returns (one column), for literal partition filters: a literal list
    prunes partitions for certain, where a join relies on dynamic partition pruning. -#}
{% macro _spark_bucket_list(sql) %}
  {%- set out = [] -%}
  {%- for row in auto_cdc._query(sql).rows if row[0] is not none -%}{%- do out.append(row[0] | int) -%}{%- endfor -%}
  {{ return(out | sort) }}
{% endmacro %}


{#- Session settings of the rewrite: dynamic partition overwrite, and partition pruning that survives
    the Hive metastore's filter parser, which rejects a column name starting with `_` (then Spark
    lists the partitions and prunes them itself). -#}
{% macro _spark_settings() %}
  {% do auto_cdc._run_sql('set spark.sql.sources.partitionOverwriteMode = dynamic') %}
  {% do auto_cdc._run_sql('set spark.sql.hive.metastorePartitionPruningFallbackOnException = true') %}
{% endmacro %}


{#- Rewrite some buckets of a partitioned table with the rows of `sql` (which carries the bucket
    column last), under dynamic partition overwrite: only the buckets `sql` has rows for are
    replaced; `emptied` are buckets left with no row, dropped. -#}
{% macro _spark_overwrite_buckets(relation, columns, sql, emptied) %}
  {%- set n = auto_cdc._names() -%}
  {% do auto_cdc._run_sql('insert overwrite table ' ~ relation ~ ' partition (' ~ auto_cdc._q(n.bucket) ~ ') ('
        ~ auto_cdc._cols(columns) ~ ')\n' ~ sql) %}
  {%- if emptied -%}
    {%- set parts = [] -%}
    {%- for b in emptied -%}{%- do parts.append('partition (' ~ auto_cdc._q(n.bucket) ~ ' = ' ~ b ~ ')') -%}{%- endfor -%}
    {% do auto_cdc._run_sql('alter table ' ~ relation ~ ' drop if exists ' ~ (parts | join(', '))) %}
  {%- endif -%}
{% endmacro %}
