{#-
  The two writing steps of the apply (apply.sql), dispatched because engines without DELETE or MERGE
  (Spark on parquet) write them another way (their overrides: macros/dialect/apply.sql).
-#}

{#- The MERGE of the stale and missing rows. With `inserts` false, of the missing rows only those that
    replace a stale row (same row key) and no insert: the caller inserts the others. `counts.at_most`
    (_change_counts): at most how many rows its source has, for the engine's join hint. Where the
    run has a condition on the affected keys (args.plan.target_filter, target_key_filter_sql), the
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
  {%- set write, remove = args.plan.run_id | int, -(args.plan.run_id | int) -%}
  {%- set updated = [] -%}
  {#- held rows known from the log carry their row key alone; an SCD2 missing row with one is its open
      version closed, as it was but its __END_AT (held_from_log_applies) -#}
  {%- set closes_only = args.plan.get('held_from_log') and args.cfg.scd == 2 -%}
  {%- for col in ([n.end_at] if closes_only else args.cols.target_columns) if col not in pk -%}
    {%- do updated.append(auto_cdc._q(col) ~ ' = ' ~ c ~ '.' ~ auto_cdc._q(col)) -%}
  {%- endfor -%}
  {%- set values = [] -%}
  {%- for col in args.cols.target_columns -%}{%- do values.append(c ~ '.' ~ auto_cdc._q(col)) -%}{%- endfor -%}
  {%- set hint = auto_cdc.broadcast_hint([c], counts.at_most if counts else none,
                                        (args.cols.target_columns | length) + 1) -%}
merge into {{ args.rel.target }} as t
using ({% if hint %}select {{ hint }}* from ({% endif %}
  select {{ auto_cdc._cols(args.cols.target_columns, m) }}, {{ write }} as {{ upsert }}
  from {{ args.rel.temp.missing }} {{ m }}
  {%- if not inserts %}
  where exists (select 1 from {{ args.rel.temp.stale }} {{ s }} where {{ auto_cdc._eq(pk, s, m) }})
  {%- endif %}
  union all
  select {{ auto_cdc._cols(args.cols.target_columns, s) }}, {{ remove }} as {{ upsert }}
  from {{ args.rel.temp.stale }} {{ s }}
  where not exists (select 1 from {{ args.rel.temp.missing }} {{ m }} where {{ auto_cdc._eq(pk, m, s) }})
{% if hint %}) {{ c }}{% endif %}) as {{ c }}
on {{ auto_cdc._eq(pk, 't', c) }}
{%- if args.plan.get('target_filter') %} and {{ args.plan.target_filter }}{% endif %}
{%- if updated %}
when matched and {{ c }}.{{ upsert }} = {{ write }} then update set {{ updated | join(', ') }}
{%- endif %}
when matched and {{ c }}.{{ upsert }} = {{ remove }} then delete
{%- if inserts %}
when not matched and {{ c }}.{{ upsert }} = {{ write }} then insert ({{ auto_cdc._cols(args.cols.target_columns) }}) values ({{ values | join(', ') }})
{%- endif %}
{% endmacro %}


{#- What identifies a row of the target's shape: the keys (SCD1), with __START_AT (SCD2; never NULL),
    and __SYSTEM_START_AT (bitemporal). It is the change feed's primary key (a removed and an added row
    with the same one are an update, so a late event that moves __START_AT shows as delete + insert),
    and the write merges on it (joining on every column costs far more). -#}
{% macro _row_key(args) %}
  {%- set n = auto_cdc._names() -%}
  {{ return(args.cfg.key_columns + ([] if args.cfg.scd == 1 else [n.start_at])
            + ([n.system_start_at] if args.cfg.scd == 'bitemporal' else [])) }}
{% endmacro %}


{#- Target rows of affected keys that the recomputation no longer produces. -#}
{% macro stale_rows_sql(args) %}
  {%- if not args.plan.incremental -%}
select {{ auto_cdc._cols(args.cols.target_columns) }} from {{ args.rel.temp.desired }} where 1 = 0
  {%- else -%}
{{ auto_cdc.unmatched_rows_sql(args, args.rel.temp.held, args.rel.temp.desired) }}
  {%- endif -%}
{% endmacro %}


{#- Recomputed rows the target does not hold yet. -#}
{% macro missing_rows_sql(args) %}
  {%- if not args.plan.incremental -%}
select {{ auto_cdc._cols(args.cols.target_columns) }} from {{ args.rel.temp.desired }}
  {%- else -%}
{{ auto_cdc.unmatched_rows_sql(args, args.rel.temp.desired, args.rel.temp.held) }}
  {%- endif -%}
{% endmacro %}


{#- The counts of a run's stale and missing rows, as SQL: the rows it upserted, the rows it removed and,
    of those, the keys' rows it deleted (no missing row has their row key). -#}
{% macro _change_count_sqls(args) %}
  {%- set pk = auto_cdc._row_key(args) -%}
  {%- set s, m = auto_cdc._alias('s'), auto_cdc._alias('m') -%}
  {{ return({'upserted': '(select count(*) from ' ~ args.rel.temp.missing ~ ')',
             'removed': '(select count(*) from ' ~ args.rel.temp.stale ~ ')',
             'deleted': '(select count(*) from ' ~ args.rel.temp.stale ~ ' ' ~ s ~ ' where not exists (select 1 from '
                        ~ args.rel.temp.missing ~ ' ' ~ m ~ ' where ' ~ auto_cdc._eq(pk, s, m) ~ '))'}) }}
{% endmacro %}


{#- The counts of _change_count_sqls, read before the write, where the run needs them then: with
    change_data_feed (an unchanged target records no change), and where an INSERT returns no rows to
    count them with (the write skips a MERGE with nothing to write). One pass over the missing and the
    stale rows, grouped by row key (each scalar subquery is a job or more on Spark): a stale row is
    deleted when no missing row has its row key, as in _change_count_sqls, where a row key holding a
    NULL equals none. -#}
{% macro _change_counts(args) %}
  {%- set pk = auto_cdc._row_key(args) -%}
  {%- set m, s = auto_cdc._alias('m'), auto_cdc._alias('s') -%}
  {%- set unmatched = [m ~ ' = 0'] -%}
  {%- for c in pk -%}{%- do unmatched.append(auto_cdc._q(c) ~ ' is null') -%}{%- endfor -%}
  {%- set sql -%}
select coalesce(sum({{ m }}), 0), coalesce(sum({{ s }}), 0),
  coalesce(sum(case when {{ unmatched | join(' or ') }} then {{ s }} else 0 end), 0)
from (
  select {{ auto_cdc._cols(pk) }}, sum({{ m }}) as {{ m }}, sum({{ s }}) as {{ s }}
  from (
    select {{ auto_cdc._cols(pk) }}, 1 as {{ m }}, 0 as {{ s }} from {{ args.rel.temp.missing }}
    union all
    select {{ auto_cdc._cols(pk) }}, 0 as {{ m }}, 1 as {{ s }} from {{ args.rel.temp.stale }}
  ) {{ auto_cdc._alias('rows') }}
  group by {{ auto_cdc._cols(pk) }}
) {{ auto_cdc._alias('per_key') }}
  {%- endset -%}
  {%- set row = auto_cdc._query(sql).rows[0] -%}
  {{ return({'upserted': row[0] | int, 'removed': row[1] | int, 'deleted': row[2] | int,
             'at_most': (row[0] | int) + (row[1] | int)}) }}
{% endmacro %}


{#- The write of the stale and missing rows (write_changes), with their counts: the MERGE's own where the
    engine returns them and `at_most` bounds the rows to write (for the MERGE's join hint), else read
    before the write where the run needs them then (_change_counts), else none: the run log's insert
    counts them. Returns the counts and the temp relations it wrote from (`temp`: the run's stale and
    missing rows may be other tables of the run, in_order.sql). `analyze`: the target and the log were
    just created. -#}
{% macro _write(args, at_most=none, analyze=false) %}
  {%- set engine = auto_cdc._engine() -%}
  {%- if at_most is not none and engine.merge_counts -%}
    {%- set counts = {'at_most': at_most} -%}
  {%- elif config.get('change_data_feed', false) or not engine.insert_returns -%}
    {%- set counts = auto_cdc._change_counts(args) -%}
  {%- else -%}
    {%- set counts = none -%}
  {%- endif -%}
  {%- set written = auto_cdc.write_changes(args, counts) -%}
  {%- if analyze -%}{% do auto_cdc.analyze_relations([args.rel.target, args.rel.log]) %}{%- endif -%}
  {{ return({'counts': written if written is mapping else counts, 'edited_keys': 0, 'temp': args.rel.temp}) }}
{% endmacro %}
