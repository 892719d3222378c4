{#-
  Generic tests for users' SCD2 and bitemporal targets (the history invariants). On a bitemporal target
  each holds at every system time: among the rows believed at t (__SYSTEM_START_AT <= t and
  (__SYSTEM_END_AT is null or t < __SYSTEM_END_AT)), for each distinct t.

      data_tests:
        - auto_cdc.at_most_one_open_version: {arguments: {keys: ['userId']}}
        - auto_cdc.no_overlapping_versions: {arguments: {keys: ['userId']}}
        - auto_cdc.valid_version_intervals
-#}

{#- The rows to check, with the system time they are checked at (NULL for SCD2). -#}
{% macro _versions_at_system_times(model) -%}
  {%- set n = auto_cdc._names() -%}
  {%- set columns = [] -%}
  {%- for col in adapter.get_columns_in_relation(model) -%}{%- do columns.append(col.name | lower) -%}{%- endfor -%}
  {%- if (n.system_start_at | lower) in columns -%}
    {%- set s = adapter.quote(n.system_start_at) -%}
    {%- set e = adapter.quote(n.system_end_at) -%}
select r.*, t.system_time as __auto_cdc_checked_at
from {{ model }} r
join (select distinct {{ s }} as system_time from {{ model }}) t
  on r.{{ s }} <= t.system_time and (r.{{ e }} is null or t.system_time < r.{{ e }})
  {%- else -%}
select r.*, cast(null as {{ dbt.type_int() }}) as __auto_cdc_checked_at from {{ model }} r
  {%- endif -%}
{%- endmacro %}


{% test at_most_one_open_version(model, keys) %}
  {%- set n = auto_cdc._names() -%}
with versions as ({{ auto_cdc._versions_at_system_times(model) }})
select {{ auto_cdc._cols(keys) }}, __auto_cdc_checked_at, count(*) as open_versions
from versions
where {{ adapter.quote(n.end_at) }} is null
group by {{ auto_cdc._cols(keys) }}, __auto_cdc_checked_at
having count(*) > 1
{% endtest %}


{% test no_overlapping_versions(model, keys) %}
  {%- set n = auto_cdc._names() -%}
  {%- set s = adapter.quote(n.start_at) -%}
  {%- set e = adapter.quote(n.end_at) -%}
with versions as (
  select v.*, row_number() over (partition by {{ auto_cdc._cols(keys) }}, __auto_cdc_checked_at order by {{ s }}) as version_number
  from ({{ auto_cdc._versions_at_system_times(model) }}) v
)
select {{ auto_cdc._cols(keys, 'a') }}, a.__auto_cdc_checked_at, a.{{ s }} as first_start, b.{{ s }} as second_start
from versions a
join versions b
  on {{ auto_cdc._eq(keys, 'a', 'b') }}
 and a.__auto_cdc_checked_at is not distinct from b.__auto_cdc_checked_at
 and a.version_number < b.version_number
where (a.{{ e }} is null or b.{{ s }} < a.{{ e }}) and (b.{{ e }} is null or a.{{ s }} < b.{{ e }})
{% endtest %}


{% test valid_version_intervals(model) %}
  {%- set n = auto_cdc._names() -%}
select *
from {{ model }}
where {{ adapter.quote(n.start_at) }} is null
   or not ({{ adapter.quote(n.end_at) }} is null or {{ adapter.quote(n.start_at) }} < {{ adapter.quote(n.end_at) }})
{% endtest %}
