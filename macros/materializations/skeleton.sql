{#-
  The run of an auto_cdc or auto_cdc_snapshot model, laid out like dbt's own incremental
  materialization: hooks, the model's lock, the relations (the target, its event log and run log, this
  run's temp tables), the configs, then inside the run's transaction the shape's own staging (a change
  feed: stage.sql; snapshots: snapshot.sql), which ends with the run's plan (_plan), and the shared
  apply (builders/apply.sql), grants, docs and the commit. `shape` is 'feed' or 'snapshot'.
-#}
{% macro _materialize(shape) %}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  -- the model's lock, held until the commit: a concurrent run of the same model waits (locking.sql)
  {%- set held_lock = auto_cdc.lock_model(this) -%}

  -- relations: the target, its event log and run log, this run's temp tables
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set rel = auto_cdc._relations(target_relation, shape) -%}

  -- configs
  {%- set full_refresh_mode = should_full_refresh() or (existing_relation is not none and not existing_relation.is_table) -%}
  {%- set incremental = existing_relation is not none and rel.existing_log is not none and rel.existing_runs is not none and not full_refresh_mode -%}
  -- a partly missing history is an error, never an implicit rebuild (guards.sql)
  {% do auto_cdc.check_bookkeeping(existing_relation, rel) %}
  {%- set grant_config = config.get('grants') -%}
  {%- set run = {'rel': rel, 'incremental': incremental, 'sql': auto_cdc._model_sql(incremental)} -%}
  {%- set resolved = auto_cdc._resolve_feed(run) if shape == 'feed' else auto_cdc._resolve_snapshots(run) -%}

  -- inside the run's transaction (begun by the lock on Postgres):
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  -- stage the source and check it before anything is written
  {% do auto_cdc._drop_temp_relations(rel.temp, leftover=true) %}
  {%- set args = auto_cdc._stage_feed(run, resolved) if shape == 'feed' else auto_cdc._stage_snapshots(run, resolved) -%}

  -- the event log and the run log, then the apply (macros/builders/apply.sql)
  {% do auto_cdc._apply_batch(args, incremental, [existing_relation] + rel.existing) %}
  {% do auto_cdc.writer_done() %}

  {% do auto_cdc._drop_temp_relations(rel.temp) %}
  {% do auto_cdc._apply_grants([target_relation] + rel.bookkeeping, grant_config,
                                should_revoke(existing_relation, full_refresh_mode)) %}
  {% do persist_docs(target_relation, model) %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  -- `COMMIT` happens here, then the lock's release (writer.sql)
  {% do auto_cdc.writer_commit(held_lock) %}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {#- every relation the run created goes into dbt's cache, so later models of the run see them -#}
  {{ return({'relations': [target_relation] + rel.bookkeeping}) }}

{% endmacro %}


{#-
  The plan of a run, built once after its source is staged: the columns it keeps (output, tracked,
  stored: an incremental run follows on_schema_change, _plan_schema_changes), the target's columns
  (target_columns), the column types an incremental run read (types: {} on a first run), the schema
  changes it makes (add_columns, drop_columns, widen_columns), the bucket count of an engine that
  partitions by a bucket of the keys (spark_buckets: bucket_count), and what the shape asks of the
  apply: check_feed (a change feed is checked, R7), cursor_sql (the run's cursor, when it is not the
  batch's greatest), once_skipped (a `once` model's later run reads no snapshot), prior (what the
  engine read from the run log before staging: prior_runs, or none). `source`: the staged source;
  `types`: the column types already read with it (none: read them here).
-#}
{% macro _plan(cfg, rel, incremental, source, types, check_feed=false, cursor_sql=none, once_skipped=false, prior=none) %}
  {%- if incremental -%}
    {%- set columns = auto_cdc._plan_schema_changes(cfg, rel, source, types) -%}
  {%- else -%}
    {%- set columns = {'types': {}, 'output': cfg.output, 'tracked': cfg.tracked, 'stored': cfg.stored,
                       'add_columns': [], 'drop_columns': [], 'widen_columns': {}} -%}
  {%- endif -%}
  {{ return(auto_cdc._with(columns, {
       'target_columns': auto_cdc._target_columns(cfg, columns.output),
       'spark_buckets': auto_cdc.bucket_count(rel, incremental),
       'check_feed': check_feed, 'cursor_sql': cursor_sql, 'once_skipped': once_skipped, 'prior': prior})) }}
{% endmacro %}


{#- A new dict: `base` with the keys of `extra` set (the state of a run is never updated in place). -#}
{% macro _with(base, extra) %}
  {{ return(dict(base, **extra)) }}
{% endmacro %}
