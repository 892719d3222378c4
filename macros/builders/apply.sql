{#-
  The apply step, shared by every target shape. The event log beside the target holds every event
  ever applied; a run
    1. keeps the batch's events the log does not hold yet (re-read events are duplicates: R2),
    2. appends them to the log,
    3. collects the keys they touch (a truncate touches every key),
    4. recomputes those keys' rows from their whole history in the log (the shape's builder), and
    5. writes only the difference into the target: rows that are no longer right are deleted,
       rows that are missing are inserted; untouched keys and unchanged rows are never rewritten.
  So a run's cost follows its new events and the history of the keys they touch (R1, R8).
-#}

{% macro new_events_sql(args) %}
  {{ return(adapter.dispatch('new_events_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__new_events_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
select distinct {{ auto_cdc._cols(args.stored, 'b') }}, b.{{ op }}
from {{ args.batch }} b
where not exists (
    select 1 from {{ args.log }} l
    where l.{{ op }} <> '{{ n.truncate }}'
      and {{ auto_cdc._eq(cfg.key_columns + cfg.seq_columns, 'l', 'b') }}
  )
  and not exists (
    select 1 from {{ args.log }} l
    where b.{{ op }} = '{{ n.truncate }}' and l.{{ op }} = '{{ n.truncate }}'
      and {{ auto_cdc._eq(cfg.seq_columns, 'l', 'b') }}
  )
{% endmacro %}


{% macro affected_keys_sql(args) %}
  {{ return(adapter.dispatch('affected_keys_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__affected_keys_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
select distinct {{ auto_cdc._cols(cfg.key_columns) }}
from {{ args.new }}
where {{ op }} <> '{{ n.truncate }}'
union
select distinct {{ auto_cdc._cols(cfg.key_columns) }}
from {{ args.log }}
where {{ op }} <> '{{ n.truncate }}'
  and exists (select 1 from {{ args.new }} where {{ op }} = '{{ n.truncate }}')
{% endmacro %}


{#- The target's rows for the affected keys, recomputed from the log. -#}
{% macro desired_rows_sql(args) %}
  {%- if args.cfg.scd == 1 -%}
    {{ return(auto_cdc.scd1_rows_sql(args)) }}
  {%- else -%}
    {{ return(auto_cdc.scd2_rows_sql(args)) }}
  {%- endif -%}
{% endmacro %}


{#- Target rows of affected keys that the recomputation no longer produces. -#}
{% macro delete_stale_rows_sql(args) %}
  {{ return(adapter.dispatch('delete_stale_rows_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__delete_stale_rows_sql(args) %}
  {%- set cfg = args.cfg -%}
delete from {{ args.target }} as t
using {{ args.affected }} a
where {{ auto_cdc._eq(cfg.key_columns, 't', 'a') }}
  and not exists (
    select 1 from {{ args.desired }} d
    where {{ auto_cdc._eq(cfg.key_columns, 'd', 't') }}
      and {{ auto_cdc._same(args.target_columns, 'd', 't') }}
  )
{% endmacro %}


{#- Recomputed rows the target does not hold yet. -#}
{% macro insert_missing_rows_sql(args) %}
  {{ return(adapter.dispatch('insert_missing_rows_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__insert_missing_rows_sql(args) %}
  {%- set cfg = args.cfg -%}
insert into {{ args.target }} ({{ auto_cdc._cols(args.target_columns) }})
select {{ auto_cdc._cols(args.target_columns, 'd') }}
from {{ args.desired }} d
where not exists (
  select 1 from {{ args.target }} t
  where {{ auto_cdc._eq(cfg.key_columns, 't', 'd') }}
    and {{ auto_cdc._same(args.target_columns, 't', 'd') }}
)
{% endmacro %}
