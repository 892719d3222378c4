{#-
  Every key the new events touch takes them after everything applied to it, and holds the rows its
  events left (plan/plan.sql): each key's rows follow from its new events and its current row (the
  in-order rows, shapes/in_order.sql). The steps: the keys' current rows (SCD1 read them while the keys
  were sorted), the log append, the keys' new rows, then the write of the difference. Where no new row
  can equal a row it replaces (in_order_replaces_held), the held rows are the stale ones and the new
  rows the missing ones, with nothing to compare.
-#}
{% macro _in_order(args) %}
  {%- set rel, plan = args.rel, args.plan -%}
  {%- set statements = [] if plan.held_first else [auto_cdc.create_temp_table_sql(rel.temp.held, auto_cdc.held_rows_sql(args))] -%}
  {%- if plan.has_edits -%}{%- do statements.append(auto_cdc.drop_replaced_edits_sql(args, rel.log)) -%}{%- endif -%}
  {%- do statements.append(auto_cdc.append_to_log_sql(args, plan.run_id)) -%}
  {%- do statements.append(auto_cdc.create_temp_table_sql(rel.temp.desired, auto_cdc.in_order_rows_sql(args))) -%}
  {%- if auto_cdc.in_order_replaces_held(args) -%}
    {% do auto_cdc._run_statements(auto_cdc.one_partition_reads(args, statements)) %}
    {%- set args = dict(args, rel=dict(rel, temp=dict(rel.temp, stale=rel.temp.held, missing=rel.temp.desired))) -%}
  {%- else -%}
    {% do auto_cdc._run_statements(auto_cdc.one_partition_reads(args, statements
          + [auto_cdc.create_temp_table_sql(rel.temp.stale, auto_cdc.stale_rows_sql(args)),
             auto_cdc.create_temp_table_sql(rel.temp.missing, auto_cdc.missing_rows_sql(args))])) %}
  {%- endif -%}
  {#- the rows to write are at most the held row and a new one per key, and one per new event -#}
  {{ return(auto_cdc._write(args, 2 * plan.fast_keys + plan.new_events)) }}
{% endmacro %}
