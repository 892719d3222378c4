{#-
  Who can read what (docs/operations.md "Who can read what"). The model's `grants` apply to what its readers
  are meant to see: the target, and the change feed when change_data_feed is on (a feed of the
  target's own rows). The event log and the run log hold every earlier value of every row and the
  deleted records too, so they keep the owner's privileges unless `log_grants` (a grants dict like
  `grants`) says who else may read them. A grantee of `grants` is revoked from them on incremental
  runs, so a log that got the target's grants from an earlier version of the package stops
  exposing them.
-#}
{% macro apply_model_grants(relations, grant_config, should_revoke) %}
  {%- set n = auto_cdc._names() -%}
  {%- set log_grants = config.get('log_grants') -%}
  {%- for relation in relations -%}
    {%- set is_log = relation.identifier.endswith(n.log_suffix) or relation.identifier.endswith(n.runs_suffix) -%}
    {%- if not is_log -%}
      {% do apply_grants(relation, grant_config, should_revoke=should_revoke) %}
    {%- elif log_grants -%}
      {% do apply_grants(relation, log_grants, should_revoke=should_revoke) %}
    {%- elif grant_config and should_revoke -%}
      {% do auto_cdc.revoke_grants(relation, grant_config) %}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}
