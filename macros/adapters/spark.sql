{#-
  Spark (dbt-spark) overrides. The tested path is plain parquet tables in a Hive metastore: no
  UPDATE, DELETE or MERGE, and no transactions. So the target and its event log are partitioned by
  a bucket of their keys, `__auto_cdc_bucket = pmod(xxhash64(keys), buckets)`, and a run rewrites
  only the buckets that hold affected keys (INSERT OVERWRITE with dynamic partition overwrite);
  appends are plain INSERTs. A run's cost follows its batch: the affected keys' buckets, not the
  table. With file_format delta, iceberg or hudi (not tested here) the target takes MERGE instead.
  Temporary relations are real parquet tables beside the target (a Spark temp view is a query,
  recomputed at each read, and would see the log after the append).
  Aliases: in a correlated subquery Spark resolves `b.x` against the inner tables' columns first, so
  an outer alias `b` breaks on a table with a column named `b` (then `b.x` is a field of that
  column). The queries below with correlated subqueries alias their tables with reserved names.
-#}

{#- The bucket count of a target: config `spark_buckets` (default 16) on the first run, kept in the
    event log's table properties afterwards, since changing it would move keys between buckets. -#}
{% macro _spark_buckets(args) %}
  {%- if args.get('spark_buckets') is none -%}
    {%- set found = none -%}
    {%- set existing = adapter.get_relation(args.log.database, args.log.schema, args.log.identifier) -%}
    {%- if existing is not none -%}
      {%- for row in auto_cdc._query('show tblproperties ' ~ args.log).rows if row[0] == 'auto_cdc.buckets' -%}
        {%- set found = row[1] | int -%}
        {%- do args.update({'spark_buckets': found}) -%}
      {%- endfor -%}
    {%- endif -%}
    {%- if args.get('spark_buckets') is none -%}
      {%- do args.update({'spark_buckets': config.get('spark_buckets', 16) | int}) -%}
    {%- endif -%}
  {%- endif -%}
  {{ return(args.spark_buckets) }}
{% endmacro %}

{#- The bucket of a row, from its key columns. -#}
{% macro _spark_bucket_expr(args, prefix=none) -%}
pmod(xxhash64({{ auto_cdc._cols(args.cfg.key_columns, prefix) }}), {{ auto_cdc._spark_buckets(args) }})
{%- endmacro %}

{% macro _spark_format() %}
  {{ return(config.get('file_format', 'parquet')) }}
{% endmacro %}

{% macro _spark_has_merge() %}
  {{ return(auto_cdc._spark_format() in ['delta', 'iceberg', 'hudi']) }}
{% endmacro %}

{#- The bucket numbers a query returns (one column), for literal partition filters: a literal list
    prunes partitions for certain, where a join relies on dynamic partition pruning. -#}
{% macro _spark_bucket_list(sql) %}
  {%- set out = [] -%}
  {%- for row in auto_cdc._query(sql).rows if row[0] is not none -%}{%- do out.append(row[0] | int) -%}{%- endfor -%}
  {{ return(out | sort) }}
{% endmacro %}


{#- Temp relations: parquet tables in the target's schema, named after the target. -#}
{% macro spark__temp_relation(identifier) %}
  {% do return(api.Relation.create(schema=this.schema, identifier=identifier, type='table')) %}
{% endmacro %}

{% macro spark__create_temp_table_sql(relation, sql) %}
create table {{ relation }} using parquet as
{{ sql }}
{% endmacro %}


{#- DESCRIBE QUERY gives Spark's full type names (array<string>, decimal(p,s), struct<...>). -#}
{% macro spark__column_types(sql) %}
  {%- set types = {} -%}
  {%- for row in auto_cdc._query('describe query ' ~ sql).rows -%}
    {%- do types.update({row[0]: row[1]}) -%}
  {%- endfor -%}
  {{ return(types) }}
{% endmacro %}


{#- on_schema_change on parquet: columns are added with ADD COLUMNS; a parquet (v1) table cannot drop a
    column or change its type (dbt-spark refuses the same, asking for Delta), so such a change fails
    the run before anything is written. -#}
{% macro spark__add_column_sql(relation, column, type) -%}
alter table {{ relation }} add columns ({{ auto_cdc._q(column) }} {{ type }})
{%- endmacro %}

{% macro spark__check_schema_changes(dropped, widened) %}
  {%- if auto_cdc._spark_has_merge() or not (dropped or widened) -%}{{ return(none) }}{%- endif -%}
  {%- set changes = [] -%}
  {%- for c in dropped -%}{%- do changes.append('drop ' ~ c) -%}{%- endfor -%}
  {%- for c, t in widened.items() -%}{%- do changes.append(c ~ ' to ' ~ t) -%}{%- endfor -%}
  {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': the source's columns changed ("
        ~ (changes | join(', ')) ~ ") and a " ~ auto_cdc._spark_format() ~ " table on Spark cannot drop a column or change its type. "
        ~ "Run with --full-refresh (it rebuilds the history from what the source still holds: events it no longer holds are lost); or keep the table's columns and types with on_schema_change 'ignore' "
        ~ "(or 'append_new_columns' when no type changed); or use file_format delta or iceberg") -%}
{% endmacro %}


{% macro spark__create_log_sql(args) %}
  {%- set n = auto_cdc._names() -%}
create table {{ args.log }}
using {{ auto_cdc._spark_format() }}
partitioned by ({{ auto_cdc._q(n.bucket) }})
tblproperties ('auto_cdc.buckets' = '{{ auto_cdc._spark_buckets(args) }}')
as
select {{ auto_cdc._cols(args.cfg.stored) }}, {{ auto_cdc._q(n.op) }}, cast(0 as bigint) as {{ auto_cdc._q(n.run) }},
       cast(null as boolean) as {{ auto_cdc._q(n.edit) }}, cast(0 as int) as {{ auto_cdc._q(n.bucket) }}
from {{ args.batch }}
where 1 = 0
{% endmacro %}

{% macro spark__create_table_as_sql(relation, sql) %}
create table {{ relation }} using {{ auto_cdc._spark_format() }} as
{{ sql }}
{% endmacro %}

{#- The target: the model's columns, then the bucket column it is partitioned by. -#}
{% macro spark__create_target_sql(args) %}
  {%- set n = auto_cdc._names() -%}
create table {{ args.target }}
using {{ auto_cdc._spark_format() }}
partitioned by ({{ auto_cdc._q(n.bucket) }})
as
select {{ auto_cdc._cols(args.target_columns) }}, cast(0 as int) as {{ auto_cdc._q(n.bucket) }}
from {{ args.desired }}
where 1 = 0
{% endmacro %}


{% macro spark__append_to_log_sql(args, run_id) %}
  {%- set n = auto_cdc._names() -%}
insert into {{ args.log }} ({{ auto_cdc._cols(args.stored) }}, {{ auto_cdc._q(n.op) }}, {{ auto_cdc._q(n.run) }}, {{ auto_cdc._q(n.bucket) }})
select {{ auto_cdc._cols(args.stored) }}, {{ auto_cdc._q(n.op) }}, {{ run_id }}, {{ auto_cdc._spark_bucket_expr(args) }}
from {{ args.new }}
{% endmacro %}


{#- Session settings of the rewrite: dynamic partition overwrite, and partition pruning that survives
    the Hive metastore's filter parser, which rejects a column name starting with `_` (then Spark
    lists the partitions and prunes them itself). -#}
{% macro _spark_settings() %}
  {% do auto_cdc._run_sql('set spark.sql.sources.partitionOverwriteMode = dynamic') %}
  {% do auto_cdc._run_sql('set spark.sql.hive.metastorePartitionPruningFallbackOnException = true') %}
{% endmacro %}


{#- Rewrite some buckets of a partitioned table with the rows of `sql` (which carries the bucket
    column last), under dynamic partition overwrite: only the buckets `sql` has rows for are
    replaced; `emptied` are buckets left with no row, dropped. -#}
{% macro _spark_overwrite_buckets(relation, columns, sql, emptied) %}
  {%- set n = auto_cdc._names() -%}
  {% do auto_cdc._run_sql('insert overwrite table ' ~ relation ~ ' partition (' ~ auto_cdc._q(n.bucket) ~ ') ('
        ~ auto_cdc._cols(columns) ~ ')\n' ~ sql) %}
  {%- if emptied -%}
    {%- set parts = [] -%}
    {%- for b in emptied -%}{%- do parts.append('partition (' ~ auto_cdc._q(n.bucket) ~ ' = ' ~ b ~ ')') -%}{%- endfor -%}
    {% do auto_cdc._run_sql('alter table ' ~ relation ~ ' drop if exists ' ~ (parts | join(', '))) %}
  {%- endif -%}
{% endmacro %}


{#- Step 2 on parquet: appends are plain inserts; bitemporal, where a new event replaces a logged
    one learned later, rewrites the buckets of the new events with the log's other rows plus them
    (never empty: the new events are in them). -#}
{% macro spark__log_new_events(args, run_id) %}
  {%- if args.cfg.scd != 'bitemporal' or auto_cdc._spark_has_merge() -%}
    {%- if args.cfg.scd == 'bitemporal' -%}
      {% do auto_cdc._run_sql('merge into ' ~ args.log ~ ' as l using ' ~ args.new ~ ' as b on '
            ~ auto_cdc._eq(args.cfg.key_columns + args.cfg.seq_columns, 'l', 'b') ~ ' when matched then delete') %}
    {%- endif -%}
    {% do auto_cdc._run_sql(auto_cdc.append_to_log_sql(args, run_id)) %}
    {{ return(none) }}
  {%- endif -%}
  {%- set n = auto_cdc._names() -%}
  {% do auto_cdc._spark_settings() %}
  {%- set buckets = auto_cdc._spark_bucket_list('select distinct ' ~ auto_cdc._spark_bucket_expr(args) ~ ' from ' ~ args.new) -%}
  {%- if not buckets -%}{{ return(none) }}{%- endif -%}
  {%- set columns = args.stored + [n.op, n.run] -%}
  {%- set l, b = auto_cdc._alias('l'), auto_cdc._alias('b') -%}
  {%- set sql -%}
select {{ auto_cdc._cols(columns, l) }}, {{ l }}.{{ auto_cdc._q(n.bucket) }}
from {{ args.log }} {{ l }}
where {{ l }}.{{ auto_cdc._q(n.bucket) }} in ({{ buckets | join(', ') }})
  and not exists (
    select 1 from {{ args.new }} {{ b }} where {{ auto_cdc._eq(args.cfg.key_columns + args.cfg.seq_columns, l, b) }}
  )
union all
select {{ auto_cdc._cols(args.stored) }}, {{ auto_cdc._q(n.op) }}, {{ run_id }}, {{ auto_cdc._spark_bucket_expr(args) }}
from {{ args.new }}
  {%- endset -%}
  {% do auto_cdc._spark_overwrite_buckets(args.log, columns + [n.bucket], sql, []) %}
{% endmacro %}


{#- Step 5 on parquet: the new contents of every bucket that holds a stale or a missing row (its
    rows that are not stale, plus the missing rows) are staged in a table, then those buckets are
    overwritten from it; a bucket left with no row is dropped. With MERGE (delta, iceberg, hudi):
    delete the stale rows, insert the missing ones. -#}
{% macro spark__write_changes(args) %}
  {%- set n = auto_cdc._names() -%}
  {%- set cols = args.target_columns -%}
  {%- set keys = args.cfg.key_columns -%}
  {%- if auto_cdc._spark_has_merge() -%}
    {% do auto_cdc._run_sql('merge into ' ~ args.target ~ ' as t using ' ~ args.stale ~ ' as s on '
          ~ auto_cdc._eq(keys, 't', 's') ~ ' and ' ~ auto_cdc._same(cols, 't', 's') ~ ' when matched then delete') %}
    {% do auto_cdc._run_sql('insert into ' ~ args.target ~ ' (' ~ auto_cdc._cols(cols + [n.bucket]) ~ ') select '
          ~ auto_cdc._cols(cols) ~ ', ' ~ auto_cdc._spark_bucket_expr(args) ~ ' from ' ~ args.missing) %}
    {{ return(none) }}
  {%- endif -%}
  {% do auto_cdc._spark_settings() %}
  {%- set buckets = auto_cdc._spark_bucket_list('select ' ~ auto_cdc._spark_bucket_expr(args) ~ ' from ' ~ args.stale
        ~ ' union select ' ~ auto_cdc._spark_bucket_expr(args) ~ ' from ' ~ args.missing) -%}
  {%- if not buckets -%}{{ return(none) }}{%- endif -%}
  {%- set rewrite = auto_cdc._temp_relation(args.target, n.rewrite_suffix) -%}
  {%- set t, s = auto_cdc._alias('t'), auto_cdc._alias('s') -%}
  {%- set sql -%}
select {{ auto_cdc._cols(cols, t) }}, {{ t }}.{{ auto_cdc._q(n.bucket) }}
from {{ args.target }} {{ t }}
where {{ t }}.{{ auto_cdc._q(n.bucket) }} in ({{ buckets | join(', ') }})
  and not exists (
    select 1 from {{ args.stale }} {{ s }} where {{ auto_cdc._eq(keys, t, s) }} and {{ auto_cdc._same(cols, t, s) }}
  )
union all
select {{ auto_cdc._cols(cols) }}, {{ auto_cdc._spark_bucket_expr(args) }}
from {{ args.missing }}
  {%- endset -%}
  {% do auto_cdc._run_sql(auto_cdc.drop_temp_table_sql(rewrite)) %}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(rewrite, sql)) %}
  {%- set kept = auto_cdc._spark_bucket_list('select distinct ' ~ auto_cdc._q(n.bucket) ~ ' from ' ~ rewrite) -%}
  {%- set emptied = [] -%}
  {%- for b in buckets if b not in kept -%}{%- do emptied.append(b) -%}{%- endfor -%}
  {% do auto_cdc._spark_overwrite_buckets(args.target, cols + [n.bucket],
        'select ' ~ auto_cdc._cols(cols + [n.bucket]) ~ ' from ' ~ rewrite, emptied) %}
  {% do auto_cdc._run_sql(auto_cdc.drop_temp_table_sql(rewrite)) %}
{% endmacro %}


{#- A multi-column sequence as a STRUCT: Spark orders structs field by field. -#}
{% macro spark__seq_value_sql(exprs, args) %}
  {%- set fields = [] -%}
  {%- for e in exprs -%}
    {%- do fields.append("'" ~ args.cfg.seq_columns[loop.index0] ~ "', " ~ e) -%}
  {%- endfor -%}
  {{ return('named_struct(' ~ (fields | join(', ')) ~ ')') }}
{% endmacro %}


{#- R5 COLUMNS TO UPDATE with Spark's higher-order array functions. -#}
{% macro spark__columns_to_update_sql(expr, is_list) -%}
  {%- set items = expr if is_list else 'split(' ~ expr ~ ", ',')" -%}
case when {{ expr }} is null then null else concat(',', array_join(array_sort(array_distinct(filter(
  transform({{ items }}, s -> lower(trim(s))), s -> s <> ''))), ','), ',') end
{%- endmacro %}

{% macro spark__split_names_sql(expr) -%}
explode(split(substr({{ expr }}, 2, length({{ expr }}) - 2), ','))
{%- endmacro %}


{#- default__new_events_sql with reserved aliases (see the top of this file). -#}
{% macro spark__new_events_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set b, l = auto_cdc._alias('b'), auto_cdc._alias('l') -%}
  {%- if cfg.scd == 'bitemporal' -%}
    {%- set st = auto_cdc._q(cfg.system_seq) -%}
    {%- set rest = [] -%}
    {%- for c in args.stored if c != cfg.system_seq -%}{%- do rest.append(c) -%}{%- endfor -%}
select {{ auto_cdc._cols(args.stored, b) }}, {{ b }}.{{ op }}
from (
  select {{ auto_cdc._cols(rest) }}, {{ op }}, min({{ st }}) as {{ st }}
  from {{ args.batch }}
  group by {{ auto_cdc._cols(rest) }}, {{ op }}
) {{ b }}
where not exists (
  select 1 from {{ args.log }} {{ l }}
  where {{ auto_cdc._eq(cfg.key_columns + cfg.seq_columns, l, b) }} and {{ l }}.{{ st }} <= {{ b }}.{{ st }}
)
  {%- else -%}
select distinct {{ auto_cdc._cols(args.stored, b) }}, {{ b }}.{{ op }}
from {{ args.batch }} {{ b }}
where not exists (
    select 1 from {{ args.log }} {{ l }}
    where {{ l }}.{{ op }} <> '{{ n.truncate }}'
      and {{ auto_cdc._eq(cfg.key_columns + cfg.seq_columns, l, b) }}
  )
  and not exists (
    select 1 from {{ args.log }} {{ l }}
    where {{ b }}.{{ op }} = '{{ n.truncate }}' and {{ l }}.{{ op }} = '{{ n.truncate }}'
      and {{ auto_cdc._eq(cfg.seq_columns, l, b) }}
  )
  {%- endif -%}
{% endmacro %}


{#- The affected keys' target rows, read from their buckets only (a literal list prunes the rest). -#}
{% macro spark__held_rows_sql(args) %}
  {%- set n = auto_cdc._names() -%}
  {% do auto_cdc._spark_settings() %}
  {%- set buckets = auto_cdc._spark_bucket_list('select distinct ' ~ auto_cdc._spark_bucket_expr(args) ~ ' from ' ~ args.affected) -%}
{{ auto_cdc.default__held_rows_sql(args) }}
where t.{{ auto_cdc._q(n.bucket) }} in ({{ (buckets or [-1]) | join(', ') }})
{% endmacro %}


{#- Crash recovery on parquet (no transaction, R8 does not hold): events a killed run appended to
    the log carry the run id that run would have had, which is this run's (its row in the run log was
    never written). Their keys are affected again, so the target is recomputed for them even though
    their events are no longer new. -#}
{% macro spark__affected_keys_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set this_run = '(select coalesce(max(run_id), 0) + 1 from ' ~ args.runs ~ ')' -%}
{{ auto_cdc.default__affected_keys_sql(args) }}
union
select distinct {{ auto_cdc._cols(cfg.key_columns) }}
from {{ args.log }}
where {{ op }} <> '{{ n.truncate }}'
  and ({{ auto_cdc._q(n.run) }} = {{ this_run }}
       or exists (select 1 from {{ args.log }} where {{ op }} = '{{ n.truncate }}' and {{ auto_cdc._q(n.run) }} = {{ this_run }}))
{% endmacro %}
