{#-
  erase_keys: remove every trace of some keys of an auto_cdc or auto_cdc_snapshot model, for
  data-protection requests: the target's rows, the key's events in the event log (tombstones
  included, and the masks and edit events of hand edits) and its rows in the change data feed, in
  one transaction, holding the model's lock (locking.sql) like a run.

    dbt run-operation auto_cdc.erase_keys --args '{model: customers, where: "customer_id = 42"}'

  `where` is a SQL condition over the model's key columns (it is run against the target, the log
  and the change feed, which all hold them). Erase the keys from the source as well: a later run
  that reads their events again applies them as new ones (README "Erasing keys").
-#}
{% macro erase_keys(model, where) %}
  {%- set n = auto_cdc._names() -%}
  {%- if not where or not (where | trim) -%}
    {%- do exceptions.raise_compiler_error("auto_cdc.erase_keys: give `where`, a condition over the model's key columns") -%}
  {%- endif -%}
  {%- set nodes = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.name == model -%}
    {%- do nodes.append(node) -%}
  {%- endfor -%}
  {%- if nodes | length != 1 -%}
    {%- do exceptions.raise_compiler_error("auto_cdc.erase_keys: no model named '" ~ model ~ "'") -%}
  {%- endif -%}
  {%- set node = nodes[0] -%}
  {%- if node.config.materialized not in ['auto_cdc', 'auto_cdc_snapshot'] -%}
    {%- do exceptions.raise_compiler_error("auto_cdc.erase_keys: model '" ~ model ~ "' is materialized as '"
          ~ node.config.materialized ~ "', not auto_cdc or auto_cdc_snapshot") -%}
  {%- endif -%}
  {%- set target = adapter.get_relation(node.database, node.schema, node.alias or node.name) -%}
  {%- if target is none -%}
    {%- do exceptions.raise_compiler_error("auto_cdc.erase_keys: model '" ~ model ~ "' has not been built yet") -%}
  {%- endif -%}
  {% do auto_cdc._check_deletes_supported('erase_keys', target) %}
  {#- the model's lock (locking.sql): an erase waits for a run of the model, and a run for the erase -#}
  {%- set held_lock = auto_cdc.take_model_lock(api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias or node.name),
                                 model, node.config.get('lock_timeout', '1h'), node.config.get('statement_timeout')) -%}
  {%- set erased = [] -%}
  {%- for suffix in [none, n.log_suffix, n.changes_suffix] -%}
    {%- set rel = target if suffix is none else auto_cdc._side_relation(target, suffix) -%}
    {%- if adapter.get_relation(rel.database, rel.schema, rel.identifier) is not none -%}
      {%- set count = auto_cdc._scalar('select count(*) from ' ~ rel ~ ' where ' ~ where) | int -%}
      {% do auto_cdc._run_sql('delete from ' ~ rel ~ ' where ' ~ where) %}
      {%- do erased.append(rel.identifier ~ ': ' ~ count ~ ' row(s)') -%}
    {%- endif -%}
  {%- endfor -%}
  {% do adapter.commit() %}
  {% do auto_cdc.release_model_lock(held_lock) %}
  {% do log("auto_cdc.erase_keys " ~ model ~ " where " ~ where ~ ": erased " ~ (erased | join(', ')), info=true) %}
{% endmacro %}
