{#-
  Generic test: an auto_cdc or auto_cdc_snapshot target is what its event log says. Every key is
  recomputed from the model's event log (<model>__auto_cdc_log) by the package's own builders, as a
  run replays a key (SCD1, SCD2, bitemporal; hand edits folded into the log count, with the events
  they replaced left out), and every row that differs from the target is returned, tagged with the
  side it is missing from. A hand edit not yet folded in (the next run that touches its key does
  that) is a difference until then.

      models:
        - name: users_history
          data_tests:
            - auto_cdc.matches_log

  The model's config is read from dbt's graph (a test runs outside the model's own context) and its
  columns from the target and the log, as `auto_cdc.compact` reads them.
-#}
{% test matches_log(model) %}
  {%- if not execute -%}
select 1 as diff where 1 = 0
  {%- else -%}
  {%- set n = auto_cdc._names() -%}
  {%- set node = auto_cdc._model_node(model, 'auto_cdc.matches_log') -%}
  {%- set target = api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias or node.name, type='table') -%}
  {%- set log = auto_cdc._bookkeeping_relation(target, n.log_suffix, node.config) -%}
  {%- if load_relation(log) is none -%}
    {%- do exceptions.raise_compiler_error("auto_cdc.matches_log: model '" ~ node.name ~ "' has no event log " ~ log ~ "; run the model first") -%}
  {%- endif -%}
  {%- set target_columns = adapter.get_columns_in_relation(target) | map(attribute='name') | list -%}
  {%- set cfg = auto_cdc._logged_config(node, adapter.get_columns_in_relation(log) | map(attribute='name') | list, target_columns) -%}
  {%- set compared = [] -%}
  {%- for c in target_columns if not (c | lower).startswith(n.internal_prefix | lower) -%}{%- do compared.append(c) -%}{%- endfor -%}
  {%- set replayed = auto_cdc._replayed_rows_sql(cfg, {'target': target, 'log': log,
        'seq_type': auto_cdc._side_relation(target, n.seq_type_suffix).include(database=false)}) -%}
  {%- set cols = auto_cdc._cols(compared) -%}
(select 'not what the log says' as diff, {{ cols }} from (select {{ cols }} from {{ target }} except all select {{ cols }} from ({{ replayed }}) r) a)
union all
(select 'missing from the target' as diff, {{ cols }} from (select {{ cols }} from ({{ replayed }}) r except all select {{ cols }} from {{ target }}) b)
  {%- endif -%}
{% endtest %}


{#- The auto_cdc or auto_cdc_snapshot model whose target `relation` is, from dbt's graph. -#}
{% macro _model_node(relation, caller_name) %}
  {%- if relation is string or relation.identifier is none -%}
    {%- do exceptions.raise_compiler_error(caller_name ~ ": expected a model's relation, got " ~ relation ~ " (a `where` config is not supported)") -%}
  {%- endif -%}
  {%- set found = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model'
        and (node.alias or node.name) | lower == relation.identifier | lower and (node.schema or '') | lower == (relation.schema or '') | lower -%}
    {%- do found.append(node) -%}
  {%- endfor -%}
  {%- if found | length != 1 or found[0].config.materialized not in ['auto_cdc', 'auto_cdc_snapshot'] -%}
    {%- do exceptions.raise_compiler_error(caller_name ~ ": " ~ relation ~ " is not the target of an auto_cdc or auto_cdc_snapshot model") -%}
  {%- endif -%}
  {{ return(found[0]) }}
{% endmacro %}


{#- A model's resolved config (the shape _resolve_config returns (plan/config.sql), as far as the builders read it), from
    its node's config, its log's columns and its target's: the output columns are the target's (less
    the history columns), the stored ones the log's. A snapshot model's sequence is its version. -#}
{% macro _logged_config(node, log_columns, target_columns) %}
  {%- set n = auto_cdc._names() -%}
  {%- set config_of = node.config -%}
  {%- set errors = [] -%}
  {%- set internal = n.internal_prefix | lower -%}
  {%- set history = [n.start_at, n.end_at, n.system_start_at, n.system_end_at] | map('lower') | list -%}
  {%- set snapshot = config_of.materialized == 'auto_cdc_snapshot' -%}
  {%- set scd = auto_cdc._scd_type(config_of.get('stored_as_scd_type', 1), errors) -%}
  {%- set logged, output = [], [] -%}
  {%- for c in log_columns if not (c | lower).startswith(internal) -%}{%- do logged.append(c) -%}{%- endfor -%}
  {%- for c in target_columns if not (c | lower).startswith(internal) and (c | lower) not in history -%}{%- do output.append(c) -%}{%- endfor -%}
  {%- set keys = auto_cdc._resolve_list('keys', auto_cdc._as_list(config_of.get('keys')) or [], logged, errors) -%}
  {%- set seqs = [n.version] if snapshot else auto_cdc._resolve_list('sequence_by', auto_cdc._as_list(config_of.get('sequence_by')) or [], logged, errors) -%}
  {%- set system_seq = config_of.get('system_sequence_by') -%}
  {%- set system_seq = auto_cdc._resolve_list('system_sequence_by', [system_seq], logged, errors)[0] if system_seq else none -%}
  {%- set tracked = output -%}
  {%- if config_of.get('track_history_column_list') is not none -%}
    {%- set tracked = auto_cdc._resolve_list('track_history_column_list', auto_cdc._as_list(config_of.get('track_history_column_list')), output, errors) -%}
  {%- elif config_of.get('track_history_except_column_list') is not none -%}
    {%- set untracked = auto_cdc._as_list(config_of.get('track_history_except_column_list')) | map('lower') | list -%}
    {%- set tracked = [] -%}
    {%- for c in output if (c | lower) not in untracked -%}{%- do tracked.append(c) -%}{%- endfor -%}
  {%- endif -%}
  {%- set payload = [] -%}
  {%- for c in output if c not in keys and c not in seqs -%}{%- do payload.append(c) -%}{%- endfor -%}
  {%- set ignore_null = [] -%}
  {%- if config_of.get('ignore_null_updates') -%}
    {%- set ignore_null = payload -%}
  {%- elif config_of.get('ignore_null_updates_column_list') is not none -%}
    {%- set ignore_null = auto_cdc._resolve_list('ignore_null_updates_column_list', auto_cdc._as_list(config_of.get('ignore_null_updates_column_list')), payload, errors) -%}
  {%- elif config_of.get('ignore_null_updates_except_column_list') is not none -%}
    {%- set kept = auto_cdc._as_list(config_of.get('ignore_null_updates_except_column_list')) | map('lower') | list -%}
    {%- for c in payload if (c | lower) not in kept -%}{%- do ignore_null.append(c) -%}{%- endfor -%}
  {%- endif -%}
  {%- if errors -%}
    {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ node.name ~ "': its config does not fit its log:\n  - " ~ (errors | join('\n  - '))) -%}
  {%- endif -%}
  {%- set listed = n.columns | lower in log_columns | map('lower') | list -%}
  {{ return({'scd': scd, 'key_columns': keys, 'seq_columns': seqs,
             'system_seq': system_seq, 'output': output, 'payload': payload, 'tracked': tracked, 'ignore_null': ignore_null,
             'stored': logged + ([n.version] if snapshot else []) + ([n.columns] if listed else []),
             'columns_to_update': config_of.get('columns_to_update') if listed else none}) }}
{% endmacro %}


{#- The rows the package's builders make from the whole of a model's event log, every key replayed
    (replayed_rows_sql, the masks of folded hand edits honoured: plan.has_edits). The one place
    matches_log calls into the apply's builders, with the `args` they read (the config, the relations,
    the run's columns and a replay's plan): where those change, this changes with them. -#}
{% macro _replayed_rows_sql(cfg, relations) %}
  {%- set n = auto_cdc._names() -%}
  {%- set keys = '(select distinct ' ~ auto_cdc._cols(cfg.key_columns) ~ ' from ' ~ relations.log ~ ' where '
        ~ auto_cdc._q(n.op) ~ " in ('" ~ n.upsert ~ "', '" ~ n.delete ~ "'))" -%}
  {%- set args = {'cfg': cfg,
                  'rel': {'target': relations.target, 'log': relations.log, 'seq_type': relations.seq_type, 'temp': {'affected': keys}},
                  'cols': {'output': cfg.output, 'tracked': cfg.tracked, 'stored': cfg.stored, 'types': {}},
                  'plan': {'strategy': 'replay', 'incremental': true, 'has_edits': true, 'killed': false, 'truncates': false,
                           'classified': false, 'replay_keys': none, 'history_ready': false, 'held_first': false,
                           'held_from_log': false, 'target_filter': none, 'logged': relations.log}} -%}
  {{ return(auto_cdc.replayed_rows_sql(args)) }}
{% endmacro %}
