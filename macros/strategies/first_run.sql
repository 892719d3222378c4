{#-
  The first run of a model, or a full refresh: what was there is dropped, the event log and the run log
  are created, the batch's events are logged, and the target is created from every key's rows as the
  log yields them (the shapes' builders, shapes/rows.sql).
-#}
{% macro _first_run(args) %}
  {%- set rel, plan = args.rel, args.plan -%}
  {% do auto_cdc._create_bookkeeping(args, plan.dropped) %}
  {% do auto_cdc.log_new_events(args, plan.run_id) %}
  {% do auto_cdc._run_statements([auto_cdc.create_temp_table_sql(rel.temp.affected, auto_cdc.affected_keys_sql(args)),
                                  auto_cdc.create_temp_table_sql(rel.temp.desired, auto_cdc.desired_rows_sql(args))]) %}
  {% do auto_cdc._run_sql(auto_cdc.create_target_sql(args)) %}
  {% do auto_cdc.create_key_indexes(args) %}
  {% do auto_cdc._run_statements([auto_cdc.create_temp_table_sql(rel.temp.stale, auto_cdc.stale_rows_sql(args)),
                                  auto_cdc.create_temp_table_sql(rel.temp.missing, auto_cdc.missing_rows_sql(args))]) %}
  {{ return(auto_cdc._write(args, analyze=true)) }}
{% endmacro %}
