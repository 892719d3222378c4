{#-
  auto_cdc.from_dms(relation, sequence_column=none, timestamp_column=none, op_column='Op', columns=none,
  alias=none): what AWS DMS writes to a landing table or to CSV / parquet files (its full load and its
  changes, loaded into one table) as the feed an auto_cdc model reads:

      select * from {{ auto_cdc.from_dms(source('dms', 'customers'), sequence_column='_dms_change_seq') }}

  One row per row of the relation: its columns (or `columns`, names to SQL types, cast from the landed
  values: a CSV landed as text), then `_cdc_sequence` and `_cdc_deleted` (Op D). The order comes from
  one of the columns DMS can add:
    - `sequence_column`: a column holding `$AR_H_CHANGE_SEQ` (a transformation rule adds it), a number of
      up to 35 digits that grows with every change, inside a transaction too: a decimal(38,0);
    - else `timestamp_column` (the endpoint's TimestampColumnName): the source's commit time, a timestamp,
      which two changes of one row in one transaction share (the run then stops on a conflict).
  A full-load row (no Op, or no change sequence) orders before every change: 0, or 1900-01-01.
-#}
{% macro from_dms(relation, sequence_column=none, timestamp_column=none, op_column='Op', columns=none, alias=none) %}
  {{ return(adapter.dispatch('from_dms', 'auto_cdc')(relation, sequence_column, timestamp_column, op_column, columns, alias)) }}
{% endmacro %}

{% macro default__from_dms(relation, sequence_column, timestamp_column, op_column, columns, alias) %}
  {%- set n = auto_cdc._names() -%}
  {%- if sequence_column is none and timestamp_column is none -%}
    {%- do exceptions.raise_compiler_error("auto_cdc.from_dms: name the column that orders the changes: sequence_column (a column of $AR_H_CHANGE_SEQ) or timestamp_column (the endpoint's TimestampColumnName)") -%}
  {%- endif -%}
  {%- set op = auto_cdc._q(op_column) -%}
  {%- set text = dbt.type_string() -%}
  {%- set load = ["coalesce(trim(cast(" ~ op ~ " as " ~ text ~ ")), '') = ''"] -%}
  {%- if sequence_column is not none -%}
    {%- set position = 'trim(cast(' ~ auto_cdc._q(sequence_column) ~ ' as ' ~ text ~ '))' -%}
    {%- do load.append("coalesce(" ~ position ~ ", '') = ''") -%}
    {%- set sequence = 'case when ' ~ (load | join(' or ')) ~ ' then cast(0 as decimal(38, 0)) else cast(' ~ position ~ ' as decimal(38, 0)) end' -%}
  {%- else -%}
    {%- set sequence = "case when " ~ (load | join(' or ')) ~ " then cast('1900-01-01 00:00:00' as timestamp) else cast(" ~ auto_cdc._q(timestamp_column) ~ " as timestamp) end" -%}
  {%- endif -%}
  {%- set payload = auto_cdc._feed_table_columns(relation, columns, [op_column, sequence_column, timestamp_column] | reject('none') | list, 'from_dms') -%}
  {%- set sql -%}
select
  {{ payload }},
  {{ sequence }} as {{ auto_cdc._q(n.feed_sequence) }},
  coalesce(trim(cast({{ op }} as {{ text }})) = 'D', false) as {{ auto_cdc._q(n.feed_deleted) }}
from {{ relation }}
  {%- endset -%}
  {{ return(auto_cdc._feed_from_item(sql, relation, alias)) }}
{% endmacro %}
