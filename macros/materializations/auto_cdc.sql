{#-
  materialized='auto_cdc': the model returns a change feed; its relation is the target. The state is
  the event log beside the target (every event ever applied) and a run log (one row per run). The run
  itself is the shared skeleton (skeleton.sql).
-#}
{% materialization auto_cdc, default %}
  {{ return(auto_cdc._materialize('feed')) }}
{%- endmaterialization %}
