{#-
  auto_cdc.source_configs(): the configs an auto_cdc model over a source-format macro's feed
  (from_debezium, from_wal2json, from_dms, from_soft_deletes) takes besides its keys and shape: the
  order, the delete condition, and the feed's own columns left out of the target. Merge them into
  config():

      {{ config(materialized='auto_cdc', keys=['id'], stored_as_scd_type=2, **auto_cdc.source_configs()) }}

  To keep `_cdc_sequence` in the target, write the three configs out instead (docs/sources.md).
-#}
{% macro source_configs() %}
  {%- set n = auto_cdc._names() -%}
  {{ return({'sequence_by': n.feed_sequence, 'apply_as_deletes': n.feed_deleted,
             'except_column_list': [n.feed_sequence, n.feed_deleted]}) }}
{% endmacro %}
