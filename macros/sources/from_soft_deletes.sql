{#-
  auto_cdc.from_soft_deletes(relation, deleted_column='_fivetran_deleted', sequence_column='_fivetran_synced',
  deleted_when=none, columns=none, alias=none): a table that a sync keeps up to date and whose deleted
  rows stay with a flag (Fivetran's `_fivetran_deleted` and `_fivetran_synced`, or any flag column and
  ordering column) as the feed an auto_cdc model reads:

      select * from {{ auto_cdc.from_soft_deletes(source('fivetran', 'customers')) }}

  One row per row of the relation: its columns but the two (or `columns`, names to SQL types), then
  `_cdc_sequence` (the ordering column as it is: a timestamp or a number) and `_cdc_deleted` (the flag
  is true; `deleted_when`, a SQL condition, for a flag of another kind, e.g.
  "_ab_cdc_deleted_at is not null"). Each run reads the rows' current state: the target's history holds
  the states the runs saw.
-#}
{% macro from_soft_deletes(relation, deleted_column='_fivetran_deleted', sequence_column='_fivetran_synced', deleted_when=none, columns=none, alias=none) %}
  {{ return(adapter.dispatch('from_soft_deletes', 'auto_cdc')(relation, deleted_column, sequence_column, deleted_when, columns, alias)) }}
{% endmacro %}

{% macro default__from_soft_deletes(relation, deleted_column, sequence_column, deleted_when, columns, alias) %}
  {%- set n = auto_cdc._names() -%}
  {%- set payload = auto_cdc._feed_table_columns(relation, columns, [deleted_column, sequence_column], 'from_soft_deletes') -%}
  {%- set sql -%}
select
  {{ payload }},
  {{ auto_cdc._q(sequence_column) }} as {{ auto_cdc._q(n.feed_sequence) }},
  coalesce({{ deleted_when if deleted_when is not none else auto_cdc._q(deleted_column) }}, false) as {{ auto_cdc._q(n.feed_deleted) }}
from {{ relation }}
  {%- endset -%}
  {{ return(auto_cdc._feed_from_item(sql, relation, alias)) }}
{% endmacro %}
