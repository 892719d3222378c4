{#-
  auto_cdc.as_of(relation, business_time=none, system_time=none): a subquery of the rows of an SCD2
  or bitemporal target valid at a business time, as the system believed them at a system time.
  Both arguments are SQL expressions (e.g. "timestamp '2025-07-18 12:10:00'"), and either may be left
  out: without business_time every version is returned; without system_time, the current belief
  (rows whose __SYSTEM_END_AT is NULL). Use it in a FROM clause:

      select * from {{ auto_cdc.as_of(ref('prices'), business_time="timestamp '2025-07-18 12:10:00'",
                                       system_time="timestamp '2025-07-18 12:22:00'") }} as p
-#}
{% macro as_of(relation, business_time=none, system_time=none) %}
  {%- set n = auto_cdc._names() -%}
  {%- set columns = [] -%}
  {%- if execute -%}
    {%- for col in adapter.get_columns_in_relation(relation) -%}{%- do columns.append(col.name | lower) -%}{%- endfor -%}
    {%- if (n.start_at | lower) not in columns -%}
      {%- do exceptions.raise_compiler_error("auto_cdc.as_of: " ~ relation ~ " has no " ~ n.start_at ~ " column (an SCD2 or bitemporal target is needed)") -%}
    {%- endif -%}
    {%- if system_time is not none and (n.system_start_at | lower) not in columns -%}
      {%- do exceptions.raise_compiler_error("auto_cdc.as_of: system_time needs a bitemporal target; " ~ relation ~ " has no " ~ n.system_start_at ~ " column") -%}
    {%- endif -%}
  {%- endif -%}
  {%- set bitemporal = (n.system_start_at | lower) in columns -%}
  {%- set conditions = [] -%}
  {%- if business_time is not none -%}
    {%- do conditions.append(adapter.quote(n.start_at) ~ ' <= (' ~ business_time ~ ') and (' ~ adapter.quote(n.end_at) ~ ' is null or ' ~ adapter.quote(n.end_at) ~ ' > (' ~ business_time ~ '))') -%}
  {%- endif -%}
  {%- if system_time is not none -%}
    {%- do conditions.append(adapter.quote(n.system_start_at) ~ ' <= (' ~ system_time ~ ') and (' ~ adapter.quote(n.system_end_at) ~ ' is null or ' ~ adapter.quote(n.system_end_at) ~ ' > (' ~ system_time ~ '))') -%}
  {%- elif bitemporal -%}
    {%- do conditions.append(adapter.quote(n.system_end_at) ~ ' is null') -%}
  {%- endif -%}
(select * from {{ relation }}{% if conditions %} where {{ conditions | join(' and ') }}{% endif %})
{%- endmacro %}
