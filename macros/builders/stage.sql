{#-
  Stage the change feed: the model's rows, classified into upsert / delete / truncate, reduced to the
  columns the package keeps. A delete or truncate carries no payload (its values never matter), and a
  truncate no key. With cursor_column, only rows at or after the largest cursor already applied are
  read (>=: re-reading the boundary is harmless, R2).
-#}
{% macro stage_batch_sql(args) %}
  {{ return(adapter.dispatch('stage_batch_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__stage_batch_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set kept_on_every_event = cfg.key_columns + cfg.seq_columns + ([cfg.system_seq] if cfg.system_seq else []) -%}
select
  {%- for c in cfg.key_columns %}
  case when s.{{ op }} = '{{ n.truncate }}' then null else s.{{ auto_cdc._q(c) }} end as {{ auto_cdc._q(c) }},
  {%- endfor %}
  {%- for c in cfg.stored if c not in cfg.key_columns %}
  {%- if c in kept_on_every_event %}
  s.{{ auto_cdc._q(c) }},
  {%- else %}
  case when s.{{ op }} = '{{ n.upsert }}' then s.{{ auto_cdc._q(c) }} end as {{ auto_cdc._q(c) }},
  {%- endif %}
  {%- endfor %}
  s.{{ op }},
  {% if cfg.cursor %}s.{{ auto_cdc._q(cfg.cursor) }}{% else %}cast(null as {{ dbt.type_string() }}){% endif %} as {{ auto_cdc._q(n.cursor) }}
from (
  select
    src.*,
    {%- if cfg.truncate_expr or cfg.delete_expr %}
    case
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
  {%- if cfg.cursor and args.runs is not none %}
  where (select max(cursor_value) from {{ args.runs }}) is null
     or src.{{ auto_cdc._q(cfg.cursor) }} >= (select max(cursor_value) from {{ args.runs }})
  {%- endif %}
) s
{% endmacro %}
