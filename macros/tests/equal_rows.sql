{#-
  Generic test: the model holds exactly the rows of `expected` (a multiset comparison, metadata
  columns such as __START_AT included). Columns are matched by name, case-insensitively; every
  differing row is returned, tagged with the side it is missing from.
-#}
{% test equal_rows(model, expected) %}
  {%- set names = [] -%}
  {%- for col in adapter.get_columns_in_relation(model) -%}{%- do names.append(col.name) -%}{%- endfor -%}
  {%- set cols = auto_cdc._cols(names) -%}
(select 'missing from expected' as diff, {{ cols }} from (select {{ cols }} from {{ model }} except all select {{ cols }} from {{ expected }}) a)
union all
(select 'missing from model' as diff, {{ cols }} from (select {{ cols }} from {{ expected }} except all select {{ cols }} from {{ model }}) b)
{% endtest %}
