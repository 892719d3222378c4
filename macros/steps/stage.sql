{#-
  Stage the change feed: the model's rows, classified into upsert / delete / truncate, reduced to the
  columns the package keeps. A delete or truncate carries no payload (its values never matter), and a
  truncate no key. With cursor_column, only rows at or after the largest cursor already applied are
  read (>=: re-reading the boundary is harmless, R2): `cursor_floor`, that cursor as a literal where the
  engine read it first (prior_runs), else the run log is read here.
  With apply_as_snapshot, the rows it marks are a full snapshot at their sequence value V, in the
  feed's ordering domain: a truncate at V (every key's events before V are void, so keys the snapshot
  lacks are deleted at V) plus an upsert at V per snapshot row. Later events still apply and can
  restore a key; earlier events, late or not, are superseded.
-#}
{% macro stage_batch_sql(args) %}
  {{ return(adapter.dispatch('stage_batch_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__stage_batch_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set upserts = "s." ~ op ~ " in ('" ~ n.upsert ~ "', 'snapshot')" -%}
  {%- set kept_on_every_event = cfg.key_columns + cfg.seq_columns + ([cfg.system_seq] if cfg.system_seq else []) -%}
with staged as (
select
  {%- for c in cfg.key_columns %}
  case when s.{{ op }} = '{{ n.truncate }}' then null else s.{{ auto_cdc._q(c) }} end as {{ auto_cdc._q(c) }},
  {%- endfor %}
  {%- for c in cfg.stored if c not in cfg.key_columns %}
  {%- if c == n.columns %}
  case when {{ upserts }} then {{ auto_cdc.columns_to_update_sql('s.' ~ auto_cdc._q(cfg.columns_to_update), args.columns_to_update_is_list) }} end as {{ auto_cdc._q(c) }},
  {%- elif c in kept_on_every_event %}
  s.{{ auto_cdc._q(c) }},
  {%- else %}
  case when {{ upserts }} then s.{{ auto_cdc._q(c) }} end as {{ auto_cdc._q(c) }},
  {%- endif %}
  {%- endfor %}
  s.{{ op }},
  {% if cfg.cursor %}s.{{ auto_cdc._q(cfg.cursor) }}{% else %}cast(null as {{ dbt.type_string() }}){% endif %} as {{ auto_cdc._q(n.cursor) }}
from (
  select
    src.*,
    {%- if cfg.truncate_expr or cfg.delete_expr or cfg.snapshot_expr %}
    case
      {%- if cfg.snapshot_expr %}
      when ({{ cfg.snapshot_expr }}) then 'snapshot'
      {%- endif %}
      {%- if cfg.truncate_expr %}
      when ({{ cfg.truncate_expr }}) then '{{ n.truncate }}'
      {%- endif %}
      {%- if cfg.delete_expr %}
      when ({{ cfg.delete_expr }}) then '{{ n.delete }}'
      {%- endif %}
      else '{{ n.upsert }}'
    end as {{ op }}
    {%- else %}
    '{{ n.upsert }}' as {{ op }}
    {%- endif %}
  from (
    {{ args.sql }}
  ) src
  {%- if cfg.cursor and args.runs is not none and args.get('cursor_floor') is not none %}
  {%- if args.cursor_floor != 'null' %}
  where src.{{ auto_cdc._q(cfg.cursor) }} >= {{ args.cursor_floor }}
  {%- endif %}
  {%- elif cfg.cursor and args.runs is not none %}
  where {{ auto_cdc._last_cursor(args.runs) }} is null
     or src.{{ auto_cdc._q(cfg.cursor) }} >= {{ auto_cdc._last_cursor(args.runs) }}
  {%- endif %}
) s
)
select
  {%- for c in cfg.stored %}
  {{ auto_cdc._q(c) }},
  {%- endfor %}
  case when {{ op }} = 'snapshot' then '{{ n.upsert }}' else {{ op }} end as {{ op }},
  {{ auto_cdc._q(n.cursor) }}
from staged
{%- if cfg.snapshot_expr %}
union all
select distinct
  {%- for c in cfg.stored %}
  {{ auto_cdc._q(c) if c in cfg.seq_columns else 'case when 1 = 0 then ' ~ auto_cdc._q(c) ~ ' end' }},  {#- a typed NULL -#}
  {%- endfor %}
  '{{ n.truncate }}',
  {{ auto_cdc._q(n.cursor) }}
from staged
where {{ op }} = 'snapshot'
{%- endif %}
{% endmacro %}


{#- Stage the feed into the run's batch (stage_batch_sql) and lay out its columns (steps/schema.sql). An
    incremental run reads the column types of the target, its logs and the batch (unless the model's
    columns came with them) in the batch's round trip; the engine may read what the run needs of the run
    log first (prior_runs). -#}
{% macro _stage_feed(cfg, rel, sql, incremental, types) %}
  {%- set ctu_is_list = cfg.columns_to_update is not none and auto_cdc._is_list_type(
        auto_cdc._column_types('select ' ~ auto_cdc._q(cfg.columns_to_update) ~ ' from (' ~ sql ~ ') s').values() | first) -%}
  {%- set prior = auto_cdc.prior_runs(rel) if incremental else none -%}
  {%- set create_batch = auto_cdc.create_temp_table_sql(rel.temp.batch, auto_cdc.stage_batch_sql({
        'cfg': cfg, 'sql': sql, 'runs': rel.runs if incremental else none,
        'cursor_floor': prior.cursor if prior else none, 'columns_to_update_is_list': ctu_is_list})) -%}
  {%- if incremental and not types -%}
    {%- set types = auto_cdc._relation_types({'target': rel.target, 'log': rel.log, 'runs': rel.runs, 'source': rel.temp.batch}, create_batch) -%}
  {%- else -%}
    {% do auto_cdc._run_sql(create_batch) %}
  {%- endif -%}
  {{ return({'cols': auto_cdc._columns(cfg, rel, incremental, rel.temp.batch, types, check_feed=true, prior=prior)}) }}
{% endmacro %}
