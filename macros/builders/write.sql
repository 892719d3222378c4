{#-
  The two writing steps of the apply (apply.sql), dispatched because engines without DELETE or MERGE
  (Spark on parquet) write them another way (their overrides: macros/dialect/apply.sql).
-#}

{#- The MERGE of the stale and missing rows. With `inserts` false, of the missing rows only those that
    replace a stale row (same row key) and no insert: the caller inserts the others. `counts.at_most`
    (_change_counts): at most how many rows its source has, for the engine's join hint. Where the
    run has a condition on the affected keys (args.path.target_filter, target_key_filter_sql), the
    target's rows must also meet it: every affected key's rows do, and every source row has an
    affected key, so the rows matched are the same. Each source row's action is the run's id (a row to
    write) or its negative (a row to delete), so the MERGE's clause conditions name the run: the table's
    history (Delta's DESCRIBE HISTORY, which records them) tells the model's own MERGE from anyone
    else's, also one of a run that failed before it recorded itself, which the next run repeats under
    the same id (unedited_target_version). -#}
{% macro merge_changes_sql(args, counts=none, inserts=true) %}
  {%- set pk = auto_cdc._row_key(args) -%}
  {%- set s, m, c = auto_cdc._alias('s'), auto_cdc._alias('m'), auto_cdc._alias('c') -%}
  {%- set n = auto_cdc._names() -%}
  {%- set upsert = auto_cdc._q(n.merge_action) -%}
  {%- set write, remove = args.run.id | int, -(args.run.id | int) -%}
  {%- set updated = [] -%}
  {#- held rows known from the log carry their row key alone; an SCD2 missing row with one is its open
      version closed, as it was but its __END_AT (held_from_log_applies) -#}
  {%- set closes_only = args.path.get('held_from_log') and args.cfg.scd == 2 -%}
  {%- for col in ([n.end_at] if closes_only else args.plan.target_columns) if col not in pk -%}
    {%- do updated.append(auto_cdc._q(col) ~ ' = ' ~ c ~ '.' ~ auto_cdc._q(col)) -%}
  {%- endfor -%}
  {%- set values = [] -%}
  {%- for col in args.plan.target_columns -%}{%- do values.append(c ~ '.' ~ auto_cdc._q(col)) -%}{%- endfor -%}
  {%- set hint = auto_cdc.broadcast_hint([c], counts.at_most if counts else none,
                                        (args.plan.target_columns | length) + 1) -%}
merge into {{ args.rel.target }} as t
using ({% if hint %}select {{ hint }}* from ({% endif %}
  select {{ auto_cdc._cols(args.plan.target_columns, m) }}, {{ write }} as {{ upsert }}
  from {{ args.rel.temp.missing }} {{ m }}
  {%- if not inserts %}
  where exists (select 1 from {{ args.rel.temp.stale }} {{ s }} where {{ auto_cdc._eq(pk, s, m) }})
  {%- endif %}
  union all
  select {{ auto_cdc._cols(args.plan.target_columns, s) }}, {{ remove }} as {{ upsert }}
  from {{ args.rel.temp.stale }} {{ s }}
  where not exists (select 1 from {{ args.rel.temp.missing }} {{ m }} where {{ auto_cdc._eq(pk, m, s) }})
{% if hint %}) {{ c }}{% endif %}) as {{ c }}
on {{ auto_cdc._eq(pk, 't', c) }}
{%- if args.path.get('target_filter') %} and {{ args.path.target_filter }}{% endif %}
{%- if updated %}
when matched and {{ c }}.{{ upsert }} = {{ write }} then update set {{ updated | join(', ') }}
{%- endif %}
when matched and {{ c }}.{{ upsert }} = {{ remove }} then delete
{%- if inserts %}
when not matched and {{ c }}.{{ upsert }} = {{ write }} then insert ({{ auto_cdc._cols(args.plan.target_columns) }}) values ({{ values | join(', ') }})
{%- endif %}
{% endmacro %}
