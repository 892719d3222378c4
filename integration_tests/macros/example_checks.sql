{#-
  The checks of one documentation example, as one singular test (tests/examples/): the model holds exactly the
  rows of its expected seed (`auto_cdc.equal_rows`) and is what its event log says (`auto_cdc.matches_log`), and a history target keeps the SCD2 invariants. They are
  singular tests here, not properties of the models: the models belong to the package (models/examples), and a
  project describes only its own models; a generic test's `arguments:` would also split dbt 1.8 from 1.10+.
-#}
{% macro example_checks(model, expected, keys=none) %}
select 'a row differs from {{ expected.identifier }}' as failure from ({{ auto_cdc.test_equal_rows(model, expected) }}) d
union all
select 'a row differs from a replay of the event log' from ({{ auto_cdc.test_matches_log(model) }}) m
{%- if keys %}
union all
select 'a key has more than one open version' from ({{ auto_cdc.test_at_most_one_open_version(model, keys) }}) o
union all
select 'two versions of a key overlap' from ({{ auto_cdc.test_no_overlapping_versions(model, keys) }}) v
union all
select 'a version ends before it starts' from ({{ auto_cdc.test_valid_version_intervals(model) }}) i
{%- endif %}
{% endmacro %}
