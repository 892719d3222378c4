{#-
  SCD type 2 (R4). Walk each key's events in sequence order:
  - an upsert starts a version when the previous event is not an upsert (first event, or after a
    delete) or when a tracked column differs from the previous upsert (NULL-safe); otherwise it is
    absorbed into the open version, which keeps its __START_AT and takes the untracked values;
  - a version ends at the sequence of the event that follows its last upsert (the next version's
    start, or a delete); the last version of a key that was not deleted stays open.
  Because the whole history of a touched key is replayed from the log, a late event lands in its
  place and splits the version it falls into, absorbed runs included.
-#}
{#- The events of the affected keys (or of the keys in keys_relation) that count: from the run's
    history temp table once it holds them (path.history_ready, apply.sql), else from the log. -#}
{% macro _affected_events_sql(args, keys_relation=none) -%}
  {%- if args.plan.history_ready -%}
  select h.* from {{ args.rel.temp.history }} h
    {%- if keys_relation %} join {{ keys_relation }} a on {{ auto_cdc._eq(args.cfg.key_columns, 'h', 'a') }}{% endif %}
  {%- else -%}
  {{ auto_cdc._logged_events_sql(args, keys_relation) }}
  {%- endif -%}
{%- endmacro %}


{#- The logged events of the affected keys (or of the keys in keys_relation) that count: every
    logged event but truncates, except those a later run masked when it folded hand edits of the key
    into the log (macros/builders/edits.sql). The run's history temp table is filled from this. `log`:
    where to read them (by default the log). -#}
{% macro _logged_events_sql(args, keys_relation=none, log=none) -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set log = log or args.rel.log -%}
  select l.*
  from {{ log }} l
  join {{ keys_relation or args.plan.replay_keys or args.rel.temp.affected }} a on {{ auto_cdc._eq(args.cfg.key_columns, 'l', 'a') }}
  where l.{{ op }} in ('{{ n.upsert }}', '{{ n.delete }}')
  {%- if args.plan.has_edits %}
    and not exists (
      select 1 from {{ log }} m
      where m.{{ op }} = '{{ n.mask }}' and {{ auto_cdc._eq(args.cfg.key_columns, 'm', 'l') }}
        and m.{{ auto_cdc._q(n.run) }} > l.{{ auto_cdc._q(n.run) }}
    )
  {%- endif %}
{%- endmacro %}


{#- `events_sql`: the events to walk (by default the affected keys', _affected_events_sql); `carry`: columns
    the events carry into the rows, each key's events walked once per value of them (bitemporal: the
    system time). -#}
{% macro scd2_rows_sql(args, events_sql=none, carry=[]) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set p = n.internal_prefix -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {#- bitemporal replays each key once per system time: the partition then includes that time -#}
  {%- set partition = cfg.key_columns + carry -%}
  {%- set keys = auto_cdc._cols(partition) -%}
  {%- set order = auto_cdc._seq_order(cfg.seq_columns) -%}
  {%- set compared = [] -%}
  {%- for c in args.cols.tracked if c not in cfg.key_columns -%}{%- do compared.append(c) -%}{%- endfor -%}
  {%- set starts = [] -%}{%- set ends = [] -%}
  {%- for c in cfg.seq_columns -%}
    {%- do starts.append(auto_cdc._q(p ~ 'start_' ~ loop.index0)) -%}
    {%- do ends.append(auto_cdc._q(p ~ 'next_' ~ loop.index0)) -%}
  {%- endfor -%}
with events as (
  {{ events_sql or auto_cdc._affected_events_sql(args) }}
),
{{ auto_cdc.merged_events_ctes(args, carry) }}
{{ auto_cdc._scd2_flagged_ctes(args, keys, order, compared, ends) }}
versions as (
  select
    flagged.*,
    {%- if cfg.seq_columns | length == 1 %}
    {#- the version's start: the latest start so far (the sequence ascends), in the same window pass -#}
    max(case when {{ auto_cdc._q(p ~ 'is_start') }} = 1 then {{ auto_cdc._q(cfg.seq_columns[0]) }} end) over (
      partition by {{ keys }} order by {{ order }} rows between unbounded preceding and current row
    ) as {{ starts[0] }},
    {%- else %}
    sum({{ auto_cdc._q(p ~ 'is_start') }}) over (
      partition by {{ keys }} order by {{ order }} rows between unbounded preceding and current row
    ) as {{ auto_cdc._q(p ~ 'version_id') }},
    {%- endif %}
    lead({{ auto_cdc._q(p ~ 'is_start') }}) over (partition by {{ keys }} order by {{ order }}) as {{ auto_cdc._q(p ~ 'next_is_start') }}
  from flagged
),
upserts as (
  select
    versions.*
    {%- if cfg.seq_columns | length > 1 %}
    {#- a sequence of several columns has no max: the version's first row, in a window of its own -#}
    {%- for c in cfg.seq_columns %},
    first_value({{ auto_cdc._q(c) }}) over (
      partition by {{ keys }}, {{ auto_cdc._q(p ~ 'version_id') }} order by {{ order }}
    ) as {{ starts[loop.index0] }}
    {%- endfor %}
    {%- endif %}
  from versions
  where {{ op }} = '{{ n.upsert }}'
)
select
  {{ auto_cdc._cols(args.cols.output) }},
  {%- for c in carry %}
  {{ auto_cdc._q(c) }},
  {%- endfor %}
  {{ auto_cdc.seq_value_sql(starts, args) }} as {{ auto_cdc._q(n.start_at) }},
  case when {{ auto_cdc._q(p ~ 'next_op') }} is null then null
       else {{ auto_cdc.seq_value_sql(ends, args) }} end as {{ auto_cdc._q(n.end_at) }}
from upserts
where {{ auto_cdc._q(p ~ 'next_op') }} is null
   or {{ auto_cdc._q(p ~ 'next_op') }} <> '{{ n.upsert }}'
   or {{ auto_cdc._q(p ~ 'next_is_start') }} = 1
{% endmacro %}


{#- Each event with its neighbours in the key's order (the operation and tracked values before it, the
    sequence and operation after it), and whether it starts a version: an upsert after a delete, after
    nothing, or that changes a tracked column. -#}
{% macro _scd2_flagged_ctes(args, keys, order, compared, ends) -%}
  {%- set cfg, n = args.cfg, auto_cdc._names() -%}
  {%- set p, op = n.internal_prefix, auto_cdc._q(n.op) -%}
neighbours as (
  select
    merged.*,
    lag({{ op }}) over w as {{ auto_cdc._q(p ~ 'prev_op') }},
    {%- for c in compared %}
    lag({{ auto_cdc._q(c) }}) over w as {{ auto_cdc._q(p ~ 'prev_' ~ loop.index0) }},
    {%- endfor %}
    {%- for c in cfg.seq_columns %}
    lead({{ auto_cdc._q(c) }}) over w as {{ ends[loop.index0] }},
    {%- endfor %}
    lead({{ op }}) over w as {{ auto_cdc._q(p ~ 'next_op') }}
  from merged
  window w as (partition by {{ keys }} order by {{ order }})
),
flagged as (
  select
    neighbours.*,
    case
      when {{ op }} <> '{{ n.upsert }}' then 0
      when {{ auto_cdc._q(p ~ 'prev_op') }} is null or {{ auto_cdc._q(p ~ 'prev_op') }} <> '{{ n.upsert }}' then 1
      {%- for c in compared %}
      when {{ auto_cdc._q(c) }} is distinct from {{ auto_cdc._q(p ~ 'prev_' ~ loop.index0) }} then 1
      {%- endfor %}
      else 0
    end as {{ auto_cdc._q(p ~ 'is_start') }}
  from neighbours
),
{%- endmacro %}
