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

{#- Steps 1-5 for a staged batch of events (args.batch), after its checks. The first run or a full
    refresh creates the event log and the run log (and drops what was there); an incremental run
    evolves their schema. The target is created from the first recomputation. -#}
{% macro _apply_batch(args, incremental, existing) %}
  {% if incremental %}
    {% do auto_cdc._apply_schema_changes(args) %}
  {% else %}
    {% do auto_cdc._create_bookkeeping(args, existing) %}
  {% endif %}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(args.new, auto_cdc.new_events_sql(args))) %}
  {%- set run_id = auto_cdc._scalar('select coalesce(max(run_id), 0) + 1 from ' ~ args.runs) | int -%}
  {%- if args.cfg.scd == 'bitemporal' -%}
    {% do auto_cdc._run_sql('delete from ' ~ args.log ~ ' as l using ' ~ args.new ~ ' as b where '
          ~ auto_cdc._eq(args.cfg.key_columns + args.cfg.seq_columns, 'l', 'b')) %}
  {%- endif -%}
  {% do auto_cdc._run_sql(auto_cdc.append_to_log_sql(args, run_id)) %}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(args.affected, auto_cdc.affected_keys_sql(args))) %}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(args.desired, auto_cdc.desired_rows_sql(args))) %}
  {% if not incremental %}
    {% do auto_cdc._run_sql(auto_cdc.create_target_sql(args)) %}
    {% do auto_cdc.create_key_indexes(args) %}
  {% endif %}
  {% do auto_cdc._run_sql(auto_cdc.delete_stale_rows_sql(args)) %}
  {% call statement('main') %}
    {{ auto_cdc.insert_missing_rows_sql(args) }}
  {% endcall %}
  {% do auto_cdc._run_sql(auto_cdc.record_run_sql(args, run_id)) %}
{% endmacro %}


{% macro new_events_sql(args) %}
  {{ return(adapter.dispatch('new_events_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__new_events_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- if cfg.scd == 'bitemporal' -%}
    {{ return(auto_cdc._new_bitemporal_events_sql(args)) }}
  {%- endif -%}
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


{#- Bitemporal: an event already logged counts again only if it is now learned at an earlier system
    time; it then replaces the logged one (see _apply_batch). -#}
{% macro _new_bitemporal_events_sql(args) -%}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set st = auto_cdc._q(cfg.system_seq) -%}
  {%- set rest = [] -%}
  {%- for c in args.stored if c != cfg.system_seq -%}{%- do rest.append(c) -%}{%- endfor -%}
select {{ auto_cdc._cols(args.stored, 'b') }}, b.{{ op }}
from (
  select {{ auto_cdc._cols(rest) }}, {{ op }}, min({{ st }}) as {{ st }}
  from {{ args.batch }}
  group by {{ auto_cdc._cols(rest) }}, {{ op }}
) b
where not exists (
  select 1 from {{ args.log }} l
  where {{ auto_cdc._eq(cfg.key_columns + cfg.seq_columns, 'l', 'b') }} and l.{{ st }} <= b.{{ st }}
)
{%- endmacro %}


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
  {%- elif args.cfg.scd == 'bitemporal' -%}
    {{ return(auto_cdc.bitemporal_rows_sql(args)) }}
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
