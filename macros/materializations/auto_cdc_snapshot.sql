{#-
  materialized='auto_cdc_snapshot': the model returns full snapshots of a source. Each new version is
  diffed against the one before it and the differences are applied like a change feed whose sequence
  is the version, through the same run skeleton (skeleton.sql) and strategies as auto_cdc.
-#}
{% materialization auto_cdc_snapshot, default %}
  {{ return(auto_cdc._materialize('snapshot')) }}
{%- endmaterialization %}
