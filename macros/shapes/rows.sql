{#- The rows the affected keys should have after the run: the replayed keys' from their history in the
    log (replayed_rows_sql), and, where the plan sorted the keys, the in-order keys' from their new events
    and current row (in_order_rows_sql, shapes/classify.sql). -#}
{% macro desired_rows_sql(args) %}
  {%- if not args.plan.classified -%}{{ return(auto_cdc.replayed_rows_sql(args)) }}{%- endif -%}
  {{ return(auto_cdc._union_all([auto_cdc.replayed_rows_sql(args), auto_cdc.in_order_rows_sql(args)])) }}
{% endmacro %}

{#- The replayed keys' rows, recomputed from the log by the shape's builder. -#}
{% macro replayed_rows_sql(args) %}
  {%- if args.cfg.scd == 1 -%}{{ return(auto_cdc.scd1_rows_sql(args)) }}{%- endif -%}
  {{ return(auto_cdc.scd2_rows_sql(args) if args.cfg.scd == 2 else auto_cdc.bitemporal_rows_sql(args)) }}
{% endmacro %}

{#- The in-order keys' rows (shapes/classify.sql). -#}
{% macro in_order_rows_sql(args) %}
  {{ return(auto_cdc.scd1_in_order_rows_sql(args) if args.cfg.scd == 1 else auto_cdc.scd2_in_order_rows_sql(args)) }}
{% endmacro %}


{#- The rows of several queries (each may have its own WITH). -#}
{% macro _union_all(queries) %}
  {%- set parts = [] -%}
  {%- for q in queries -%}{%- do parts.append('select * from (\n' ~ q ~ '\n) ' ~ auto_cdc._alias('part_' ~ loop.index0)) -%}{%- endfor -%}
  {{ return(parts | join('\nunion all\n')) }}
{% endmacro %}
