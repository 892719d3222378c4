{#-
  Change data feed, as Databricks' change data feed of a streaming table. With
  change_data_feed: true, every run that changes the target records the rows it removed and added
  in <target>__auto_cdc_changes, with _change_type, _commit_version (one per run that changed the
  target, strictly increasing: the run log keeps them, so erasing rows never frees a version, and a
  full refresh keeps the change feed and goes on from its versions: rebuilt_change_feed) and
  _commit_timestamp (the run's start). A removed
  and an added row with the same primary key are an update (pre- and post-image); otherwise a delete
  or an insert. Every run of such a model leaves the table, empty until a run changes the target, so
  table_changes() reads no rows rather than fail.
-#}

{#- Record the changes of a run that changed the target (the caller checks); returns the commit version.
    After a full refresh (plan.rebuild, rebuilt_change_feed) they are the difference between the rows
    the target held before it and the rebuilt ones. A rebuild records its version in the run log even
    where it changed no row, so the versions after it go on from those before it. -#}
{% macro _record_changes(args) %}
  {%- set ts = "cast('" ~ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") ~ "' as " ~ dbt.type_timestamp() ~ ")" -%}
  {%- if adapter.get_relation(args.rel.changes.database, args.rel.changes.schema, args.rel.changes.identifier) is none -%}
    {% do auto_cdc._create_change_table(args, args.rel.temp.missing) %}
  {%- endif -%}
  {#- the next version after every one a run has recorded (the run log keeps them; erase_keys may remove
      every row of the latest version from the change feed, never a run), and after those a full
      refresh dropped -#}
  {%- set rebuild = args.plan.get('rebuild') or {} -%}
  {%- set version = auto_cdc._scalar('select coalesce(max(commit_version), 0) + 1 from ' ~ args.rel.runs) | int -%}
  {%- set version = [version, auto_cdc._scalar('select coalesce(max(_commit_version), 0) + 1 from ' ~ args.rel.changes) | int,
                     rebuild.get('floor', 0) + 1] | max -%}
  {%- if rebuild.get('prior') -%}
    {% do auto_cdc._run_statements(auto_cdc._rebuilt_changes_sql(args, rebuild, version, ts)) %}
    {% do auto_cdc._run_sql(auto_cdc.drop_temp_table_sql(rebuild.prior)) %}
    {{ return(version) }}
  {%- endif -%}
  {%- set pk = auto_cdc._row_key(args) -%}
  {%- set s, m = auto_cdc._alias('s'), auto_cdc._alias('m') -%}
  {%- set sql -%}
insert into {{ args.rel.changes }} ({{ auto_cdc._cols(args.cols.target_columns) }}, _change_type, _commit_version, _commit_timestamp)
select {{ auto_cdc._cols(args.cols.target_columns, s) }},
       case when exists (select 1 from {{ args.rel.temp.missing }} {{ m }} where {{ auto_cdc._eq(pk, m, s) }})
            then 'update_preimage' else 'delete' end,
       {{ version }}, {{ ts }}
from {{ args.rel.temp.stale }} {{ s }}
union all
select {{ auto_cdc._cols(args.cols.target_columns, m) }},
       case when exists (select 1 from {{ args.rel.temp.stale }} {{ s }} where {{ auto_cdc._eq(pk, s, m) }})
            then 'update_postimage' else 'insert' end,
       {{ version }}, {{ ts }}
from {{ args.rel.temp.missing }} {{ m }}
  {%- endset -%}
  {% do auto_cdc._run_sql(sql) %}
  {{ return(version) }}
{% endmacro %}


{#- The change feed table, empty: the target's columns (`rows_like`: a relation that has them) and the
    three change columns. -#}
{% macro _create_change_table(args, rows_like) %}
  {%- set ts = "cast('" ~ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") ~ "' as " ~ dbt.type_timestamp() ~ ")" -%}
  {% do auto_cdc._run_sql(auto_cdc.create_table_as_sql(args.rel.changes, 'select ' ~ auto_cdc._cols(args.cols.target_columns)
        ~ ', cast(null as ' ~ dbt.type_string() ~ ') as _change_type, cast(0 as ' ~ dbt.type_bigint()
        ~ ') as _commit_version, ' ~ ts ~ ' as _commit_timestamp from ' ~ rows_like ~ ' where 1 = 0')) %}
{% endmacro %}


{#- A run of a model with change_data_feed that recorded no change (the caller checks) leaves the change
    feed table all the same (created from the target, which the run has written), where the model
    keeps one and the run may lack it: a first run or a full refresh (which dropped it), or a model
    whose change feed was turned on since its last run. -#}
{% macro _leave_change_table(args) %}
  {%- if config.get('change_data_feed', false) and auto_cdc._engine().change_table
        and (not args.plan.incremental or args.rel.existing[2] is none) -%}
    {% do auto_cdc._create_change_table(args, args.rel.target) %}
  {%- endif -%}
{% endmacro %}


{#-
  A full refresh of a model with change_data_feed, before it drops the model's relations
  (`existing`: the target, its log, its run log and its change feed, each none where missing): the
  greatest commit version they recorded (`floor`: the rebuild's version goes on after it, so a
  consumer that reads the change feed by _commit_version never takes it for one it has read), a copy
  of the target's rows (`prior`, a temp table of the columns the rebuilt target keeps), which the
  rebuild's changes are the difference from, and whether the change feed is kept (`keep`: the rebuilt
  target has exactly the columns the target had and the change feed records; then its earlier
  versions stay, and replaying it from the first still gives the target). None where the model keeps
  no change feed table (Delta: the target's own) or nothing of it existed.
-#}
{% macro rebuilt_change_feed(args, existing) %}
  {%- if not config.get('change_data_feed', false) or not auto_cdc._engine().change_table -%}{{ return(none) }}{%- endif -%}
  {%- set target, runs, changes = existing[0], existing[2], existing[3] -%}
  {%- set target = target if target is not none and target.is_table else none -%}
  {%- if target is none and runs is none and changes is none -%}{{ return(none) }}{%- endif -%}
  {%- set recorded = [] -%}
  {%- if runs is not none -%}{%- do recorded.append('(select coalesce(max(commit_version), 0) from ' ~ runs ~ ')') -%}{%- endif -%}
  {%- if changes is not none -%}{%- do recorded.append('(select coalesce(max(_commit_version), 0) from ' ~ changes ~ ')') -%}{%- endif -%}
  {%- set floor = (auto_cdc._query('select ' ~ (recorded | join(', '))).rows[0] | map('int') | max) if recorded else 0 -%}
  {%- if target is none -%}{{ return({'floor': floor, 'prior': none}) }}{%- endif -%}
  {%- set held = [] -%}
  {%- for col in adapter.get_columns_in_relation(target) -%}{%- do held.append(col.name | lower) -%}{%- endfor -%}
  {%- set kept = [] -%}
  {%- for c in args.cols.target_columns if (c | lower) in held -%}{%- do kept.append(c) -%}{%- endfor -%}
  {%- set prior = auto_cdc._temp_relation(args.rel.target, auto_cdc._names().prior_suffix) -%}
  {% do auto_cdc._run_statements([auto_cdc.drop_temp_table_sql(prior),
        auto_cdc.create_temp_table_sql(prior, 'select ' ~ auto_cdc._cols(kept) ~ ' from ' ~ target)]) %}
  {#- the change feed is kept where the rebuilt target has the columns it records -#}
  {%- set fed = [] -%}
  {%- for col in (adapter.get_columns_in_relation(changes) if changes is not none else []) -%}{%- do fed.append(col.name | lower) -%}{%- endfor -%}
  {%- set keep = fed | length > 0 and (fed | sort) == (args.cols.target_columns | map('lower') | list + ['_change_type', '_commit_version', '_commit_timestamp']) | sort
                 and kept | length == held | length -%}
  {{ return({'floor': floor, 'prior': prior, 'columns': kept, 'keep': keep}) }}
{% endmacro %}


{#- The changes of a full refresh: the rows the target held before it that the rebuilt one lacks, and the
    rebuilt rows it lacked (an unchanged row is neither), each an update's pre- or post-image where the
    other side has its primary key. Rows are compared on the columns both have: where the rebuild
    changed the target's columns, every row counts as changed. -#}
{% macro _rebuilt_changes_sql(args, rebuild, version, ts) %}
  {%- set side = {'version': version, 'ts': ts, 'pk': auto_cdc._row_key(args), 'compared': rebuild.columns,
                  'diff': rebuild.columns | length == args.cols.target_columns | length} -%}
  {{ return([auto_cdc._rebuilt_side_sql(args, side, rebuild.columns, rebuild.prior, args.rel.temp.missing, ['update_preimage', 'delete']),
             auto_cdc._rebuilt_side_sql(args, side, args.cols.target_columns, args.rel.temp.missing, rebuild.prior, ['update_postimage', 'insert'])]) }}
{% endmacro %}

{#- One side of _rebuilt_changes_sql: the rows of `rows` (their `columns`) that `other` lacks, as
    `types[0]` where `other` has their primary key, else `types[1]`. -#}
{% macro _rebuilt_side_sql(args, side, columns, rows, other, types) -%}
  {%- set r, o = auto_cdc._alias('r'), auto_cdc._alias('o') -%}
  {%- set pk_compared = side.pk | select('in', side.compared) | list | length == side.pk | length -%}
insert into {{ args.rel.changes }} ({{ auto_cdc._cols(columns) }}, _change_type, _commit_version, _commit_timestamp)
select {{ auto_cdc._cols(columns, r) }},
       {% if pk_compared %}case when exists (select 1 from {{ other }} {{ o }} where {{ auto_cdc._eq(side.pk, o, r) }})
            then '{{ types[0] }}' else '{{ types[1] }}' end{% else %}'{{ types[1] }}'{% endif %},
       {{ side.version }}, {{ side.ts }}
from {{ rows }} {{ r }}
{%- if side.diff %}
where not exists (select 1 from {{ other }} {{ o }} where {{ auto_cdc._same(side.compared, o, r) }})
{%- endif %}
{%- endmacro %}
