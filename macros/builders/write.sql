{#-
  The two writing steps of the apply (apply.sql), dispatched because engines without DELETE or MERGE
  (Spark on parquet) write them another way (macros/adapters/spark.sql).
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

{#- One MERGE on the row key (_row_key): a missing row replaces the stale row with its row key (an
    update) or is inserted; a stale row no missing row replaces is deleted. -#}
{% macro default__write_changes(args) %}
  {% do auto_cdc._run_sql(auto_cdc.merge_changes_sql(args)) %}
{% endmacro %}

{% macro merge_changes_sql(args) %}
  {%- set pk = auto_cdc._row_key(args) -%}
  {%- set s, m, c = auto_cdc._alias('s'), auto_cdc._alias('m'), auto_cdc._alias('c') -%}
  {%- set upsert = auto_cdc._q(auto_cdc._names().internal_prefix ~ 'upsert') -%}
  {%- set updated = [] -%}
  {%- for col in args.target_columns if col not in pk -%}
    {%- do updated.append(auto_cdc._q(col) ~ ' = ' ~ c ~ '.' ~ auto_cdc._q(col)) -%}
  {%- endfor -%}
  {%- set values = [] -%}
  {%- for col in args.target_columns -%}{%- do values.append(c ~ '.' ~ auto_cdc._q(col)) -%}{%- endfor -%}
merge into {{ args.target }} as t
using (
  select {{ auto_cdc._cols(args.target_columns, m) }}, 1 as {{ upsert }}
  from {{ args.missing }} {{ m }}
  union all
  select {{ auto_cdc._cols(args.target_columns, s) }}, 0 as {{ upsert }}
  from {{ args.stale }} {{ s }}
  where not exists (select 1 from {{ args.missing }} {{ m }} where {{ auto_cdc._eq(pk, m, s) }})
) as {{ c }}
on {{ auto_cdc._eq(pk, 't', c) }}
{%- if updated %}
when matched and {{ c }}.{{ upsert }} = 1 then update set {{ updated | join(', ') }}
{%- endif %}
when matched and {{ c }}.{{ upsert }} = 0 then delete
when not matched and {{ c }}.{{ upsert }} = 1 then insert ({{ auto_cdc._cols(args.target_columns) }}) values ({{ values | join(', ') }})
{% endmacro %}
