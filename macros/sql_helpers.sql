{#- Small SQL fragments shared by the builders. Every identifier goes through _q, so mixed-case and
    unusual column names work on every engine. -#}

{#- adapter.quote does not escape a double quote inside the name (dbt-postgres and dbt-duckdb both
    just wrap it): doubling it first makes `a"b` one identifier, never SQL text. -#}
{% macro _q(name) %}{{ return(adapter.quote(name | replace('"', '""'))) }}{% endmacro %}

{#- A table alias no column can be named (`__auto_cdc_<name>`): in a correlated subquery Spark resolves
    `s.x` against the inner tables' columns first, so a plain alias breaks on a column named `s`. -#}
{% macro _alias(name) %}{{ return(adapter.quote(auto_cdc._names().internal_prefix ~ name)) }}{% endmacro %}

{#- `(k=1, s=2)` for a result row whose first values are the given columns'. -#}
{% macro _describe_row(row, columns) -%}
  {%- set parts = [] -%}
  {%- for c in columns -%}{%- do parts.append(c ~ '=' ~ row[loop.index0]) -%}{%- endfor -%}
  {{- return('(' ~ (parts | join(', ')) ~ ')') -}}
{%- endmacro %}

{#- The greatest cursor (or snapshot version) the model's runs applied, as a scalar subquery of its run log
    `runs`: SQL NULL before the first run that had one. -#}
{% macro _last_cursor(runs) %}{{ return('(select max(cursor_value) from ' ~ runs ~ ')') }}{% endmacro %}

{#- `p."a", p."b"` -#}
{% macro _cols(names, prefix=none) -%}
  {%- set out = [] -%}
  {%- for n in names -%}
    {%- do out.append((prefix ~ '.' if prefix else '') ~ auto_cdc._q(n)) -%}
  {%- endfor -%}
  {{- return(out | join(', ')) -}}
{%- endmacro %}

{#- The sequence of the row `prefix` (or of the row in scope): its sequence column, or with several the
    engine's value that orders like them (seq_value_sql). -#}
{% macro _seq_value(args, prefix=none) -%}
  {%- set out = [] -%}
  {%- for n in args.cfg.seq_columns -%}
    {%- do out.append((prefix ~ '.' if prefix else '') ~ auto_cdc._q(n)) -%}
  {%- endfor -%}
  {{- return(auto_cdc.seq_value_sql(out, args)) -}}
{%- endmacro %}

{#- `l."a" = r."a" and ...`; TRUE for an empty list. -#}
{% macro _eq(names, l, r) -%}
  {%- set out = [] -%}
  {%- for n in names -%}
    {%- do out.append(l ~ '.' ~ auto_cdc._q(n) ~ ' = ' ~ r ~ '.' ~ auto_cdc._q(n)) -%}
  {%- endfor -%}
  {{- return(out | join(' and ') if out else '1 = 1') -}}
{%- endmacro %}

{#- Whether the log's row `l` is an event the feed brought (an upsert or a delete), not an edit event a
    folded hand edit left nor a mask: what a re-read event duplicates and a different one conflicts with. -#}
{% macro _source_event(l) -%}
  {%- set n = auto_cdc._names() -%}
  {{- return(l ~ '.' ~ auto_cdc._q(n.op) ~ " in ('" ~ n.upsert ~ "', '" ~ n.delete ~ "') and " ~ l ~ '.' ~ auto_cdc._q(n.edit) ~ ' is not true') -}}
{%- endmacro %}

{#- NULL-safe equality of every listed column. -#}
{% macro _same(names, l, r) -%}
  {%- set out = [] -%}
  {%- for n in names -%}
    {%- do out.append(l ~ '.' ~ auto_cdc._q(n) ~ ' is not distinct from ' ~ r ~ '.' ~ auto_cdc._q(n)) -%}
  {%- endfor -%}
  {{- return(out | join(' and ') if out else '1 = 1') -}}
{%- endmacro %}

{#- ORDER BY list for the sequence: a list of columns orders like STRUCT(a, b). -#}
{% macro _seq_order(seqs, prefix=none, desc=false) -%}
  {%- set out = [] -%}
  {%- for n in seqs -%}
    {%- do out.append((prefix ~ '.' if prefix else '') ~ auto_cdc._q(n) ~ (' desc' if desc else '')) -%}
  {%- endfor -%}
  {{- return(out | join(', ')) -}}
{%- endmacro %}

{#- Lexicographic a < b over the sequence columns (no NULLs: R7 rejects them before). -#}
{% macro _seq_lt(seqs, a, b) -%}
  {%- set n = seqs | length -%}
  {%- set terms = [] -%}
  {%- for i in range(n) -%}
    {%- set parts = [] -%}
    {%- for j in range(i) -%}
      {%- do parts.append(a ~ '.' ~ auto_cdc._q(seqs[j]) ~ ' = ' ~ b ~ '.' ~ auto_cdc._q(seqs[j])) -%}
    {%- endfor -%}
    {%- do parts.append(a ~ '.' ~ auto_cdc._q(seqs[i]) ~ ' < ' ~ b ~ '.' ~ auto_cdc._q(seqs[i])) -%}
    {%- do terms.append('(' ~ (parts | join(' and ')) ~ ')') -%}
  {%- endfor -%}
  {{- return('(' ~ (terms | join(' or ')) ~ ')') -}}
{%- endmacro %}

