{#-
  Helpers of the Spark (dbt-spark) overrides, which sit beside their defaults in macros/dialect/. The tested path is plain parquet tables in a Hive metastore: no
  UPDATE, DELETE or MERGE, and no transactions. So the target and its event log are partitioned by
  a bucket of their keys, `__auto_cdc_bucket = pmod(xxhash64(keys), buckets)`, and a run rewrites
  only the buckets that hold affected keys (INSERT OVERWRITE with dynamic partition overwrite);
  appends are plain INSERTs. A run's cost follows its batch: the affected keys' buckets, not the
  table. With file_format delta (the default where the session has Delta Lake; iceberg and hudi take
  the same path, untested) the tables are not bucketed and the apply is the other engines' own:
  MERGE, UPDATE and DELETE (each hook below falls back to its default there).
  Temporary relations are real parquet tables beside the target (a Spark temp view is a query,
  recomputed at each read, and would see the log after the append).
  Aliases: in a correlated subquery Spark resolves `b.x` against the inner tables' columns first, so
  an outer alias `b` breaks on a table with a column named `b` (then `b.x` is a field of that
  column). The Spark queries with correlated subqueries alias their tables with reserved names.
-#}

{#- The bucket of a row, from its key columns. -#}
{% macro _spark_bucket_expr(args, prefix=none) -%}
pmod(xxhash64({{ auto_cdc._cols(args.cfg.key_columns, prefix) }}), {{ args.cols.spark_buckets }})
{%- endmacro %}

{#- The table format of the model's target and bookkeeping tables. An existing target keeps its format
    (read from dbt's relation cache, which dbt-spark fills from the table's provider); a configured
    file_format that differs from it is an error until --full-refresh rebuilds the target. A new
    target takes file_format, or delta when the session has Delta Lake's catalog, or parquet.
    `relation`: a target named by a run-operation (no model context). -#}
{% macro _spark_format(relation=none) %}
  {%- set existing = load_cached_relation(relation if relation is not none else this) -%}
  {%- if relation is not none -%}
    {{ return(auto_cdc._spark_relation_format(existing)) }}
  {%- endif -%}
  {%- set configured = config.get('file_format') -%}
  {%- if existing is not none and existing.is_table and not should_full_refresh() -%}
    {%- set found = auto_cdc._spark_relation_format(existing) -%}
    {%- if configured and (configured | lower) != found -%}
      {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': the target " ~ existing ~ " is a " ~ found
            ~ " table and file_format is '" ~ configured ~ "'. Run with --full-refresh to rebuild it as " ~ configured
            ~ " (the history is rebuilt from what the source still holds: events it no longer holds are lost), or set file_format: " ~ found) -%}
    {%- endif -%}
    {{ return(found) }}
  {%- endif -%}
  {{ return((configured | lower) if configured else ('delta' if auto_cdc._spark_session_has_delta() else 'parquet')) }}
{% endmacro %}

{% macro _spark_relation_format(relation) %}
  {%- if relation is none or not relation.is_table -%}{{ return('parquet') }}{%- endif -%}
  {{ return('delta' if relation.is_delta else ('iceberg' if relation.is_iceberg else ('hudi' if relation.is_hudi else 'parquet'))) }}
{% endmacro %}

{#- Whether the session's catalog is Delta Lake's (spark.sql.catalog.spark_catalog), so that `using
    delta` tables can be created: asked by new targets' format. -#}
{% macro _spark_session_has_delta() %}
  {%- if not execute -%}{{ return(false) }}{%- endif -%}
  {#- a run-operation (erase_keys) has no node: asked each time -#}
  {%- if model is not mapping -%}{{ return(auto_cdc._spark_catalog_is_delta()) }}{%- endif -%}
  {#- asked once per model: the answer is kept in the node's context for its later calls -#}
  {%- if model.get('auto_cdc_spark_delta') is none -%}
    {%- do model.update({'auto_cdc_spark_delta': auto_cdc._spark_catalog_is_delta()}) -%}
  {%- endif -%}
  {{ return(model.auto_cdc_spark_delta) }}
{% endmacro %}

{#- The session's spark_catalog is Delta Lake's (a driver-side setting: no Spark job). -#}
{% macro _spark_catalog_is_delta() %}
  {%- set row = auto_cdc._query('set spark.sql.catalog.spark_catalog').rows[0] -%}
  {{ return('delta' in (row[1] | string | lower)) }}
{% endmacro %}

{#- The TBLPROPERTIES clause of a Delta target or event log: column mapping by name, so that
    on_schema_change can drop a column, type widening, so that it can widen a column's type, deletion
    vectors, so that a MERGE or DELETE marks the rows it removes instead of rewriting every file that
    holds one (a batch's keys are spread over the whole table), and, with change_data_feed, Delta's own
    change data feed; then the model's own `tblproperties`. -#}
{% macro _spark_table_properties(change_data_feed) %}
  {%- set props = {} -%}
  {%- if auto_cdc._spark_format() == 'delta' -%}
    {%- do props.update({'delta.columnMapping.mode': 'name', 'delta.enableTypeWidening': 'true',
                         'delta.enableDeletionVectors': 'true'}) -%}
    {%- if change_data_feed -%}{%- do props.update({'delta.enableChangeDataFeed': 'true'}) -%}{%- endif -%}
  {%- endif -%}
  {%- do props.update(config.get('tblproperties') or {}) -%}
  {%- if not props -%}{{ return('') }}{%- endif -%}
  {%- set pairs = [] -%}
  {%- for k, v in props.items() -%}{%- do pairs.append("'" ~ k ~ "' = '" ~ v ~ "'") -%}{%- endfor -%}
  {{ return('tblproperties (' ~ (pairs | join(', ')) ~ ')') }}
{% endmacro %}

{#- Whether a Delta table records its change data feed (delta.enableChangeDataFeed). -#}
{% macro _spark_cdf_enabled(relation) %}
  {%- set found = auto_cdc._query('show tblproperties ' ~ relation ~ " ('delta.enableChangeDataFeed')").rows -%}
  {{ return(found | length > 0 and (found[0][1] | string | lower) == 'true') }}
{% endmacro %}

{% macro _spark_has_merge(relation=none) %}
  {{ return(auto_cdc._spark_format(relation) in ['delta', 'iceberg', 'hudi']) }}
{% endmacro %}

{#- The bucket numbers a query returns (one column), for literal partition filters: a literal list
    prunes partitions for certain, where a join relies on dynamic partition pruning. -#}
{% macro _spark_bucket_list(sql) %}
  {%- set out = [] -%}
  {%- for row in auto_cdc._query(sql).rows if row[0] is not none -%}{%- do out.append(row[0] | int) -%}{%- endfor -%}
  {{ return(out | sort) }}
{% endmacro %}


{#- The session's settings for a writer (a run, erase_keys), sent when it takes the model's lock
    (spark__take_model_lock), as Postgres sets its own there (_pg_settings). With Delta Lake: the
    partitions Delta rebuilds a table's state in (the list of its files, from its log) each time a
    statement reads a table that a commit changed since its last read, 50 unless the session sets
    spark.databricks.delta.snapshotPartitions: 50 tasks each time for tables of a few hundred files, and
    a run reads the tables it has just written many times (docs/benchmarks.md). Set to 8 for the session
    when the session leaves it unset; a value the profile's server_side_parameters or an earlier `set`
    gives is kept. Driver-side: no job. -#}
{% macro _spark_session_settings() %}
  {%- if auto_cdc._spark_session_has_delta() -%}
    {%- set key = 'spark.databricks.delta.snapshotPartitions' -%}
    {%- if (auto_cdc._query('set ' ~ key).rows[0][1] | string) == '<undefined>' -%}
      {% do auto_cdc._run_sql('set ' ~ key ~ ' = 8') %}
    {%- endif -%}
  {%- endif -%}
{% endmacro %}

{#- Session settings for reading and rewriting a parquet table's buckets (sent before each; not the
    writer's settings, _spark_session_settings): dynamic partition overwrite, and partition pruning
    that survives the Hive metastore's filter parser, which rejects a column name starting with `_`
    (then Spark lists the partitions and prunes them itself). -#}
{% macro _spark_bucket_settings() %}
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


{#- A value read back into a later statement as a literal of its Spark type `type_name`, so that the
    statement does not read its table again: `select` reads it as a string, and the literal is
    `before ~ string ~ after` (`null` where it is NULL). Exact for every type it takes: a timestamp
    goes by its microseconds (a local time string could be ambiguous in the session's time zone), a
    string by the hex of its bytes (no escaping). none for other types: read the value in SQL. -#}
{% macro _spark_literal_parts(expr, type_name) %}
  {%- set t = (type_name or '') | lower -%}
  {%- if t == 'timestamp' -%}
    {{ return({'select': 'cast(unix_micros(' ~ expr ~ ') as string)', 'before': 'timestamp_micros(', 'after': ')'}) }}
  {%- elif t == 'string' or t.startswith('varchar') or t.startswith('char') -%}
    {{ return({'select': 'hex(' ~ expr ~ ')', 'before': "cast(unhex('", 'after': "') as string)"}) }}
  {%- elif t in ['tinyint', 'smallint', 'int', 'bigint', 'float', 'double', 'date', 'timestamp_ntz', 'boolean'] or t.startswith('decimal') -%}
    {{ return({'select': 'cast(' ~ expr ~ ' as string)', 'before': "cast('", 'after': "' as " ~ t ~ ")"}) }}
  {%- endif -%}
  {{ return(none) }}
{% endmacro %}

{% macro _spark_literal(parts, value) %}
  {{ return('null' if value is none else parts.before ~ value ~ parts.after) }}
{% endmacro %}


{#- An erase a killed writer left part done (spark__repair_killed_operation): the keys of its table
    `erased` (whose columns are the model's key columns) deleted from the log and the target, the tables
    a killed run left dropped, then `erased` itself. Every step can be repeated. -#}
{% macro _spark_finish_erase(target, erased) %}
  {%- set keys = auto_cdc._column_types('select * from ' ~ erased).keys() | list -%}
  {%- do log("auto_cdc " ~ target ~ ": finishing an erase_keys that stopped part way (" ~ erased ~ " holds its keys)", info=true) -%}
  {%- set log = auto_cdc._bookkeeping_relation(target, auto_cdc._names().log_suffix, auto_cdc._model_node(target, 'auto_cdc').config) -%}
  {%- for rel in [log, target] -%}
    {% do auto_cdc.delete_keys(rel, erased, keys) %}
  {%- endfor -%}
  {% do auto_cdc.drop_erasure_keys(target, erased) %}
{% endmacro %}

{#- The temp tables of the model's runs (named as _relations names them) that a killed run left beside
    its target, dropped: one listing. -#}
{% macro _spark_drop_run_tables(target) %}
  {%- set n = auto_cdc._names() -%}
  {%- set names = [] -%}
  {%- for key, suffix in n.items() if key.endswith('_suffix') and key not in ['log_suffix', 'runs_suffix', 'changes_suffix', 'seq_type_suffix', 'lock_suffix', 'erased_suffix'] -%}
    {%- do names.append(auto_cdc._side_identifier(target.identifier, suffix) | lower) -%}
  {%- endfor -%}
  {%- for row in auto_cdc._query('show tables in ' ~ target.schema ~ " like '" ~ (names | join('|')) ~ "'").rows if not row[2] -%}
    {% do auto_cdc._run_sql('drop table if exists ' ~ target.incorporate(path={'identifier': row[1]})) %}
  {%- endfor -%}
{% endmacro %}
