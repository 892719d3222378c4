{#-
  Some keys are replayed from their whole history in the log: a late event lands in its place, a
  truncate voids what came before it, a hand edit of the key's rows is folded into the log first
  (shapes/edits.sql), a killed run's keys are computed again. The keys sorted as in order (when the
  plan classified them) take the in-order rows. The steps: the replayed keys' events read from the log
  once (history), the affected keys' current rows (held), the hand edits folded in, the log append (and
  the history's), the keys' new rows (desired), the stale and missing rows, then the write.
-#}
{% macro _replay(args) %}
  {%- set rel, plan, cols = args.rel, args.plan, args.cols -%}
  {%- if plan.history_ready -%}
    {#- the copy of the log the run read for the batch's keys holds every event of the replayed keys, unless a
        truncate or a killed run added keys beyond the batch's, or this run changed the log's columns since -#}
    {%- set whole_log = plan.truncates or plan.killed or cols.add_columns or cols.drop_columns or cols.widen_columns -%}
    {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(rel.temp.history,
          auto_cdc._logged_events_sql(args, none, none if whole_log else plan.logged))) %}
  {%- endif -%}
  {%- if not plan.held_first -%}
    {% do auto_cdc._run_sql(auto_cdc.one_partition_reads(args, auto_cdc.create_temp_table_sql(rel.temp.held, auto_cdc.held_rows_sql(args)))) %}
  {%- endif -%}
  {%- set edited_keys = 0 if plan.unedited else auto_cdc.fold_target_edits(args, plan.run_id) -%}
  {%- if edited_keys > 0 or plan.has_edits -%}
    {%- for relation in [rel.log] + ([rel.temp.history] if plan.history_ready else []) -%}
      {% do auto_cdc._run_sql(auto_cdc.drop_replaced_edits_sql(args, relation)) %}
    {%- endfor -%}
  {%- endif -%}
  {% do auto_cdc.log_new_events(args, plan.run_id) %}
  {%- if plan.history_ready -%}
    {% do auto_cdc._run_sql(auto_cdc.append_to_history_sql(args, plan.run_id)) %}
  {%- endif -%}
  {% do auto_cdc._run_statements(auto_cdc.one_partition_reads(args,
        [auto_cdc.create_temp_table_sql(rel.temp.desired, auto_cdc.desired_rows_sql(args)),
         auto_cdc.create_temp_table_sql(rel.temp.stale, auto_cdc.stale_rows_sql(args)),
         auto_cdc.create_temp_table_sql(rel.temp.missing, auto_cdc.missing_rows_sql(args))])) %}
  {{ return(dict(auto_cdc._write(args), edited_keys=edited_keys)) }}
{% endmacro %}
