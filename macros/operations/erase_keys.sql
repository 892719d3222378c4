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
  {%- set erased, deleted = [], {'target': 0} -%}
  {%- for suffix in [none, n.log_suffix, n.changes_suffix] -%}
    {%- set rel = target if suffix is none else auto_cdc._side_relation(target, suffix) -%}
    {%- if adapter.get_relation(rel.database, rel.schema, rel.identifier) is not none -%}
      {%- set count = auto_cdc.delete_where(rel, where) -%}
      {%- do erased.append(rel.identifier ~ ': ' ~ count ~ ' row(s)') -%}
      {%- if suffix is none -%}{%- do deleted.update({'target': count}) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {% do auto_cdc._keep_target_unedited(target, deleted.target > 0) %}
  {% do adapter.commit() %}
  {% do auto_cdc.release_model_lock(held_lock) %}
  {% do log("auto_cdc.erase_keys " ~ model ~ " where " ~ where ~ ": erased " ~ (erased | join(', ')), info=true) %}
{% endmacro %}

{#- A target no one but the model's runs had changed since the last run's version (unedited_target_version,
    on an engine that keeps a history of the table's commits) still holds, after the erase, what its log
    yields: the erase took the keys from both. Where the erase's DELETE (`deleted`: it removed rows, by
    the count delete_where returns, on Delta the DELETE's own) is the only commit since that changes
    rows, the last run's row in the run log takes the target's new version, and the next run still skips
    comparing the target with the log. Otherwise the row is left as it is, and the next run finds the
    erase's commit, or anyone else's, and compares. -#}
{% macro _keep_target_unedited(target, deleted) %}
  {%- set runs = auto_cdc._side_relation(target, auto_cdc._names().runs_suffix) -%}
  {#- the last run's target_version, as a run reads it (prior_runs: none on the engines that read the run
      log as they go, which keep no history of the target's commits either) -#}
  {%- set prior = auto_cdc.prior_runs({'runs': runs}) if adapter.get_relation(runs.database, runs.schema, runs.identifier) is not none else none -%}
  {%- if prior is none or prior.target_version is none -%}{{ return(none) }}{%- endif -%}
  {%- set version = auto_cdc.unedited_target_version({'rel': {'target': target}}, prior.target_version, 1 if deleted else 0) -%}
  {%- if version is not none and version != prior.target_version -%}
    {% do auto_cdc._run_sql('update ' ~ runs ~ ' set target_version = ' ~ version ~ ' where run_id = ' ~ (prior.next_run - 1)) %}
  {%- endif -%}
{% endmacro %}
