{#-
  Who can read what (docs/operations.md "Who can read what"). The model's `grants` apply to the target.
  The change feed holds the target's earlier values and deleted rows: it gets `change_data_feed_grants`
  when the model sets it (exactly those: `{}` leaves it to its owner), else the target's `grants`. The
  event log and the run log hold every earlier value of every row and the deleted records too, so they
  get `log_grants` (a grants dict like `grants`) and no one else: a run revokes whatever the owner
  granted on them that `log_grants` does not list, so removing `log_grants` (or an entry of it) revokes
  it on the next run. On Postgres, with no `log_grants`, that revoke rides on the run's first round trip
  (revoke_log_grants).
-#}
{% macro apply_model_grants(relations, grant_config, should_revoke) %}
  {%- set n = auto_cdc._names() -%}
  {%- set log_grants = config.get('log_grants') -%}
  {%- set feed_grants = config.get('change_data_feed_grants') -%}
  {%- set logs = [] -%}
  {%- for relation in relations -%}
    {%- if relation.identifier.endswith(n.log_suffix) or relation.identifier.endswith(n.runs_suffix) -%}
      {%- do logs.append(relation) -%}
    {%- elif relation.identifier.endswith(n.changes_suffix) and feed_grants is not none -%}
      {% do auto_cdc.apply_exact_grants(relation, feed_grants) %}
    {%- else -%}
      {% do apply_grants(relation, grant_config, should_revoke=should_revoke) %}
    {%- endif -%}
  {%- endfor -%}
  {%- if log_grants -%}
    {%- for relation in logs -%}{% do apply_grants(relation, log_grants, should_revoke=should_revoke) %}{%- endfor -%}
  {%- elif should_revoke and logs -%}
    {% do auto_cdc.revoke_log_grants(logs, grant_config) %}
  {%- endif -%}
{% endmacro %}
