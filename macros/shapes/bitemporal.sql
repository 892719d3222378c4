{#-
  Bitemporal (R6). For each distinct system time t of a key, H(t) is the SCD2 history (R4, along
  sequence_by) of the key's events whose system time is <= t: the SCD2 builder runs once per
  (key, t), partitioned by both. A row (key, values, __START_AT, __END_AT) then gets
  __SYSTEM_START_AT = the first t of each run of consecutive system times it is in H(t), and
  __SYSTEM_END_AT = the key's next system time after that run (NULL while it is still in H).
  A late event on either timeline changes H(t) from its system time on, and the replay corrects it.
-#}
{% macro bitemporal_rows_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set p = n.internal_prefix -%}
  {%- set t = p ~ 'system_time' -%}
  {%- set st = auto_cdc._q(cfg.system_seq) -%}
  {#- a row of H is identified by all its columns (keys are output columns) -#}
  {%- set identity = args.cols.output + [n.start_at, n.end_at] -%}
  {%- set times_sql -%}
    select distinct {{ auto_cdc._cols(cfg.key_columns, 'l') }}, l.{{ st }} as {{ auto_cdc._q(t) }}
    from {{ args.rel.log }} l
    join {{ args.rel.temp.affected }} a on {{ auto_cdc._eq(cfg.key_columns, 'l', 'a') }}
  {%- endset -%}
  {%- set events_sql -%}
    select l.*, x.{{ auto_cdc._q(t) }}
    from {{ args.rel.log }} l
    join ({{ times_sql }}) x on {{ auto_cdc._eq(cfg.key_columns, 'l', 'x') }} and l.{{ st }} <= x.{{ auto_cdc._q(t) }}
  {%- endset -%}
with history as (
  {{ auto_cdc.scd2_rows_sql(args, events_sql, carry=[t]) }}
),
times as (
  select x.*, dense_rank() over (partition by {{ auto_cdc._cols(cfg.key_columns, 'x') }} order by x.{{ auto_cdc._q(t) }}) as {{ auto_cdc._q(p ~ 'time_index') }}
  from ({{ times_sql }}) x
),
present as (
  select
    h.*,
    x.{{ auto_cdc._q(p ~ 'time_index') }},
    x.{{ auto_cdc._q(p ~ 'time_index') }} - row_number() over (
      partition by {{ auto_cdc._cols(identity, 'h') }} order by x.{{ auto_cdc._q(p ~ 'time_index') }}
    ) as {{ auto_cdc._q(p ~ 'island') }}
  from history h
  join times x on {{ auto_cdc._eq(cfg.key_columns, 'h', 'x') }} and h.{{ auto_cdc._q(t) }} = x.{{ auto_cdc._q(t) }}
),
islands as (
  select {{ auto_cdc._cols(identity) }}, min({{ auto_cdc._q(t) }}) as {{ auto_cdc._q(p ~ 'system_start') }}, max({{ auto_cdc._q(p ~ 'time_index') }}) as {{ auto_cdc._q(p ~ 'last_index') }}
  from present
  group by {{ auto_cdc._cols(identity) }}, {{ auto_cdc._q(p ~ 'island') }}
)
select
  {{ auto_cdc._cols(identity, 'i') }},
  i.{{ auto_cdc._q(p ~ 'system_start') }} as {{ auto_cdc._q(n.system_start_at) }},
  x.{{ auto_cdc._q(t) }} as {{ auto_cdc._q(n.system_end_at) }}
from islands i
left join times x on {{ auto_cdc._eq(cfg.key_columns, 'i', 'x') }} and x.{{ auto_cdc._q(p ~ 'time_index') }} = i.{{ auto_cdc._q(p ~ 'last_index') }} + 1
{% endmacro %}
