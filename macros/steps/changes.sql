{#-
  Change data feed, as Databricks' change data feed of a streaming table. With
  change_data_feed: true, every run that changes the target records the rows it removed and added
  in <target>__auto_cdc_changes, with _change_type, _commit_version (one per run that changed the
  target, strictly increasing: the run log keeps them, so erasing rows never frees a version) and
  _commit_timestamp (the run's start). A removed and an added row with the same primary key are an
  update (pre- and post-image); otherwise a delete or an insert.
-#}

{#- Record the changes of a run that changed the target (the caller checks); returns the commit version. -#}
{% macro _record_changes(args) %}
  {%- set pk = auto_cdc._row_key(args) -%}
  {%- set ts = "cast('" ~ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") ~ "' as " ~ dbt.type_timestamp() ~ ")" -%}
  {%- if adapter.get_relation(args.rel.changes.database, args.rel.changes.schema, args.rel.changes.identifier) is none -%}
    {% do auto_cdc._run_sql(auto_cdc.create_table_as_sql(args.rel.changes, 'select ' ~ auto_cdc._cols(args.cols.target_columns)
          ~ ', cast(null as ' ~ dbt.type_string() ~ ') as _change_type, cast(0 as ' ~ dbt.type_bigint()
          ~ ') as _commit_version, ' ~ ts ~ ' as _commit_timestamp from ' ~ args.rel.temp.missing ~ ' where 1 = 0')) %}
  {%- endif -%}
  {#- the next version after every one a run has recorded (the run log keeps them; erase_keys may remove
      every row of the latest version from the change feed, never a run) -#}
  {%- set version = auto_cdc._scalar('select coalesce(max(commit_version), 0) + 1 from ' ~ args.rel.runs) | int -%}
  {%- set version = [version, auto_cdc._scalar('select coalesce(max(_commit_version), 0) + 1 from ' ~ args.rel.changes) | int] | max -%}
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
