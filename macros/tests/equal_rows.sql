{#-
  Generic test: the model holds exactly the rows of `expected` (a multiset comparison, metadata
  columns such as __START_AT included). Columns are matched by name, case-insensitively; every
  differing row is returned, tagged with the side it is missing from. Relations whose columns differ
  are an error naming the columns each side has alone (the engine's own error would name neither).
-#}
{% test equal_rows(model, expected) %}
  {%- set names = [] -%}
  {%- for col in adapter.get_columns_in_relation(model) -%}{%- do names.append(col.name) -%}{%- endfor -%}
  {%- do auto_cdc._check_same_columns(model, names, expected) -%}
  {%- set cols = auto_cdc._cols(names) -%}
(select 'missing from expected' as diff, {{ cols }} from (select {{ cols }} from {{ model }} except all select {{ cols }} from {{ expected }}) a)
union all
(select 'missing from model' as diff, {{ cols }} from (select {{ cols }} from {{ expected }} except all select {{ cols }} from {{ model }}) b)
{% endtest %}


{#- Fails, naming both relations and the columns only one of them has, unless `expected` has the
    columns `names` of `model` (case-insensitively). At parse time (no `execute`) nothing is read. -#}
{% macro _check_same_columns(model, names, expected) %}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- set theirs = [] -%}
  {%- for col in adapter.get_columns_in_relation(expected) -%}{%- do theirs.append(col.name) -%}{%- endfor -%}
  {%- set ours_lower, theirs_lower = names | map('lower') | list, theirs | map('lower') | list -%}
  {%- set only_model, only_expected = [], [] -%}
  {%- for c in names if (c | lower) not in theirs_lower -%}{%- do only_model.append(c) -%}{%- endfor -%}
  {%- for c in theirs if (c | lower) not in ours_lower -%}{%- do only_expected.append(c) -%}{%- endfor -%}
  {%- if only_model or only_expected -%}
    {%- do exceptions.raise_compiler_error("auto_cdc.equal_rows: " ~ model ~ " and " ~ expected ~ " have different columns; only "
          ~ model ~ " has: " ~ (only_model | join(', ') or 'none') ~ "; only " ~ expected ~ " has: " ~ (only_expected | join(', ') or 'none')
          ~ ". Compare relations of the same columns (select the columns to compare in the expected model)") -%}
  {%- endif -%}
{% endmacro %}
