{#-
  R5 partial updates, shared by the SCD1 and SCD2 builders. Given a CTE `events` (a key's events,
  any order), defines `merged`: the same events where each partial column holds the value written
  by the greatest-sequence event that wrote it since the key's last delete (NULL if none did). An
  upsert writes a column unless columns_to_update leaves it out or ignore_null_updates skips its
  NULL; keys and sequence columns are always written. A delete starts a new segment, so nothing
  from before it comes back. Without partial updates `merged` is `events`.
-#}
{#- `carry`: columns that split a key's events further (scd2_rows_sql). -#}
{% macro merged_events_ctes(args, carry=[]) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set p = n.internal_prefix -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set partial = [] -%}
  {%- for c in args.cols.output if c in cfg.payload and (cfg.columns_to_update or c in cfg.ignore_null) -%}
    {%- do partial.append(c) -%}
  {%- endfor -%}
  {%- if not partial -%}
merged as (select * from events),
  {%- else -%}
  {%- set keys = auto_cdc._cols(cfg.key_columns + carry) -%}
  {%- set order = auto_cdc._seq_order(cfg.seq_columns) -%}
  {%- set segment = auto_cdc._q(p ~ 'segment') -%}
  {%- set columns = [] -%}
  {%- for c in cfg.key_columns + cfg.seq_columns + args.cols.output + ([cfg.system_seq] if cfg.system_seq else []) + carry if c not in columns -%}
    {%- do columns.append(c) -%}
  {%- endfor -%}
segmented as (
  select
    events.*,
    sum(case when {{ op }} = '{{ n.upsert }}' then 0 else 1 end) over (
      partition by {{ keys }} order by {{ order }} rows between unbounded preceding and current row
    ) as {{ segment }}
  from events
),
writes as (
  select
    segmented.*,
    {%- for c in partial %}
    count(case when {{ auto_cdc._writes_sql(args, c) }} then 1 end) over (
      partition by {{ keys }}, {{ segment }} order by {{ order }} rows between unbounded preceding and current row
    ) as {{ auto_cdc._q(p ~ 'writes_' ~ loop.index0) }}{{ ',' if not loop.last }}
    {%- endfor %}
  from segmented
),
merged as (
  select
    {%- for c in columns if c not in partial %}
    {{ auto_cdc._q(c) }},
    {%- endfor %}
    {%- for c in partial %}
    {%- set w = auto_cdc._q(p ~ 'writes_' ~ loop.index0) %}
    case when {{ w }} = 0 then null else first_value({{ auto_cdc._q(c) }}) over (
      partition by {{ keys }}, {{ segment }}, {{ w }} order by {{ order }}
    ) end as {{ auto_cdc._q(c) }},
    {%- endfor %}
    {{ op }}
  from writes
),
  {%- endif -%}
{% endmacro %}


{#- Does this event write column c? (the event is an upsert; an edit event writes every column) -#}
{% macro _writes_sql(args, c) -%}
  {%- set n = auto_cdc._names() -%}
  {%- set upsert = auto_cdc._q(n.op) ~ " = '" ~ n.upsert ~ "'" -%}
  {%- if args.cfg.columns_to_update -%}
    {%- set listed = "'," ~ (c | lower | replace("'", "''")) ~ ",'" -%}
{{ upsert }} and ({{ auto_cdc._q(n.columns) }} is null or position({{ listed }} in {{ auto_cdc._q(n.columns) }}) > 0)
  {%- else -%}
{{ upsert }} and ({{ auto_cdc._q(c) }} is not null or {{ auto_cdc._q(n.edit) }})
  {%- endif -%}
{%- endmacro %}
