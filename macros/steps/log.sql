{#- New events whose key already had a later event applied: they land inside the history (R1). The outer
    alias is a reserved name: Spark resolves a name in a correlated subquery against the inner table's
    columns first, so `b.x` would break on a log with a column `b`. -#}
{% macro late_events_sql(args) -%}
  {%- set cfg = args.cfg -%}
  {%- set op = auto_cdc._q(auto_cdc._names().op) -%}
select count(*) from (
  select {{ auto_cdc.broadcast_hint(['b'], args.plan.get('batch_rows'), (cfg.key_columns + cfg.seq_columns) | length) }}distinct {{ auto_cdc._cols(cfg.key_columns + cfg.seq_columns, 'b') }}
  from {{ args.rel.temp.new }} b
  join {{ args.plan.logged }} l on {{ auto_cdc._eq(cfg.key_columns, 'l', 'b') }}
  where b.{{ op }} <> '{{ auto_cdc._names().truncate }}'
    and l.{{ op }} in ('{{ auto_cdc._names().upsert }}', '{{ auto_cdc._names().delete }}')
    and {{ auto_cdc._seq_lt(cfg.seq_columns, 'b', 'l') }}
) late
{%- endmacro %}


{#- Bitemporal: an event already logged counts again only if it is now learned at an earlier system
    time; it then replaces the logged one (see _apply_batch). -#}
{% macro _new_bitemporal_events_sql(args) -%}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set st = auto_cdc._q(cfg.system_seq) -%}
  {%- set rest = [] -%}
  {%- for c in args.cols.stored if c != cfg.system_seq -%}{%- do rest.append(c) -%}{%- endfor -%}
select {{ auto_cdc._cols(args.cols.stored, 'b') }}, b.{{ op }}
from (
  select {{ auto_cdc._cols(rest) }}, {{ op }}, min({{ st }}) as {{ st }}
  from {{ args.rel.temp.batch }}
  group by {{ auto_cdc._cols(rest) }}, {{ op }}
) b
where not exists (
  select 1 from {{ args.plan.logged }} l
  where {{ auto_cdc._eq(cfg.key_columns + cfg.seq_columns, 'l', 'b') }} and l.{{ st }} <= b.{{ st }}
)
{%- endmacro %}


{#- First run or full refresh: drop what was there, create the event log and the run log. The
    target itself is created from the first recomputation (create_target_sql). -#}
{% macro _create_bookkeeping(args, existing) %}
  {%- set n = auto_cdc._names() -%}
  {%- for rel in existing if rel is not none -%}
    {% do adapter.drop_relation(rel) %}
  {%- endfor -%}
  {% do auto_cdc.create_seq_type(args) %}
  {% do auto_cdc._run_sql(auto_cdc.create_log_sql(args)) %}
  {% do auto_cdc._run_sql(auto_cdc.create_runs_sql(args)) %}
{% endmacro %}


{#- The run's new events into its history of the affected keys (which holds no truncates). -#}
{% macro append_to_history_sql(args, run_id) %}
  {%- set n = auto_cdc._names() -%}
insert into {{ args.rel.temp.history }} ({{ auto_cdc._cols(args.cols.stored) }}, {{ auto_cdc._q(n.op) }}, {{ auto_cdc._q(n.run) }})
select {{ auto_cdc._cols(args.cols.stored) }}, {{ auto_cdc._q(n.op) }}, {{ run_id }}
from {{ args.rel.temp.new }} b
where {{ auto_cdc._q(n.op) }} <> '{{ n.truncate }}'
{%- if args.plan.classified %}
  and exists (select 1 from {{ args.plan.replay_keys }} r where {{ auto_cdc._eq(args.cfg.key_columns, 'r', 'b') }})
{%- endif %}
{% endmacro %}
