{#-
  The model's SQL. dbt's is_incremental() answers only for materialized='incremental', so when
  the model uses it and this run is incremental, the model is rendered again with
  is_incremental() true; anything else in the model renders as before. A `once` model (a backfill
  flow) reads its source on the first run and on --full-refresh only.
-#}
{% macro _model_sql(incremental) %}
  {% if incremental and config.get('once', false) %}
    {% do return('select * from (' ~ sql ~ ') once_source where 1 = 0') %}
  {% endif %}
  {% if incremental and 'is_incremental' in model.raw_code %}
    {% set materialized = model.config.materialized %}
    {% do model.config.update({'materialized': 'incremental'}) %}
    {% set rendered = render(model.raw_code) %}
    {% do model.config.update({'materialized': materialized}) %}
    {% do return(rendered) %}
  {% endif %}
  {% do return(sql) %}
{% endmacro %}


{#- The relations of a run: its target, its bookkeeping (in the model's bookkeeping_schema, else
    beside the target: _bookkeeping_relation, names.sql), its change feed beside it, the side type of a
    multi-column sequence (seq_type: change feeds), and `temp`, this run's temp relations, in the order
    a run may create them. `bookkeeping`: the relations this model keeps with its target (they get its
    grants and go into dbt's cache); `existing`: those found in the database, dropped by a full refresh. -#}
{% macro _relations(target_relation, shape) %}
  {%- set n = auto_cdc._names() -%}
  {%- set temp = {} -%}
  {%- for name in (['snapshot'] if shape == 'snapshot' else []) + ['batch', 'logged', 'new', 'held', 'affected', 'history',
                   'recorded', 'edited', 'edits', 'desired', 'stale', 'missing'] -%}
    {%- do temp.update({name: auto_cdc._temp_relation(target_relation, n[name ~ '_suffix'])}) -%}
  {%- endfor -%}
  {%- set side = {} -%}
  {%- for name in ['log', 'runs'] -%}
    {%- do side.update({name: auto_cdc._bookkeeping_relation(target_relation, n[name ~ '_suffix'], config)}) -%}
  {%- endfor -%}
  {%- do side.update({'changes': auto_cdc._side_relation(target_relation, n.changes_suffix)}) -%}
  {%- set existing = [load_cached_relation(side.log), load_cached_relation(side.runs), load_cached_relation(side.changes)] -%}
  {{ return(dict(side, target=target_relation, temp=temp, existing=existing, existing_log=existing[0], existing_runs=existing[1],
                 seq_type=auto_cdc._side_relation(target_relation, n.seq_type_suffix).include(database=false) if shape == 'feed' else none,
                 bookkeeping=[side.log, side.runs] + ([side.changes] if config.get('change_data_feed', false) and auto_cdc._engine().change_table else []))) }}
{% endmacro %}


{#- The target's columns: the output columns, then the history columns of the shape. -#}
{% macro _target_columns(scd, output) %}
  {%- set n = auto_cdc._names() -%}
  {{ return(output + ([] if scd == 1 else [n.start_at, n.end_at] + ([n.system_start_at, n.system_end_at] if scd == 'bitemporal' else []))) }}
{% endmacro %}


{#- Is a column type an array (DuckDB `VARCHAR[]`, Postgres `text[]` / `_text` / `ARRAY`)? -#}
{% macro _is_list_type(type_name) %}
  {%- set t = (type_name or '') | lower -%}
  {{ return(t.endswith(']') or t.startswith('_') or 'array' in t or t.startswith('list')) }}
{% endmacro %}
