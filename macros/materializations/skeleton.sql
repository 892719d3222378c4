{#-
  The run of an auto_cdc or auto_cdc_snapshot model, laid out like dbt's own incremental
  materialization: hooks, the model's lock, the relations (the target, its event log and run log, this
  run's temp tables), the configs, then inside the run's transaction:
    1. stage the source into the run's batch of events (steps/stage.sql; snapshots: strategies/snapshot.sql)
       and lay out its columns (`cols`: steps/schema.sql);
    2. gather the run's facts and check the batch, in one round trip where the engine allows, and decide
       the run's plan once (plan/plan.sql): its strategy and what the strategy needs to know;
    3. run the strategy, a straight list of steps (strategies/): the first run, nothing new, every key in
       order (the common run), or the replay of the keys that need it;
    4. record the run in the run log (steps/record.sql), then grants, docs and the commit.
  `shape` is 'feed' (auto_cdc) or 'snapshot' (auto_cdc_snapshot). The state a step reads is one dict,
  `args`: the resolved config (cfg), the relations (rel), the run's columns (cols) and its plan (plan),
  each built once and never updated in place (docs/contributing.md, "The state of a run").
-#}
{% macro _materialize(shape) %}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  -- the model's lock, held until the commit: a concurrent run of the same model waits (writer.sql)
  {%- set engine = auto_cdc._engine() -%}
  {%- set held_lock = auto_cdc.lock_model(this) if engine.model_lock else none -%}

  -- relations: the target, its event log and run log, this run's temp tables
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set rel = auto_cdc._relations(target_relation, shape) -%}

  -- configs
  {%- set full_refresh_mode = should_full_refresh() or (existing_relation is not none and not existing_relation.is_table) -%}
  {%- set incremental = existing_relation is not none and rel.existing_log is not none and rel.existing_runs is not none and not full_refresh_mode -%}
  {#- a partly missing history, or a refused full refresh, fails here (guards.sql); an incremental run has it
      all. A bookkeeping_schema the on-run-start hook did not create (create_bookkeeping_schemas) is created. -#}
  {%- if not incremental -%}
    {% do auto_cdc.check_bookkeeping(existing_relation, rel) %}
    {%- if rel.existing_log is none and rel.log.schema != target_relation.schema
          and not adapter.check_schema_exists(rel.log.database, rel.log.schema) -%}{% do create_schema(rel.log) %}{%- endif -%}
  {%- endif -%}
  {%- set grant_config = config.get('grants') -%}
  {%- set sql = auto_cdc._model_sql(incremental) -%}
  {%- set source = auto_cdc._source_columns(sql, {'target': rel.target, 'log': rel.log, 'runs': rel.runs} if incremental else {},
                                            rel.runs if incremental else none) -%}
  {%- set cfg = auto_cdc._config(shape, source.names, source.last_run) -%}

  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  -- 1. the batch, and its columns
  {%- if engine.drops_temp -%}{% do auto_cdc._drop_temp_relations(rel.temp, leftover=true) %}{%- endif -%}
  {%- set staged = auto_cdc._stage_feed(cfg, rel, sql, incremental, source.types) if shape == 'feed'
        else auto_cdc._stage_snapshots(cfg, rel, sql, incremental, source.types) -%}
  -- 2. the run's facts and checks, and its plan
  {%- set args = {'cfg': cfg, 'rel': rel, 'cols': staged.cols} -%}
  {%- set args = dict(args, plan=auto_cdc._plan(args, incremental, [existing_relation] + rel.existing)) -%}
  -- 3. the strategy
  {%- if args.plan.strategy == 'first_run' -%}
    {%- set written = auto_cdc._first_run(args) -%}
  {%- elif args.plan.strategy == 'in_order' -%}
    {%- set written = auto_cdc._in_order(args) -%}
  {%- elif args.plan.strategy == 'replay' -%}
    {%- set written = auto_cdc._replay(args) -%}
  {%- else -%}
    {%- set written = none -%}
  {%- endif -%}
  -- 4. the run log, then grants and docs
  {% do auto_cdc._record_run(args, written) %}
  {% do auto_cdc.writer_done() %}
  {%- if engine.drops_temp -%}{% do auto_cdc._drop_temp_relations(rel.temp) %}{%- endif -%}
  {% do auto_cdc.apply_model_grants([target_relation] + rel.bookkeeping, grant_config,
                                    should_revoke(existing_relation, full_refresh_mode)) %}
  {% do persist_docs(target_relation, model) %}

  {{ run_hooks(post_hooks, inside_transaction=True) }}
  -- `COMMIT` happens here, then the lock's release (writer.sql)
  {% do auto_cdc.writer_commit(held_lock) %}
  {{ run_hooks(post_hooks, inside_transaction=False) }}

  {#- every relation the run created goes into dbt's cache, so later models of the run see them -#}
  {{ return({'relations': [target_relation] + rel.bookkeeping}) }}

{% endmacro %}
