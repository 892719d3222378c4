{#-
  materialized='auto_cdc': the model returns a change feed; its relation is the target
 . Laid out like dbt's own incremental materialization. The state is the event
  log beside the target (every event ever applied) and a run log (one row per run); see
  macros/builders/apply.sql for the apply step.
-#}
{% materialization auto_cdc, default %}

  {%- set n = auto_cdc._names() -%}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  -- the model's lock, held until the commit: a concurrent run of the same model waits (helpers.sql)
  {% do auto_cdc.lock_model(this) %}

  -- relations: the target, its event log and run log, this run's temp tables
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set rel = auto_cdc._relations(target_relation) -%}
  {%- set temp = rel.temp -%}

  -- configs
  {%- set full_refresh_mode = should_full_refresh() or (existing_relation is not none and not existing_relation.is_table) -%}
  {%- set incremental = existing_relation is not none and rel.existing_log is not none and rel.existing_runs is not none and not full_refresh_mode -%}
  -- a partly missing history is an error, never an implicit rebuild (guards.sql)
  {% do auto_cdc.check_bookkeeping(existing_relation, rel) %}
  {%- set grant_config = config.get('grants') -%}
  {%- set source_sql = auto_cdc._model_sql(incremental) -%}
  {%- set source = auto_cdc._source_columns(source_sql, {'target': target_relation, 'log': rel.log, 'runs': rel.runs} if incremental else {}) -%}
  {%- set cfg = auto_cdc._resolve_config(source.names) -%}

  -- inside the run's transaction (begun by the lock on Postgres):
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  -- stage the feed
  {% do auto_cdc._drop_temp_relations(temp, leftover=true) %}
  {%- set ctu_is_list = cfg.columns_to_update is not none and auto_cdc._is_list_type(
        auto_cdc._column_types('select ' ~ auto_cdc._q(cfg.columns_to_update) ~ ' from (' ~ source_sql ~ ') s').values() | first) -%}
  {%- set create_batch = auto_cdc.create_temp_table_sql(temp.batch, auto_cdc.stage_batch_sql({
        'cfg': cfg, 'sql': source_sql, 'runs': rel.runs if incremental else none,
        'columns_to_update_is_list': ctu_is_list})) -%}
  {#- an incremental run reads the column types of the target, its logs and the batch (unless the
      model's columns came with them) in the same round trip -#}
  {%- if incremental and not source.types -%}
    {%- do source.update({'types': auto_cdc._relation_types({'target': target_relation, 'log': rel.log, 'runs': rel.runs,
                                                             'source': temp.batch}, create_batch)}) -%}
  {%- else -%}
    {% do auto_cdc._run_sql(create_batch) %}
  {%- endif -%}
  {%- set args = {
        'cfg': cfg, 'changes': rel.changes, 'log': rel.log, 'runs': rel.runs, 'target': target_relation,
        'seq_type': auto_cdc._side_relation(target_relation, n.seq_type_suffix).include(database=false),
        'output': cfg.output, 'tracked': cfg.tracked, 'stored': cfg.stored,
        'add_columns': [], 'drop_columns': [] } -%}
  {%- do args.update(temp) -%}
  {%- if incremental and source.types -%}{%- do args.update({'types': source.types}) -%}{%- endif -%}
  {%- if incremental -%}
    {%- do args.update(auto_cdc._plan_schema_changes(args)) -%}
  {%- endif -%}
  {%- do args.update({'target_columns': auto_cdc._target_columns(cfg, args.output)}) -%}

  -- the apply checks it (R7) before anything is written
  {%- do args.update({'check_feed': true}) -%}

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
