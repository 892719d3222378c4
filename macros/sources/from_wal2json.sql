{#-
  auto_cdc.from_wal2json(relation, table, columns, schema=none, keys=none, data_column='data',
  passthrough_columns=[], alias=none): Postgres logical decoding through wal2json's format 2 (one JSON
  message a row: what pg_logical_slot_get_changes or pg_recvlogical returns, with `include-lsn`), the
  changes of one source table, as the feed an auto_cdc model reads:

      select * from {{ auto_cdc.from_wal2json(source('cdc', 'wal2json'), table='customers',
                                               columns={'id': 'integer', 'email': 'text'}) }}

  One row per change of `schema`.`table` (any schema when none): the `columns` (names to SQL types) from
  the message's `columns` array (`identity` for a delete: with REPLICA IDENTITY DEFAULT only the key),
  then `_cdc_sequence` (the change's `lsn` as a bigint) and `_cdc_deleted` (action D). An update that
  changes the key (`identity` holds the old one) also deletes the old key: `keys` names the key columns,
  by default the model's `keys` config. Transaction markers (B, C), other tables and truncates (T) are
  left out. docs/sources.md says why the change's position orders a row's changes.
-#}
{% macro from_wal2json(relation, table, columns, schema=none, keys=none, data_column='data', passthrough_columns=[], alias=none) %}
  {{ return(adapter.dispatch('from_wal2json', 'auto_cdc')(relation, table, columns, schema, keys, data_column, passthrough_columns, alias)) }}
{% endmacro %}

{% macro default__from_wal2json(relation, table, columns, schema, keys, data_column, passthrough_columns, alias) %}
  {%- set n = auto_cdc._names() -%}
  {%- set keep = auto_cdc._feed_passthrough(passthrough_columns) -%}
  {%- set doc, action, lsn, new, old, image, deleted = auto_cdc._alias('doc'), auto_cdc._alias('action'), auto_cdc._alias('lsn'), auto_cdc._alias('new'), auto_cdc._alias('old'), auto_cdc._alias('image'), auto_cdc._alias('deleted') -%}
  {%- set key_columns = keys if keys is not none else config.get('keys') -%}
  {%- set key_columns = [key_columns] if key_columns is string else (key_columns or []) -%}
  {%- set moved = [] -%}
  {%- for k in key_columns -%}
    {%- do moved.append(auto_cdc.json_pair_text_sql(old, k) ~ ' is distinct from ' ~ auto_cdc.json_pair_text_sql(new, k)) -%}
  {%- endfor -%}
  {%- set values = [] -%}
  {%- for name, type in auto_cdc._feed_columns(columns, 'from_wal2json') -%}
    {%- do values.append('cast(' ~ auto_cdc.json_pair_text_sql(image, name) ~ ' as ' ~ type ~ ') as ' ~ auto_cdc._q(name)) -%}
  {%- endfor -%}
  {%- set sql -%}
with {{ auto_cdc._alias('messages') }} as (
  select {{ keep }}{{ doc }}, {{ auto_cdc.json_text_sql(doc, ['action']) }} as {{ action }}
  from (
    select {{ keep }}{{ auto_cdc.json_parse_sql(auto_cdc._q(data_column)) }} as {{ doc }}
    from {{ relation }}
    where {{ auto_cdc._q(data_column) }} is not null
  ) as {{ auto_cdc._alias('parsed') }}
),
{{ auto_cdc._alias('rows') }} as (
  select {{ keep }}{{ action }},
    {{ auto_cdc.json_text_sql(doc, ['lsn']) }} as {{ lsn }},
    {{ auto_cdc.json_pairs_sql(doc, 'columns') }} as {{ new }},
    {{ auto_cdc.json_pairs_sql(doc, 'identity') }} as {{ old }}
  from {{ auto_cdc._alias('messages') }}
  where {{ action }} in ('I', 'U', 'D')
    and {{ auto_cdc.json_text_sql(doc, ['table']) }} = '{{ table | replace("'", "''") }}'
    {%- if schema is not none %}
    and {{ auto_cdc.json_text_sql(doc, ['schema']) }} = '{{ schema | replace("'", "''") }}'
    {%- endif %}
),
{{ auto_cdc._alias('changes') }} as (
  select {{ keep }}{{ lsn }}, case when {{ action }} = 'D' then {{ old }} else {{ new }} end as {{ image }}, {{ action }} = 'D' as {{ deleted }}
  from {{ auto_cdc._alias('rows') }}
  {%- if moved %}
  {#- an update of the key: the row left its old key, which the same position deletes #}
  union all
  select {{ keep }}{{ lsn }}, {{ old }} as {{ image }}, true as {{ deleted }}
  from {{ auto_cdc._alias('rows') }}
  where {{ action }} = 'U' and {{ old }} is not null and ({{ moved | join(' or ') }})
  {%- endif %}
)
select
  {{ values | join(',\n  ') }},
  {{ keep }}{{ auto_cdc.lsn_number_sql(lsn) }} as {{ auto_cdc._q(n.feed_sequence) }},
  {{ deleted }} as {{ auto_cdc._q(n.feed_deleted) }}
from {{ auto_cdc._alias('changes') }}
  {%- endset -%}
  {{ return(auto_cdc._feed_from_item(sql, relation, alias)) }}
{% endmacro %}
