{#-
  What the operations on a model's state (erase_keys, compact) share besides the writer's skeleton
  (macros/materializations/writer.sql): finding the model, and their row in the run log.
-#}

{#- The model named `model` that `operation` acts on, materialized as one of `materializations`: {node,
    name, target (its relation), log, runs, changes (the relations beside it), lock_timeout,
    statement_timeout (its configs), head (the start of an error message)}. An error when there is no
    such model. -#}
{% macro _operation_model(operation, model, materializations) %}
  {%- set n = auto_cdc._names() -%}
  {%- set nodes = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' and node.name == model -%}
    {%- do nodes.append(node) -%}
  {%- endfor -%}
  {%- if nodes | length != 1 -%}
    {%- do exceptions.raise_compiler_error("auto_cdc." ~ operation ~ ": no model named '" ~ model ~ "'") -%}
  {%- endif -%}
  {%- set node = nodes[0] -%}
  {%- set head = "auto_cdc." ~ operation ~ " model '" ~ model ~ "': " -%}
  {%- if node.config.materialized not in materializations -%}
    {%- do exceptions.raise_compiler_error(head ~ "materialized as '" ~ node.config.materialized ~ "'; "
          ~ operation ~ " is for " ~ (materializations | join(' and ')) ~ " models") -%}
  {%- endif -%}
  {%- set target = api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias or node.name, type='table') -%}
  {{ return({'node': node, 'name': model, 'target': target, 'head': head,
             'log': auto_cdc._bookkeeping_relation(target, n.log_suffix, node.config),
             'runs': auto_cdc._bookkeeping_relation(target, n.runs_suffix, node.config),
             'changes': auto_cdc._side_relation(target, n.changes_suffix),
             'lock_timeout': node.config.get('lock_timeout', '1h'), 'statement_timeout': node.config.get('statement_timeout')}) }}
{% endmacro %}


{#- Whether `relation` exists. -#}
{% macro _exists(relation) %}
  {{ return(adapter.get_relation(relation.database, relation.schema, relation.identifier) is not none) }}
{% endmacro %}


{#- The statements that give an operation its row in the run log (`runs`, whose column names are
    `columns`): no events read or applied, the rows it deleted from the target (`deleted`), the commit
    version of its change-feed rows (or none), and the columns it adds to the run log the first time,
    each (name, type, value): `operation` (its name) and those of `extra` (compact's `horizon`). The
    cursor reached so far is carried over. -#}
{% macro _operation_run_sql(runs, columns, operation, deleted=0, commit_version=none, extra=[]) %}
  {%- set added = [('operation', dbt.type_string(), "'" ~ operation ~ "'")] + extra -%}
  {%- set statements = [] -%}
  {%- for name, type, value in added if name not in (columns | map('lower') | list) -%}
    {%- do statements.append(auto_cdc.add_column_sql(runs, name, type)) -%}
  {%- endfor -%}
  {%- set sql -%}
insert into {{ runs }} (run_id, run_started_at, invocation_id, cursor_value, events_read, events_applied, late_events,
                        num_upserted_rows, num_deleted_rows, commit_version, edited_keys, {{ added | map(attribute=0) | join(', ') }})
select
  (select coalesce(max(run_id), 0) + 1 from {{ runs }}),
  cast('{{ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") }}' as {{ dbt.type_timestamp() }}),
  '{{ invocation_id }}',
  {{ auto_cdc._last_cursor(runs) }},
  0, 0, 0, 0, {{ deleted }}, {{ commit_version if commit_version is not none else 'null' }}, 0,
  {{ added | map(attribute=2) | join(', ') }}
  {%- endset -%}
  {%- do statements.append(sql) -%}
  {{ return(statements) }}
{% endmacro %}
