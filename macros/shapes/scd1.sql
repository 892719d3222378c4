{#-
  SCD type 1 (R3): a key's row is the state after its greatest-sequence event; a delete leaves no
  row and, being in the log, keeps out every lower-sequence event (the tombstone). A truncate at S
  voids every event whose sequence is below S, for every key.
-#}
{% macro scd1_rows_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set rank = auto_cdc._q(n.rank) -%}
with last_truncate as (
  select {{ auto_cdc._cols(cfg.seq_columns) }}
  from {{ args.rel.log }}
  where {{ op }} = '{{ n.truncate }}'
  order by {{ auto_cdc._seq_order(cfg.seq_columns, desc=true) }}
  limit 1
),
events as (
  select l.*
  from ({{ auto_cdc._affected_events_sql(args) }}) l
  left join last_truncate t on 1 = 1
  where (t.{{ auto_cdc._q(cfg.seq_columns[0]) }} is null or not {{ auto_cdc._seq_lt(cfg.seq_columns, 'l', 't') }})
),
{{ auto_cdc.merged_events_ctes(args) }}
ranked as (
  select
    merged.*,
    row_number() over (
      partition by {{ auto_cdc._cols(cfg.key_columns) }}
      order by {{ auto_cdc._seq_order(cfg.seq_columns, desc=true) }}
    ) as {{ rank }}
  from merged
)
select {{ auto_cdc._cols(args.cols.output) }}
from ranked
where {{ rank }} = 1 and {{ op }} = '{{ n.upsert }}'
{% endmacro %}
