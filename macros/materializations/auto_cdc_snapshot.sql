{#-
  materialized='auto_cdc_snapshot': the model returns full snapshots of a source.
  Each new version is diffed against the one before it and the differences are applied like a
  change feed whose sequence is the version, through the same apply as auto_cdc.
-#}
{% materialization auto_cdc_snapshot, default %}

  {%- set n = auto_cdc._names() -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  -- the model's lock, held until the commit: a concurrent run of the same model waits (helpers.sql)
  {% do auto_cdc.lock_model(this) %}

  -- relations: the target, its event log and run log, this run's temp tables
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set rel = auto_cdc._relations(target_relation, ['snapshot']) -%}
  {%- set temp = rel.temp -%}

  -- configs
  {%- set full_refresh_mode = should_full_refresh() or (existing_relation is not none and not existing_relation.is_table) -%}
  {%- set incremental = existing_relation is not none and rel.existing_log is not none and rel.existing_runs is not none and not full_refresh_mode -%}
  -- a partly missing history is an error, never an implicit rebuild (guards.sql)
  {% do auto_cdc.check_bookkeeping(existing_relation, rel) %}
  {%- set grant_config = config.get('grants') -%}
  {%- set source_sql = auto_cdc._model_sql(incremental) -%}
  {%- set cfg = auto_cdc._resolve_snapshot_config(get_columns_in_query(source_sql)) -%}

  -- inside the run's transaction (begun by the lock on Postgres):
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  -- stage the snapshots and check them before anything is written
  {% do auto_cdc._drop_temp_relations(temp, leftover=true) %}
  {%- set args = {
        'cfg': cfg, 'sql': source_sql, 'changes': rel.changes, 'log': rel.log, 'runs': rel.runs,
        'target': target_relation, 'seq_type': none, 'output': cfg.output, 'tracked': cfg.tracked,
        'stored': cfg.stored, 'add_columns': [], 'drop_columns': [],
        'cursor_sql': '(select max(' ~ auto_cdc._q(n.version) ~ ') from ' ~ temp.snapshot ~ ')',
        'once_skipped': incremental and config.get('once', false) } -%}
  {%- do args.update(temp) -%}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(temp.snapshot, auto_cdc.stage_snapshot_sql(args))) %}
  {% do auto_cdc._check_snapshot(cfg, temp.snapshot) %}
  {%- if incremental -%}
    {%- do args.update(auto_cdc._plan_schema_changes(args)) -%}
    {%- set new_versions = auto_cdc._warn_skipped_versions(args) -%}
  {%- endif -%}
  {%- do args.update({'target_columns': auto_cdc._target_columns(cfg, args.output)}) -%}

  -- diff each new version against the one before it: one version (without snapshot_version, the run's
  -- snapshot) by a join with the current rows, several in one pass ordered by version
  {%- set one_version = incremental and (new_versions == 1 if cfg.snapshot_version else not args.once_skipped) -%}
  {%- set diff_sql = auto_cdc.snapshot_join_diff_sql(args) if one_version else auto_cdc.snapshot_diff_sql(args, incremental) -%}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(temp.batch, diff_sql)) %}
  {% do auto_cdc._check_delete_fraction(args, incremental) %}

  -- the event log and the run log, then the apply (macros/builders/apply.sql)
  {% do auto_cdc._apply_batch(args, incremental, [existing_relation] + rel.existing) %}

  {% do auto_cdc._drop_temp_relations(temp) %}

  {% do auto_cdc._apply_grants([target_relation] + rel.bookkeeping, grant_config,
                                should_revoke(existing_relation, full_refresh_mode)) %}
  {% do persist_docs(target_relation, model) %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  -- `COMMIT` happens here
  {{ adapter.commit() }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {#- every relation the run created goes into dbt's cache, so later models of the run see them -#}
  {{ return({'relations': [target_relation] + rel.bookkeeping}) }}

{%- endmaterialization %}
