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


{#- Delete the rows of `relation` whose keys (`key_columns`) are in the table `keys`; returns how many it
    deleted: the number the operation reports and that erase_keys takes as whether it changed the target. -#}
{% macro delete_keys(relation, keys, key_columns) %}
  {{ return(adapter.dispatch('delete_keys', 'auto_cdc')(relation, keys, key_columns)) }}
{% endmacro %}

{#- A count, then the DELETE, in the operation's transaction. -#}
{% macro default__delete_keys(relation, keys, key_columns) %}
  {%- set cols = auto_cdc._cols(key_columns) -%}
  {%- set where = '(' ~ cols ~ ') in (select ' ~ cols ~ ' from ' ~ keys ~ ')' -%}
  {%- set count = auto_cdc._scalar('select count(*) from ' ~ relation ~ ' where ' ~ where) | int -%}
  {% do auto_cdc._run_sql('delete from ' ~ relation ~ ' where ' ~ where) %}
  {{ return(count) }}
{% endmacro %}

{#- Spark (Delta, the one format erase_keys runs on): Delta's DELETE takes no subquery, so a MERGE whose
    only action deletes (delete_matching_sql). No transaction spans two statements, and the MERGE returns
    the rows it deleted (`num_deleted_rows`), so the count is the commit's own: a change committed by
    someone else between a count and the MERGE is never taken for the erase's (erase_keys'
    _keep_target_unedited, which counts it among the commits that name no run). -#}
{% macro spark__delete_keys(relation, keys, key_columns) %}
  {%- set result = auto_cdc._query(auto_cdc.delete_matching_sql(relation, keys, auto_cdc._eq(key_columns, 'l', 'b'))) -%}
  {%- set names = result.column_names | map('lower') | list -%}
  {%- set at = names.index('num_deleted_rows') if 'num_deleted_rows' in names else 0 -%}
  {{ return((result.rows[0][at] | int) if result.rows | length > 0 and result.rows[0][at] is not none else 0) }}
{% endmacro %}


{#- The table of an erasure's keys (erase_keys). -#}
{% macro erasure_keys_relation(target) %}
  {{ return(adapter.dispatch('erasure_keys_relation', 'auto_cdc')(target)) }}
{% endmacro %}

{#- A temp table of the operation's transaction. -#}
{% macro default__erasure_keys_relation(target) %}
  {{ return(auto_cdc._temp_relation(target, auto_cdc._names().erased_suffix)) }}
{% endmacro %}

{#- Spark: a Delta table beside the target (no transaction holds the erase together: a killed erase
    leaves it, and the next writer finishes the erase from it: repair_killed_operation). -#}
{% macro spark__erasure_keys_relation(target) %}
  {{ return(auto_cdc._side_relation(target, auto_cdc._names().erased_suffix)) }}
{% endmacro %}


{#- Drop the table of an erasure's keys (`relation`) once the erase of keys of `target` is done. -#}
{% macro drop_erasure_keys(target, relation) %}
  {{ return(adapter.dispatch('drop_erasure_keys', 'auto_cdc')(target, relation)) }}
{% endmacro %}

{#- DuckDB: a temp table of the operation's connection, which dbt closes after it (a later create
    replaces it); Postgres: dropped by the commit (ON COMMIT DROP). -#}
{% macro default__drop_erasure_keys(target, relation) %}
{% endmacro %}

{#- Spark: with the tables a killed run left (they may hold the erased keys' rows), as the erase's last
    statements; until then a killed erase can be finished from it (repair_killed_operation). -#}
{% macro spark__drop_erasure_keys(target, relation) %}
  {% do auto_cdc._spark_drop_run_tables(target) %}
  {% do auto_cdc._run_sql('drop table if exists ' ~ relation) %}
{% endmacro %}


{#- Whether an operation takes a run id (a row in the run log, as a run does). -#}
{% macro operations_take_run_ids() %}
  {{ return(adapter.dispatch('operations_take_run_ids', 'auto_cdc')()) }}
{% endmacro %}

{% macro default__operations_take_run_ids() %}
  {{ return(true) }}
{% endmacro %}

{#- Spark: a killed run's events in the log carry the next run id, which the next run takes again to
    find them (killed_run_events_sql): an operation that took it would hide them. -#}
{% macro spark__operations_take_run_ids() %}
  {{ return(false) }}
{% endmacro %}


{#- The statements that rewrite `relations` after an erase so that no file of the database keeps the
    erased rows' bytes (erase_keys' `vacuum`), each run on its own outside a transaction; none where the
    engine has no such statement. -#}
{% macro vacuum_sql(relations) %}
  {{ return(adapter.dispatch('vacuum_sql', 'auto_cdc')(relations)) }}
{% endmacro %}

{#- DuckDB: a checkpoint rewrites the row groups of deleted rows and reuses the freed blocks, but a
    freed block keeps its bytes until it is written again (docs/operations.md). -#}
{% macro default__vacuum_sql(relations) %}
  {{ return(none) }}
{% endmacro %}

{#- Postgres: a DELETE leaves the row in its page until VACUUM prunes it, and a pruned row's bytes stay
    in the page's free space; VACUUM FULL writes each table (and its indexes) anew, without the dead
    rows, and removes the old files. -#}
{% macro postgres__vacuum_sql(relations) %}
  {%- set statements = [] -%}
  {%- for rel in relations -%}{%- do statements.append('vacuum (full, analyze) ' ~ rel) -%}{%- endfor -%}
  {{ return(statements) }}
{% endmacro %}


{#- What a killed writer of the model left half done, finished by the next writer once it holds the
    model's lock (writer_lock; a run: lock_model). DuckDB and Postgres: nothing (a killed writer's
    transaction rolled back). -#}
{% macro repair_killed_operation(target) %}
  {{ return(adapter.dispatch('repair_killed_operation', 'auto_cdc')(target)) }}
{% endmacro %}

{% macro default__repair_killed_operation(target) %}
{% endmacro %}

{#- Spark: no transaction holds an erase together; the table of its keys (erasure_keys_relation) is
    its first write and dropped by its last, so one left beside the target is a killed erase's: its
    keys' rows are deleted from the log and the target (again, where the erase had), and the table
    dropped (_spark_finish_erase). The lease the killed writer held has lapsed, or was dropped, when
    the next writer gets here. A run finds the table in the listing it makes anyway (spark__lock_model). -#}
{% macro spark__repair_killed_operation(target) %}
  {%- set erased = auto_cdc._side_relation(target, auto_cdc._names().erased_suffix) -%}
  {%- if auto_cdc._query('show tables in ' ~ erased.schema ~ " like '" ~ (erased.identifier | lower) ~ "'").rows | length > 0 -%}
    {% do auto_cdc._spark_finish_erase(target, erased) %}
  {%- endif -%}
{% endmacro %}
