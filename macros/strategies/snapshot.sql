{#-
  auto_cdc_snapshot: each new snapshot version is compared with the one before
  it, and the differences become events whose sequence is the version, applied like a change feed.
  For the first new version "the one before" is the target's current state (SCD2: its open rows)
  at the last applied version.

  One new version (the usual run): a hash join (a full join) of the snapshot with the current rows
  on the keys, as dbt's snapshot joins them (`snapshot_join_diff_sql`). Several versions in one run: one pass over the
  snapshots and the current rows, each key's rows ordered by version and compared with their
  neighbours (`snapshot_diff_sql`).
-#}

{#- The model's rows with their version: the snapshot_version column, else the run's start time. -#}
{% macro stage_snapshot_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
select
  {{ auto_cdc._cols(cfg.output, 's') }},
  {% if cfg.snapshot_version -%}
  s.{{ auto_cdc._q(cfg.snapshot_version) }}
  {%- else -%}
  cast('{{ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") }}' as {{ dbt.type_timestamp() }})
  {%- endif %} as {{ auto_cdc._q(n.version) }}
from (
  {{ args.sql }}
) s
{% endmacro %}


{#- The snapshot rows still to apply, and the current state they are compared with, in the target's
    columns (args.cols.output): a column new in the source is NULL in the current state, one the source no
    longer returns is NULL in the snapshots. -#}
{% macro _snapshot_rows_sql(args, incremental) -%}
{{ auto_cdc._snapshot_new_rows_sql(args, incremental) }}
{%- if incremental %}
union all
{{ auto_cdc._snapshot_current_rows_sql(args) }}
{%- endif %}
{%- endmacro %}

{% macro _snapshot_new_rows_sql(args, incremental) -%}
  {%- set n = auto_cdc._names() -%}
  {%- set version = auto_cdc._q(n.version) -%}
  {%- set last = auto_cdc._last_cursor(args.rel.runs) -%}
select
  {%- for c in args.cols.output %}
  {{ auto_cdc._q(c) if c in args.cfg.output else 'null' }} as {{ auto_cdc._q(c) }},
  {%- endfor %}
  {{ version }}, 0 as {{ auto_cdc._q(n.current) }}
from {{ args.rel.temp.snapshot }}
{%- if incremental %}
where {{ last }} is null or {{ version }} > {{ last }}
{%- endif %}
{%- endmacro %}

{#- The target's current rows (SCD2: the open ones), at the last applied version. -#}
{% macro _snapshot_current_rows_sql(args) -%}
  {%- set n = auto_cdc._names() -%}
select
  {%- for c in args.cols.output %}
  {{ 'null' if c in args.cols.add_columns else auto_cdc._q(c) }} as {{ auto_cdc._q(c) }},
  {%- endfor %}
  {{ auto_cdc._last_cursor(args.rel.runs) }} as {{ auto_cdc._q(n.version) }}, 1 as {{ auto_cdc._q(n.current) }}
from {{ args.rel.target }}
{%- if args.cfg.scd != 1 %}
where {{ auto_cdc._q(n.end_at) }} is null
{%- endif %}
{%- endmacro %}


{#- Versions in order, each with the one before and after it. Without snapshot_version the run's
    snapshot is a version even when it is empty (then it deletes every key). -#}
{% macro _snapshot_versions_sql(args) -%}
  {%- set version = auto_cdc._q(auto_cdc._names().version) -%}
  {%- set p = auto_cdc._names().internal_prefix -%}
  {%- set v, prev_v, next_v = auto_cdc._q(p ~ 'v'), auto_cdc._q(p ~ 'prev_v'), auto_cdc._q(p ~ 'next_v') -%}
versions as (
  select v as {{ v }}, lag(v) over (order by v) as {{ prev_v }}, lead(v) over (order by v) as {{ next_v }}
  from (
    select distinct {{ version }} as v from snapshot_rows
    {%- if not args.cfg.snapshot_version and not args.cols.once_skipped %}
    union
    select cast('{{ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") }}' as {{ dbt.type_timestamp() }})
    {%- endif %}
  ) d
)
{%- endmacro %}


{#- The events of the diff, in the staged-feed shape (keys, version, payload, op, cursor). -#}
{% macro snapshot_diff_sql(args, incremental) %}
  {%- set cfg = args.cfg -%}
  {%- set payload = [] -%}
  {%- for c in args.cols.output if c not in cfg.key_columns -%}{%- do payload.append(c) -%}{%- endfor -%}
  {%- set n = auto_cdc._names() -%}
  {%- set p = n.internal_prefix -%}
  {%- set version = auto_cdc._q(n.version) -%}
  {%- set v, prev_v, next_v = auto_cdc._q(p ~ 'v'), auto_cdc._q(p ~ 'prev_v'), auto_cdc._q(p ~ 'next_v') -%}
  {%- set key_prev_v, key_next_v = auto_cdc._q(p ~ 'key_prev_v'), auto_cdc._q(p ~ 'key_next_v') -%}
with snapshot_rows as (
  {{ auto_cdc._snapshot_rows_sql(args, incremental) }}
),
{{ auto_cdc._snapshot_versions_sql(args) }},
keyed as (
  select
    r.*, x.{{ prev_v }}, x.{{ next_v }},
    {%- for c in payload %}
    lag({{ auto_cdc._q(c) }}) over k as {{ auto_cdc._q(p ~ 'prev_' ~ loop.index0) }},
    {%- endfor %}
    lag(r.{{ version }}) over k as {{ key_prev_v }},
    lead(r.{{ version }}) over k as {{ key_next_v }}
  from snapshot_rows r
  join versions x on r.{{ version }} = x.{{ v }}
  window k as (partition by {{ auto_cdc._cols(cfg.key_columns, 'r') }} order by r.{{ version }})
)
select
  {{ auto_cdc._cols(cfg.key_columns) }}, {{ version }}, {{ auto_cdc._cols(payload) ~ ',' if payload }}
  '{{ n.upsert }}' as {{ auto_cdc._q(n.op) }}, {{ version }} as {{ auto_cdc._q(n.cursor) }}
from keyed
where {{ auto_cdc._q(n.current) }} = 0
  and ({{ key_prev_v }} is null or {{ key_prev_v }} <> {{ prev_v }}
    {%- for c in payload %}
    or {{ auto_cdc._q(c) }} is distinct from {{ auto_cdc._q(p ~ 'prev_' ~ loop.index0) }}
    {%- endfor %})
union all
select
  {{ auto_cdc._cols(cfg.key_columns) }}, {{ next_v }}, {% for c in payload %}null, {% endfor %}
  '{{ n.delete }}', {{ next_v }}
from keyed
where {{ next_v }} is not null and ({{ key_next_v }} is null or {{ key_next_v }} <> {{ next_v }})
{% endmacro %}


{#- The events of one new version against the current rows, in the staged-feed shape: an upsert for
    each snapshot row whose key is new or whose columns differ from its current row, a delete for each
    current key the snapshot lacks. One full join of the two on the keys gives both: a single hash
    join, each side read once (a left join for the upserts and an anti-join for the deletes read
    both sides twice, and made the engine materialize them). Keys are never NULL here
    (`_check_snapshot`), so `=` joins them and `coalesce` picks the side that holds the key. -#}
{% macro snapshot_join_diff_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set payload = [] -%}
  {%- for c in args.cols.output if c not in cfg.key_columns -%}{%- do payload.append(c) -%}{%- endfor -%}
  {%- set version = auto_cdc._q(n.version) -%}
  {%- set current = auto_cdc._q(n.current) -%}
  {%- set s, c = auto_cdc._alias('s'), auto_cdc._alias('c') -%}
  {#- the one new version: the snapshot's greatest (any other version it holds was applied before) -#}
  {%- if cfg.snapshot_version -%}
    {%- set new_version = '(select max(' ~ version ~ ') from ' ~ args.rel.temp.snapshot ~ ')' -%}
  {%- else -%}
    {%- set new_version = "cast('" ~ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") ~ "' as " ~ dbt.type_timestamp() ~ ")" -%}
  {%- endif -%}
  {%- set deleted = s ~ '.' ~ current ~ ' is null' -%}
select
  {%- for k in cfg.key_columns %}
  coalesce({{ s }}.{{ auto_cdc._q(k) }}, {{ c }}.{{ auto_cdc._q(k) }}) as {{ auto_cdc._q(k) }},
  {%- endfor %}
  case when {{ deleted }} then {{ new_version }} else {{ s }}.{{ version }} end as {{ version }},
  {%- for col in payload %}
  {{ s }}.{{ auto_cdc._q(col) }},
  {%- endfor %}
  case when {{ deleted }} then '{{ n.delete }}' else '{{ n.upsert }}' end as {{ auto_cdc._q(n.op) }},
  case when {{ deleted }} then {{ new_version }} else {{ s }}.{{ version }} end as {{ auto_cdc._q(n.cursor) }}
from (
  {{ auto_cdc._snapshot_new_rows_sql(args, true) }}
) {{ s }}
full join (
  {{ auto_cdc._snapshot_current_rows_sql(args) }}
) {{ c }}
  on {% for k in cfg.key_columns %}{{ ' and ' if not loop.first }}{{ c }}.{{ auto_cdc._q(k) }} = {{ s }}.{{ auto_cdc._q(k) }}{% endfor %}
where {{ c }}.{{ current }} is null or {{ deleted }}
  {%- for col in payload %}
  or {{ s }}.{{ auto_cdc._q(col) }} is distinct from {{ c }}.{{ auto_cdc._q(col) }}
  {%- endfor %}
{% endmacro %}


{#- The staged snapshot's checks and versions, in one pass over it in the usual case: NULL keys or
    versions and a key twice in one version fail the run, naming them (_snapshot_problems); a version not
    above the last applied one (incremental runs) is skipped with a warning naming it (_new_versions).
    Returns how many versions are left to apply (none on a first run).
    The pass counts the NULLs; with one key column, its distinct values (as many as the rows: no key
    twice, so none twice in a version); and whether the snapshot holds one version, and that version
    against the last applied one. A second statement runs only for what the pass cannot settle: the
    rows grouped by key and version (several key columns, or a duplicate to name), the versions listed
    (several versions). -#}
{% macro _check_snapshot(cfg, rel, incremental) %}
  {%- set version = auto_cdc._q(auto_cdc._names().version) -%}
  {%- set one_key = cfg.key_columns | length == 1 -%}
  {%- set exprs = [] -%}
  {%- for c in cfg.key_columns + [auto_cdc._names().version] -%}
    {%- do exprs.append('coalesce(sum(case when ' ~ auto_cdc._q(c) ~ ' is null then 1 else 0 end), 0)') -%}
  {%- endfor -%}
  {%- set row = auto_cdc._query('select ' ~ (exprs | join(', ')) ~ ', count(*), ' ~ ('count(distinct ' ~ auto_cdc._q(cfg.key_columns[0]) ~ ')' if one_key else '0')
        ~ ', case when min(' ~ version ~ ') = max(' ~ version ~ ') then 1 else 0 end, '
        ~ (('case when max(' ~ version ~ ') <= ' ~ auto_cdc._last_cursor(rel.runs) ~ ' then 1 else 0 end') if incremental else '0')
        ~ ', max(' ~ version ~ ') from ' ~ rel.temp.snapshot).rows[0] -%}
  {%- set k = cfg.key_columns | length -%}
  {%- set nulls, rows = row[:k + 1] | map('int') | list, row[k + 1] | int -%}
  {%- if nulls | sum > 0 or not (one_key and row[k + 2] | int == rows) -%}{% do auto_cdc._snapshot_problems(cfg, rel, nulls) %}{%- endif -%}
  {%- if not incremental -%}{{ return(none) }}{%- endif -%}
  {%- if rows == 0 -%}{{ return(0) }}{%- endif -%}
  {%- if row[k + 3] | int == 1 and row[k + 4] | int == 0 -%}{{ return(1) }}{%- endif -%}
  {{ return(auto_cdc._new_versions(rel, [[row[k + 5], row[k + 4]]] if row[k + 3] | int == 1 else none)) }}
{% endmacro %}


{#- The snapshot's bad rows, if any, fail the run naming them: NULLs per column (`nulls`: the keys', then the
    version's), and keys twice in one version, looked up by a grouping. -#}
{% macro _snapshot_problems(cfg, rel, nulls) %}
  {%- set version = auto_cdc._q(auto_cdc._names().version) -%}
  {%- set problems = [] -%}
  {%- for c in cfg.key_columns -%}
    {%- if nulls[loop.index0] > 0 -%}{%- do problems.append("NULL in key column '" ~ c ~ "': " ~ nulls[loop.index0] ~ " row(s)") -%}{%- endif -%}
  {%- endfor -%}
  {%- if nulls[-1] > 0 -%}{%- do problems.append("NULL in snapshot_version column '" ~ cfg.snapshot_version ~ "': " ~ nulls[-1] ~ " row(s)") -%}{%- endif -%}
  {%- if not problems -%}
    {%- set dups = auto_cdc._query('select ' ~ auto_cdc._cols(cfg.key_columns) ~ ', ' ~ version ~ ' from ' ~ rel.temp.snapshot
          ~ ' group by ' ~ auto_cdc._cols(cfg.key_columns) ~ ', ' ~ version ~ ' having count(*) > 1').rows -%}
    {%- set shown = [] -%}
    {%- for dup in dups[:5] -%}{%- do shown.append(auto_cdc._describe_row(dup, cfg.key_columns) ~ ' in version ' ~ dup[-1]) -%}{%- endfor -%}
    {%- if dups -%}{%- do problems.append("duplicate keys within one snapshot, " ~ (dups | length) ~ " case(s): " ~ (shown | join(', '))) -%}{%- endif -%}
  {%- endif -%}
  {%- if problems -%}
    {%- do exceptions.raise_database_error("auto_cdc_snapshot model '" ~ model.name ~ "': bad snapshot, nothing was applied:\n  - " ~ (problems | join('\n  - '))) -%}
  {%- endif -%}
{% endmacro %}


{#- How many of the snapshot's versions are left to apply: those above the last applied one; the others are
    skipped with a warning naming them. `found`: [[version, skipped]] where the snapshot holds one version,
    else none (the versions are listed). -#}
{% macro _new_versions(rel, found) %}
  {%- set found = found or auto_cdc._query('select v, case when v <= ' ~ auto_cdc._last_cursor(rel.runs) ~ ' then 1 else 0 end from (select distinct '
        ~ auto_cdc._q(auto_cdc._names().version) ~ ' as v from ' ~ rel.temp.snapshot ~ ') d order by 1').rows -%}
  {%- set versions = [] -%}
  {%- for f in found if f[1] | int == 1 -%}{%- do versions.append(f[0] | string) -%}{%- endfor -%}
  {%- if versions -%}
    {%- do exceptions.warn("auto_cdc_snapshot model '" ~ model.name ~ "': skipped out-of-order snapshot version(s) "
          ~ (versions | join(', ')) ~ ": not greater than the last applied version") -%}
  {%- endif -%}
  {{ return((found | length) - (versions | length)) }}
{% endmacro %}


{#- max_delete_fraction: a version that would delete more than this share of the keys of the
    version before it fails the run (an empty or truncated source, most likely). -#}
{% macro _check_delete_fraction(args, incremental) %}
  {%- set cfg = args.cfg -%}
  {%- if cfg.max_delete_fraction is none -%}{{ return(none) }}{%- endif -%}
  {%- set n = auto_cdc._names() -%}
  {%- set version = auto_cdc._q(n.version) -%}
  {%- set sql -%}
    with snapshot_rows as (
      {{ auto_cdc._snapshot_rows_sql(args, incremental) }}
    ),
    {{ auto_cdc._snapshot_versions_sql(args) }},
    deletes as (
      select {{ version }} as v, count(*) as n_deletes
      from {{ args.rel.temp.batch }} where {{ auto_cdc._q(n.op) }} = '{{ n.delete }}' group by {{ version }}
    ),
    sizes as (select {{ version }} as v, count(*) as n_keys from snapshot_rows group by {{ version }})
    select d.v, d.n_deletes, s.n_keys
    from deletes d
    join versions x on x.{{ auto_cdc._q(n.internal_prefix ~ 'v') }} = d.v
    join sizes s on s.v = x.{{ auto_cdc._q(n.internal_prefix ~ 'prev_v') }}
    where d.n_deletes > {{ cfg.max_delete_fraction }} * s.n_keys
    order by d.v
  {%- endset -%}
  {%- set rows = auto_cdc._query(sql).rows -%}
  {%- if rows | length > 0 -%}
    {%- do exceptions.raise_database_error("auto_cdc_snapshot model '" ~ model.name ~ "': snapshot version " ~ rows[0][0]
          ~ " would delete " ~ rows[0][1] ~ " of " ~ rows[0][2] ~ " keys, more than max_delete_fraction = "
          ~ cfg.max_delete_fraction ~ "; nothing was applied (an empty or truncated source?)") -%}
  {%- endif -%}
{% endmacro %}


{#- For the model SQL: the last applied snapshot version of this model, SQL NULL when none. -#}
{% macro last_snapshot_version() %}
  {%- if not execute or should_full_refresh() -%}{{ return('null') }}{%- endif -%}
  {%- set runs = load_relation(auto_cdc._bookkeeping_relation(this, auto_cdc._names().runs_suffix, config)) -%}
  {%- if runs is none -%}{{ return('null') }}{%- endif -%}
  {{ return(auto_cdc._last_cursor(runs)) }}
{% endmacro %}


{#- Stage the snapshots and check them, then diff each new version against the one before it: one
    version (without snapshot_version, the run's snapshot) by a join with the current rows, several in
    one pass ordered by version. The diff is the run's batch of events; the columns are laid out before
    the check, which compares the versions' type with the log's. -#}
{% macro _stage_snapshots(cfg, rel, sql, incremental, types) %}
  {%- set n = auto_cdc._names() -%}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(rel.temp.snapshot, auto_cdc.stage_snapshot_sql({'cfg': cfg, 'sql': sql}))) %}
  {#- the staged snapshot's types from the model's, where the engine read them with its columns: its output
      columns, and the version, the snapshot_version column's or the run's start (a timestamp) -#}
  {%- if types -%}
    {%- set staged = {} -%}
    {%- for c in cfg.output -%}{%- do staged.update({c: types.source[c]}) -%}{%- endfor -%}
    {%- do staged.update({n.version: types.source[cfg.snapshot_version] if cfg.snapshot_version else dbt.type_timestamp()}) -%}
    {%- set types = dict(types, source=staged) -%}
  {%- endif -%}
  {%- set cols = auto_cdc._columns(cfg, rel, incremental, rel.temp.snapshot, types or none,
        cursor_sql='(select max(' ~ auto_cdc._q(n.version) ~ ') from ' ~ rel.temp.snapshot ~ ')',
        once_skipped=incremental and config.get('once', false)) -%}
  {%- set new_versions = auto_cdc._check_snapshot(cfg, rel, incremental) -%}
  {%- set args = {'cfg': cfg, 'rel': rel, 'cols': cols} -%}
  {%- set one_version = incremental and (new_versions == 1 if cfg.snapshot_version else not cols.once_skipped) -%}
  {%- set diff_sql = auto_cdc.snapshot_join_diff_sql(args) if one_version else auto_cdc.snapshot_diff_sql(args, incremental) -%}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(rel.temp.batch, diff_sql)) %}
  {%- if cfg.max_delete_fraction is not none -%}{% do auto_cdc._check_delete_fraction(args, incremental) %}{%- endif -%}
  {{ return({'cols': cols}) }}
{% endmacro %}
