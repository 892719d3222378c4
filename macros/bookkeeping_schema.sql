{#-
  The package's on-run-start hook (dbt_project.yml): the bookkeeping schemas (bookkeeping_schema,
  docs/configuration.md) of the invocation's selected auto_cdc and auto_cdc_snapshot models that do not
  exist yet, created before any model runs, as dbt creates the models' own schemas. Created in a
  model's run instead, two models run in parallel threads would race to create one schema (DuckDB
  fails the second with a write-write conflict). Only missing schemas: Postgres checks the privilege to
  create a schema before it sees that it exists. Returns the hook's SQL: always empty.
-#}
{% macro create_bookkeeping_schemas() %}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- set wanted = {} -%}
  {%- for id in selected_resources or [] if id in graph.nodes -%}
    {%- set node = graph.nodes[id] -%}
    {%- set schema = node.config.get('bookkeeping_schema') -%}
    {%- if node.resource_type == 'model' and node.config.materialized in ['auto_cdc', 'auto_cdc_snapshot'] and schema -%}
      {%- do wanted.update({node.database ~ '.' ~ schema: (node.database, schema)}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for database, schema in wanted.values() if not adapter.check_schema_exists(database, schema) -%}
    {#- adapter.create_schema commits, as dbt's own schema creation does -#}
    {% do adapter.create_schema(api.Relation.create(database=database, schema=schema)) %}
  {%- endfor -%}
  {{ return('') }}
{% endmacro %}
