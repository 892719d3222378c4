{#-
  One place for every name the package reserves or creates. Python mirrors this table in
  auto_cdc_testkit/names.py, and tests/unit/test_names.py checks that the two agree, so keep the
  literal `'key': 'value'` form below.
-#}
{% macro _names() %}
  {% do return({
    'start_at': '__START_AT',
    'end_at': '__END_AT',
    'system_start_at': '__SYSTEM_START_AT',
    'system_end_at': '__SYSTEM_END_AT',
    'internal_prefix': '__auto_cdc_',
    'op': '__auto_cdc_op',
    'run': '__auto_cdc_run',
    'cursor': '__auto_cdc_cursor',
    'columns': '__auto_cdc_columns',
    'edit': '__auto_cdc_edit',
    'rank': '__auto_cdc_rank',
    'fast': '__auto_cdc_fast',
    'new_events': '__auto_cdc_new_events',
    'held_at': '__auto_cdc_held_at',
    'merge_action': '__auto_cdc_upsert',
    'fingerprint': '__auto_cdc_fp',
    'log_suffix': '__auto_cdc_log',
    'runs_suffix': '__auto_cdc_runs',
    'seq_type_suffix': '__auto_cdc_seq',
    'batch_suffix': '__auto_cdc_batch',
    'new_suffix': '__auto_cdc_new',
    'logged_suffix': '__auto_cdc_logged',
    'affected_suffix': '__auto_cdc_affected',
    'history_suffix': '__auto_cdc_history',
    'held_suffix': '__auto_cdc_held',
    'desired_suffix': '__auto_cdc_desired',
    'stale_suffix': '__auto_cdc_stale',
    'missing_suffix': '__auto_cdc_missing',
    'recorded_suffix': '__auto_cdc_recorded',
    'edited_suffix': '__auto_cdc_edited',
    'edits_suffix': '__auto_cdc_edits',
    'changes_suffix': '__auto_cdc_changes',
    'prior_suffix': '__auto_cdc_prior',
    'snapshot_suffix': '__auto_cdc_snapshot',
    'version': '__auto_cdc_version',
    'current': '__auto_cdc_current',
    'bucket': '__auto_cdc_bucket',
    'rewrite_suffix': '__auto_cdc_rewrite',
    'lock_suffix': '__auto_cdc_lock',
    'erased_suffix': '__auto_cdc_erased',
    'upsert': 'upsert',
    'delete': 'delete',
    'truncate': 'truncate',
    'mask': 'mask',
    'feed_sequence': '_cdc_sequence',
    'feed_deleted': '_cdc_deleted'
  }) %}
{% endmacro %}


{#- Identifiers beside the target: `<target><suffix>`, shortened with a hash when the engine's
    identifier limit would otherwise cut the suffix off and make two of them collide. The limit is
    in bytes (Postgres: 63 bytes of UTF-8; `ü` takes two), so the name is measured and cut in bytes,
    never inside a character. auto_cdc_testkit/names.py mirrors this. -#}
{% macro _side_identifier(identifier, suffix) %}
  {%- set limit = 63 -%}
  {%- set name = identifier ~ suffix -%}
  {%- if auto_cdc._byte_length(name) > limit -%}
    {%- set budget = limit - auto_cdc._byte_length(suffix) - 9 -%}
    {%- set kept = namespace(prefix='', bytes=0, full=false) -%}
    {%- for ch in identifier -%}
      {%- set size = auto_cdc._byte_length(ch) -%}
      {%- if kept.full or kept.bytes + size > budget -%}
        {%- set kept.full = true -%}
      {%- else -%}
        {%- set kept.prefix = kept.prefix ~ ch -%}
        {%- set kept.bytes = kept.bytes + size -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set name = kept.prefix ~ '_' ~ local_md5(identifier)[:8] ~ suffix -%}
  {%- endif -%}
  {% do return(name) %}
{% endmacro %}


{% macro _byte_length(text) %}
  {% do return(text.encode('utf-8') | length) %}
{% endmacro %}


{% macro _side_relation(target_relation, suffix) %}
  {% do return(target_relation.incorporate(path={'identifier': auto_cdc._side_identifier(target_relation.identifier, suffix)}, type='table')) %}
{% endmacro %}


{#- A relation of a model's bookkeeping (its event log, its run log, and on Spark its lock):
    `<target><suffix>` in the schema the model's `bookkeeping_schema` names, else beside the target.
    `model_config` is the model's config: a run's `config`, or its node's from dbt's graph (an
    operation, a test). The change feed stays beside the target, where its readers look for it
    (docs/decisions.md), and is named with _side_relation. -#}
{% macro _bookkeeping_relation(target_relation, suffix, model_config) %}
  {%- set relation = auto_cdc._side_relation(target_relation, suffix) -%}
  {%- set schema = model_config.get('bookkeeping_schema') -%}
  {% do return(relation.incorporate(path={'schema': schema}) if schema else relation) %}
{% endmacro %}
