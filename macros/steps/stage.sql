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
  {%- set cfg, n = args.cfg, auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set upserts = "s." ~ op ~ " in ('" ~ n.upsert ~ "', 'snapshot')" -%}
  {%- set kept = cfg.key_columns + cfg.seq_columns + ([cfg.system_seq] if cfg.system_seq else []) -%}
  {%- set kinds = [] -%}
  {%- for expr, kind in [(cfg.snapshot_expr, 'snapshot'), (cfg.truncate_expr, n.truncate), (cfg.delete_expr, n.delete)] if expr -%}
    {%- do kinds.append('when (' ~ expr ~ ") then '" ~ kind ~ "'") -%}
  {%- endfor -%}
  {%- set floor = args.get('cursor_floor') if args.get('cursor_floor') is not none else auto_cdc._last_cursor(args.runs) -%}
  {%- set staged -%}
select
  {%- for c in cfg.stored %}
  {% if c in cfg.key_columns -%}
  case when s.{{ op }} = '{{ n.truncate }}' then null else s.{{ auto_cdc._q(c) }} end
  {%- elif c == n.columns -%}
  case when {{ upserts }} then {{ auto_cdc.columns_to_update_sql('s.' ~ auto_cdc._q(cfg.columns_to_update), args.columns_to_update_is_list) }} end
  {%- elif c in kept -%}
  s.{{ auto_cdc._q(c) }}
  {%- else -%}
  case when {{ upserts }} then s.{{ auto_cdc._q(c) }} end
  {%- endif %} as {{ auto_cdc._q(c) }},
  {%- endfor %}
  s.{{ op }},
  {% if cfg.cursor %}s.{{ auto_cdc._q(cfg.cursor) }}{% else %}cast(null as {{ dbt.type_string() }}){% endif %} as {{ auto_cdc._q(n.cursor) }}
from (
  select src.*, {% if kinds %}case {{ kinds | join(' ') }} else '{{ n.upsert }}' end{% else %}'{{ n.upsert }}'{% endif %} as {{ op }}
  from (
    {{ args.sql }}
  ) src
  {%- if cfg.cursor and args.runs is not none and floor != 'null' %}
  where {{ floor }} is null or src.{{ auto_cdc._q(cfg.cursor) }} >= {{ floor }}
  {%- endif %}
) s
  {%- endset -%}
  {{ return(auto_cdc._stage_snapshot_rows_sql(args, staged) if cfg.snapshot_expr else staged) }}
{% endmacro %}


{#- apply_as_snapshot: the staged rows it marks ('snapshot') become an upsert each and a truncate at each of
    their sequence values. -#}
{% macro _stage_snapshot_rows_sql(args, staged) %}
  {%- set cfg, n = args.cfg, auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set typed_nulls = [] -%}
  {%- for c in cfg.stored -%}{%- do typed_nulls.append(auto_cdc._q(c) if c in cfg.seq_columns else 'case when 1 = 0 then ' ~ auto_cdc._q(c) ~ ' end') -%}{%- endfor -%}
with staged as (
{{ staged }}
)
select {{ auto_cdc._cols(cfg.stored) }}, case when {{ op }} = 'snapshot' then '{{ n.upsert }}' else {{ op }} end as {{ op }}, {{ auto_cdc._q(n.cursor) }}
from staged
union all
select distinct {{ typed_nulls | join(', ') }}, '{{ n.truncate }}', {{ auto_cdc._q(n.cursor) }}
from staged
where {{ op }} = 'snapshot'
{% endmacro %}


{#- Stage the feed into the run's batch (stage_batch_sql) and lay out its columns (steps/schema.sql). An
    incremental run reads the column types of the target, its logs and the batch (unless the model's
    columns came with them) in the batch's round trip; the engine may read what the run needs of the run
    log first (prior_runs). -#}
{% macro _stage_feed(cfg, rel, sql, incremental, types) %}
  {%- set ctu_is_list = cfg.columns_to_update is not none and auto_cdc._is_list_type(
        auto_cdc._column_types('select ' ~ auto_cdc._q(cfg.columns_to_update) ~ ' from (' ~ sql ~ ') s').values() | first) -%}
  {%- set prior = auto_cdc.prior_runs(rel) if incremental and auto_cdc._engine().prior_runs else none -%}
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
