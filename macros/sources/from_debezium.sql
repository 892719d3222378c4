{#-
  auto_cdc.from_debezium(relation, columns, value_column='value', passthrough_columns=[], alias=none):
  a landed Debezium topic (one message value a row, as JSON text or JSON, with or without the converter's
  `schema`/`payload` wrapper) as the feed an auto_cdc model reads, for a FROM clause:

      select * from {{ auto_cdc.from_debezium(source('cdc', 'customers'), columns={'id': 'integer', 'email': 'text'}) }}

  One row per change event: the `columns` (names to SQL types) read from `after` (`before` for a delete,
  which may carry only the key), then `_cdc_sequence` and `_cdc_deleted` (auto_cdc.source_configs()).
    - `_cdc_sequence`: `source.lsn`, the change's own position in the source's log, as a bigint; for a
      snapshot read (`op` r), which loads the target, its position minus 2^62: below every streamed change,
      and a later snapshot's (an incremental one, say) above an earlier one's, so that two reads of a row
      never share a sequence.
    - `_cdc_deleted`: true for `op` d.
  Tombstones (a NULL value) and events that are not a row's change (`op` t, m) are left out. Ordering,
  and why the log position is enough: docs/sources.md.
-#}
{% macro from_debezium(relation, columns, value_column='value', passthrough_columns=[], alias=none) %}
  {{ return(adapter.dispatch('from_debezium', 'auto_cdc')(relation, columns, value_column, passthrough_columns, alias)) }}
{% endmacro %}

{% macro default__from_debezium(relation, columns, value_column, passthrough_columns, alias) %}
  {%- set n = auto_cdc._names() -%}
  {%- set keep = auto_cdc._feed_passthrough(passthrough_columns) -%}
  {%- set doc, envelope, op, lsn, image = auto_cdc._alias('doc'), auto_cdc._alias('envelope'), auto_cdc._alias('op'), auto_cdc._alias('lsn'), auto_cdc._alias('image') -%}
  {%- set values = [] -%}
  {%- for name, type in auto_cdc._feed_columns(columns, 'from_debezium') -%}
    {%- do values.append('cast(' ~ auto_cdc.json_text_sql(image, [name]) ~ ' as ' ~ type ~ ') as ' ~ auto_cdc._q(name)) -%}
  {%- endfor -%}
  {%- set sql -%}
select
  {{ values | join(',\n  ') }},
  {{ keep }}cast({{ lsn }} as bigint) - case when {{ op }} = 'r' then 4611686018427387904 else 0 end as {{ auto_cdc._q(n.feed_sequence) }},
  {{ op }} = 'd' as {{ auto_cdc._q(n.feed_deleted) }}
from (
  select {{ keep }}{{ op }}, {{ lsn }},
    case when {{ op }} = 'd' then {{ auto_cdc.json_get_sql(envelope, ['before']) }} else {{ auto_cdc.json_get_sql(envelope, ['after']) }} end as {{ image }}
  from (
    select {{ keep }}{{ envelope }},
      {{ auto_cdc.json_text_sql(envelope, ['op']) }} as {{ op }},
      {{ auto_cdc.json_text_sql(envelope, ['source', 'lsn']) }} as {{ lsn }}
    from (
      {#- the converter's wrapper when schemas are on; a tombstone's value is NULL -#}
      select {{ keep }}coalesce({{ auto_cdc.json_get_sql(doc, ['payload']) }}, {{ doc }}) as {{ envelope }}
      from (
        select {{ keep }}{{ auto_cdc.json_parse_sql(auto_cdc._q(value_column)) }} as {{ doc }}
        from {{ relation }}
        where {{ auto_cdc._q(value_column) }} is not null
      ) as {{ auto_cdc._alias('messages') }}
    ) as {{ auto_cdc._alias('envelopes') }}
  ) as {{ auto_cdc._alias('events') }}
  where {{ op }} in ('c', 'u', 'd', 'r')
) as {{ auto_cdc._alias('changes') }}
  {%- endset -%}
  {{ return(auto_cdc._feed_from_item(sql, relation, alias)) }}
{% endmacro %}
