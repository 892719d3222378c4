{#-
  The two writing steps of the apply (apply.sql), dispatched because engines without DELETE (Spark
  on parquet) write them another way (macros/adapters/spark/).
-#}

{#- Step 2: append the new events to the log. Bitemporal: an event learned again at an earlier system
    time replaces the logged one. -#}
{% macro log_new_events(args, run_id) %}
  {{ return(adapter.dispatch('log_new_events', 'auto_cdc')(args, run_id)) }}
{% endmacro %}

{% macro default__log_new_events(args, run_id) %}
  {%- if args.cfg.scd == 'bitemporal' -%}
    {% do auto_cdc._run_sql('delete from ' ~ args.log ~ ' as l using ' ~ args.new ~ ' as b where '
          ~ auto_cdc._eq(args.cfg.key_columns + args.cfg.seq_columns, 'l', 'b')) %}
  {%- endif -%}
  {% do auto_cdc._run_sql(auto_cdc.append_to_log_sql(args, run_id)) %}
{% endmacro %}


{#- Step 5: remove the stale rows from the target and insert the missing ones. -#}
{% macro write_changes(args) %}
  {{ return(adapter.dispatch('write_changes', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__write_changes(args) %}
  {% do auto_cdc._run_sql(auto_cdc.delete_stale_rows_sql(args)) %}
  {% do auto_cdc._run_sql(auto_cdc.insert_missing_rows_sql(args)) %}
{% endmacro %}
