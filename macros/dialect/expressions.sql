{#-
  SQL expressions whose syntax differs by engine: sequence values and their fields, a row's
  fingerprint, name lists, the change table's FROM item.
  Each hook: its dispatcher, `default__` (what DuckDB and Postgres share unless they override it), then
  the engines' overrides, each saying how its dialect differs. docs/contributing.md lists them all.
-#}


{#-
  The value of __START_AT / __END_AT from the (already quoted) expressions of the sequence's
  columns: the value itself for one column; for a list, a value that orders like STRUCT(a, b).
-#}
{% macro seq_value_sql(exprs, args) %}
  {%- if exprs | length == 1 -%}
    {{ return(exprs[0]) }}
  {%- endif -%}
  {{ return(adapter.dispatch('seq_value_sql', 'auto_cdc')(exprs, args)) }}
{% endmacro %}

{% macro default__seq_value_sql(exprs, args) %}
  {%- do exceptions.raise_compiler_error("auto_cdc: a multi-column sequence_by is not supported on " ~ target.type) -%}
{% endmacro %}

{#- DuckDB has STRUCTs that compare field by field. -#}
{% macro duckdb__seq_value_sql(exprs, args) %}
  {%- set fields = [] -%}
  {%- for e in exprs -%}
    {%- do fields.append(auto_cdc._q(args.cfg.seq_columns[loop.index0]) ~ ' := ' ~ e) -%}
  {%- endfor -%}
  {{ return('struct_pack(' ~ (fields | join(', ')) ~ ')') }}
{% endmacro %}

{#- Postgres has no anonymous STRUCT column type: a named composite type per target (created
    beside it) compares field by field too. -#}
{% macro postgres__seq_value_sql(exprs, args) %}
  {{ return('row(' ~ (exprs | join(', ')) ~ ')::' ~ args.rel.seq_type) }}
{% endmacro %}

{#- A multi-column sequence as a STRUCT: Spark orders structs field by field. -#}
{% macro spark__seq_value_sql(exprs, args) %}
  {%- set fields = [] -%}
  {%- for e in exprs -%}
    {%- do fields.append("'" ~ args.cfg.seq_columns[loop.index0] ~ "', " ~ e) -%}
  {%- endfor -%}
  {{ return('named_struct(' ~ (fields | join(', ')) ~ ')') }}
{% endmacro %}


{#- One field of a __START_AT / __END_AT value: the value itself for a one-column sequence. -#}
{% macro seq_field_sql(expr, field, args) %}
  {%- if args.cfg.seq_columns | length == 1 -%}
    {{ return(expr) }}
  {%- endif -%}
  {{ return(adapter.dispatch('seq_field_sql', 'auto_cdc')(expr, field)) }}
{% endmacro %}

{#- DuckDB: STRUCT field access. -#}
{% macro default__seq_field_sql(expr, field) %}
  {{ return(expr ~ '.' ~ auto_cdc._q(field)) }}
{% endmacro %}

{#- Postgres: a composite value's field needs the value in parentheses. -#}
{% macro postgres__seq_field_sql(expr, field) %}
  {{ return('(' ~ expr ~ ').' ~ auto_cdc._q(field)) }}
{% endmacro %}


{#-
  A row's fingerprint: a 64-bit hash of its non-NULL values, each with its column's name, so a NULL
  column, or a column added later and NULL in older rows, leaves it unchanged. The event log keeps
  each event's fingerprint (__auto_cdc_fp), and the fast path (paths.sql) compares a touched key's
  row with its last event's by fingerprint instead of reading every value column of the log. Equal
  values hash equal within one engine and type; any other difference (a type that hashes differently
  after a schema change, a log written by an older version of the package, say) only sends the key to
  the replay, which compares the rows themselves.
-#}
{% macro row_fingerprint_sql(columns, alias=none) %}
  {%- set values = [] -%}
  {%- for c in columns | sort(case_sensitive=false) -%}
    {%- do values.append((c, (alias ~ '.' if alias else '') ~ auto_cdc._q(c))) -%}
  {%- endfor -%}
  {{ return(adapter.dispatch('row_fingerprint_sql', 'auto_cdc')(values)) }}
{% endmacro %}

{#- The values as one text, each non-NULL one as `name=length:value,` (columns in name order), for an
    engine whose hash takes one text. -#}
{% macro _fingerprint_text(values) %}
  {%- set parts = [] -%}
  {%- for name, expr in values -%}
    {%- set v = 'cast(' ~ expr ~ ' as ' ~ dbt.type_string() ~ ')' -%}
    {%- do parts.append("coalesce('" ~ (name | replace("'", "''")) ~ "=' || cast(length(" ~ v ~ ") as " ~ dbt.type_string() ~ ") || ':' || " ~ v ~ " || ',', '')") -%}
  {%- endfor -%}
  {{ return(parts | join(' || ') if parts else "''") }}
{% endmacro %}

{#- Postgres: hashtextextended of the text, a bigint. -#}
{% macro default__row_fingerprint_sql(values) %}
  {{ return('hashtextextended(' ~ auto_cdc._fingerprint_text(values) ~ ', 0)') }}
{% endmacro %}

{#- DuckDB: hash(name, value) of each non-NULL value, combined with xor (the order of the columns does
    not matter, a NULL adds nothing), its top bit dropped to fit a bigint. A value is hashed as it is,
    not as text: building the text took 0.36 s per 1,000,000 rows of seven columns, these hashes 0.02 s. -#}
{% macro duckdb__row_fingerprint_sql(values) %}
  {%- set out = namespace(sql='cast(0 as ubigint)') -%}
  {%- for name, expr in values -%}
    {%- set term = "case when " ~ expr ~ " is null then cast(0 as ubigint) else hash('" ~ (name | replace("'", "''")) ~ "', " ~ expr ~ ") end" -%}
    {%- set out.sql = term if loop.first else 'xor(' ~ out.sql ~ ', ' ~ term ~ ')' -%}
  {%- endfor -%}
  {{ return('cast(' ~ out.sql ~ ' >> 1 as bigint)') }}
{% endmacro %}

{#- Spark: xxhash64 of the text. -#}
{% macro spark__row_fingerprint_sql(values) %}
  {{ return('xxhash64(' ~ auto_cdc._fingerprint_text(values) ~ ')') }}
{% endmacro %}


{#- An aggregate: `value` of the row with the greatest `by`, rows whose `by` is NULL passed by; or ''
    on an engine without one. -#}
{% macro arg_max_sql(value, by) %}
  {{ return(adapter.dispatch('arg_max_sql', 'auto_cdc')(value, by)) }}
{% endmacro %}

{#- Postgres has no such aggregate; Spark's max_by is not used (last_event_by). -#}
{% macro default__arg_max_sql(value, by) %}
  {{ return('') }}
{% endmacro %}

{#- DuckDB: arg_max, a hash aggregate where the window sorted each key's events (SCD2's classification of
    1,000,000 touched keys with 3,000,000 logged events: 1.03-1.07 s, against 1.21-1.35 s with the window;
    docs/benchmarks.md). -#}
{% macro duckdb__arg_max_sql(value, by) %}
  {{ return('arg_max(' ~ value ~ ', ' ~ by ~ ')') }}
{% endmacro %}


{#- The keys `relation` (a table or a CTE of the batch's keys, the outer side of a join that looks each
    key up in a table's index) as the join should read them: in key order on Postgres, so that one probe
    reads the index pages the one before it read (the classification's probes of 100,000 keys into a
    5,000,000-row target: 0.2 s less; docs/benchmarks.md); as it is where the engine hashes the join. -#}
{% macro in_key_order(relation, keys) %}
  {{ return(adapter.dispatch('in_key_order', 'auto_cdc')(relation, keys) if auto_cdc._engine().key_order else relation) }}
{% endmacro %}

{% macro default__in_key_order(relation, keys) %}
  {{ return(relation) }}
{% endmacro %}

{% macro postgres__in_key_order(relation, keys) %}
  {{ return('(select * from ' ~ relation ~ ' order by ' ~ auto_cdc._cols(keys) ~ ')') }}
{% endmacro %}


{#- A join hint, placed right after a SELECT, that the relations named by `aliases` (the small side of a
    join with the target or the log: the batch's keys, the rows a run writes) be sent whole to every
    worker; or nothing. `rows`: how many rows they hold at most, or none where the run does not know;
    `columns`: how many of their columns the join reads. -#}
{% macro broadcast_hint(aliases, rows, columns) %}
  {{ return(adapter.dispatch('broadcast_hint', 'auto_cdc')(aliases, rows, columns) if auto_cdc._engine().join_hints else '') }}
{% endmacro %}

{#- DuckDB and Postgres choose their joins from their own statistics. -#}
{% macro default__broadcast_hint(aliases, rows, columns) %}
  {{ return('') }}
{% endmacro %}

{#- Spark: a join with the target or the log otherwise sorts both sides (a shuffle of the whole table)
    unless the session's spark.sql.autoBroadcastJoinThreshold lets it broadcast the small side, and a
    MERGE's source never qualifies (Delta materializes it without statistics). Up to 2,000,000 values
    (rows x columns: a batch of 100,000 rows of 20 columns, or 2,000,000 keys; some tens of MB in the
    driver) the package asks for the broadcast; above that, or where the count is unknown, Spark
    chooses. -#}
{% macro spark__broadcast_hint(aliases, rows, columns) %}
  {%- if rows is none or rows * columns > 2000000 -%}{{ return('') }}{%- endif -%}
  {{ return('/*+ BROADCAST(' ~ (aliases | join(', ')) ~ ') */ ') }}
{% endmacro %}


{#- A statement of the run (or a list of them) with its reads of the run's small tables, those the batch
    bounds (the batch, its new events and, unless a truncate or a killed run adds keys beyond the batch's,
    the affected keys), as one partition each; or as it is. -#}
{% macro one_partition_reads(args, sql) %}
  {{ return(adapter.dispatch('one_partition_reads', 'auto_cdc')(args, sql) if auto_cdc._engine().join_hints else sql) }}
{% endmacro %}

{#- DuckDB and Postgres plan no shuffles. -#}
{% macro default__one_partition_reads(args, sql) %}
  {{ return(sql) }}
{% endmacro %}

{#- Spark: a GROUP BY, a window or a join over tables of some thousands of rows otherwise exchanges its
    input between partitions, and adaptive execution runs each exchange as a Spark job of its own; an input
    of one partition (`/*+ COALESCE(1) */`) already has the distribution each of them asks for. Up to
    200,000 rows in the batch (batches of 10,000 and 100,000 rows ran faster so, docs/benchmarks.md); above
    that, or where the batch was not counted, the reads stay as they are, spread over the cluster. A
    `DELETE FROM` keeps its table. -#}
{% macro spark__one_partition_reads(args, sql) %}
  {%- set rows = args.plan.get('batch_rows') -%}
  {%- if rows is none or rows > 200000 -%}{{ return(sql) }}{%- endif -%}
  {%- set temp = args.rel.temp -%}
  {%- set small = [temp.batch, temp.new] + ([temp.affected] if args.plan.get('run_id') and auto_cdc._affected_keys_at_most(args) is not none else []) -%}
  {%- set names = [] -%}
  {%- for relation in small -%}{%- do names.append(modules.re.escape(relation | string)) -%}{%- endfor -%}
  {%- set read = '(?i)(?<!delete\\s)\\b(from|join)(\\s+)(' ~ (names | join('|')) ~ ')(?![\\w`.])' -%}
  {%- set one = '\\1\\2(select /*+ COALESCE(1) */ * from \\3)' -%}
  {%- if sql is string -%}{{ return(modules.re.sub(read, one, sql)) }}{%- endif -%}
  {%- set statements = [] -%}
  {%- for statement in sql -%}{%- do statements.append(modules.re.sub(read, one, statement)) -%}{%- endfor -%}
  {{ return(statements) }}
{% endmacro %}


{#- The column names of a normalised columns_to_update value, one row each. -#}
{% macro split_names_sql(expr) %}
  {{ return(adapter.dispatch('split_names_sql', 'auto_cdc')(expr)) }}
{% endmacro %}

{% macro default__split_names_sql(expr) -%}
unnest(string_to_array(substr({{ expr }}, 2, length({{ expr }}) - 2), ','))
{%- endmacro %}

{% macro spark__split_names_sql(expr) -%}
explode(split(substr({{ expr }}, 2, length({{ expr }}) - 2), ','))
{%- endmacro %}


{#-
  R5 COLUMNS TO UPDATE: an array of column names (or a comma-separated string) normalised to
  ',a,b,': lower case, trimmed, sorted, without duplicates, so that two events listing the same
  columns in another order are the same event. NULL stays NULL (the upsert writes every column).
-#}
{% macro columns_to_update_sql(expr, is_list) %}
  {{ return(adapter.dispatch('columns_to_update_sql', 'auto_cdc')(expr, is_list)) }}
{% endmacro %}

{% macro default__columns_to_update_sql(expr, is_list) -%}
  {%- set items = expr if is_list else 'string_to_array(' ~ expr ~ ", ',')" -%}
case when {{ expr }} is null then null else ',' || coalesce((
  select string_agg(distinct lower(btrim(u.s)), ',' order by lower(btrim(u.s)))
  from unnest({{ items }}) as u(s)
  where btrim(u.s) <> ''
), '') || ',' end
{%- endmacro %}

{#- DuckDB: list functions instead of a correlated subquery over unnest. -#}
{% macro duckdb__columns_to_update_sql(expr, is_list) -%}
  {%- set items = expr if is_list else 'string_split(' ~ expr ~ ", ',')" -%}
case when {{ expr }} is null then null else ',' || coalesce(array_to_string(list_sort(list_distinct(list_filter(
  list_transform({{ items }}, lambda s: lower(trim(s))), lambda s: s <> ''))), ','), '') || ',' end
{%- endmacro %}

{#- R5 COLUMNS TO UPDATE with Spark's higher-order array functions. -#}
{% macro spark__columns_to_update_sql(expr, is_list) -%}
  {%- set items = expr if is_list else 'split(' ~ expr ~ ", ',')" -%}
case when {{ expr }} is null then null else concat(',', array_join(array_sort(array_distinct(filter(
  transform({{ items }}, s -> lower(trim(s))), s -> s <> ''))), ','), ',') end
{%- endmacro %}


{#-
  {{ auto_cdc.table_changes(ref('m'), start_version, end_version=none) }}: the changed rows of an
  auto_cdc target with change_data_feed: true, like Databricks' table_changes(): the target's
  columns, _change_type, _commit_version and _commit_timestamp, for commit versions from
  start_version to end_version (inclusive; no end: up to the latest). It renders a FROM item that
  reads as written in Databricks, with or without an alias of the caller's own:
  `select * from {{ auto_cdc.table_changes(ref('m'), 0) }}` or `... }} as c`.
-#}
{% macro table_changes(relation, start_version, end_version=none) %}
  {{- return(adapter.dispatch('_changes_from_item', 'auto_cdc')(relation, start_version, end_version)) -}}
{%- endmacro %}

{#- The change feed table beside the target, as a subquery in FROM: DuckDB, Spark and PostgreSQL 16+
    accept it with or without an alias. -#}
{% macro default___changes_from_item(relation, start_version, end_version) -%}
  {{- return('(select * from ' ~ auto_cdc._change_table(relation) ~ ' where ' ~ auto_cdc._change_versions(start_version, end_version) ~ ')') -}}
{%- endmacro %}

{#- PostgreSQL before 16 rejects a subquery in FROM without an alias, and one rendered with an alias
    would reject the caller's own. A function call in FROM needs none and takes one: unnest() of an
    array of the changes table's rows expands to that table's columns, in order. (It holds the
    selected rows in one array, so 16+ keeps the plain subquery.) -#}
{% macro postgres___changes_from_item(relation, start_version, end_version) -%}
  {%- set version = run_query('show server_version_num').columns[0].values()[0] | int if execute else 160000 -%}
  {%- if version >= 160000 -%}
    {{- return(auto_cdc.default___changes_from_item(relation, start_version, end_version)) -}}
  {%- endif -%}
  {%- set row = auto_cdc._alias('row') -%}
  {{- return('unnest(array(select ' ~ row ~ ' from ' ~ auto_cdc._change_table(relation) ~ ' ' ~ row ~ ' where '
             ~ auto_cdc._change_versions(start_version, end_version) ~ '))') -}}
{%- endmacro %}

{#- Delta: the target's own change data feed, through Spark's table_changes(). Delta refuses a start
    version past the table's latest; the other engines return no row then, and so does this (a
    downstream model that has read every version asks for the next one). -#}
{% macro spark___changes_from_item(relation, start_version, end_version) -%}
  {%- if not execute or load_relation(auto_cdc._side_relation(relation, auto_cdc._names().changes_suffix)) is not none -%}
    {{- return(auto_cdc.default___changes_from_item(relation, start_version, end_version)) -}}
  {%- endif -%}
  {#- no change feed table: the target's own, if it is a Delta table with its change data feed on (dbt's
      cache does not know the format of a target built earlier in the same dbt run) -#}
  {%- set enabled = load_relation(relation) is not none and auto_cdc._spark_cdf_enabled(relation) -%}
  {%- if not enabled -%}
    {%- do exceptions.raise_compiler_error("auto_cdc.table_changes: " ~ relation ~ " has no change feed (set change_data_feed: true on its model and run it)") -%}
  {%- endif -%}
  {%- set latest = auto_cdc._query('describe history ' ~ relation ~ ' limit 1').columns['version'].values()[0] | int -%}
  {%- set name = "'" ~ relation.render() ~ "'" -%}
  {%- if (start_version | int) > latest -%}
    {{- return('(select * from table_changes(' ~ name ~ ', ' ~ latest ~ ') where false)') -}}
  {%- endif -%}
  {{- return('(select * from table_changes(' ~ name ~ ', ' ~ start_version ~ (', ' ~ end_version if end_version is not none else '') ~ '))') -}}
{%- endmacro %}

{% macro _change_table(relation) %}
  {%- set changes = auto_cdc._side_relation(relation, auto_cdc._names().changes_suffix) -%}
  {%- if execute and load_relation(changes) is none -%}
    {%- do exceptions.raise_compiler_error("auto_cdc.table_changes: " ~ relation ~ " has no change feed (set change_data_feed: true on its model and run it)") -%}
  {%- endif -%}
  {{ return(changes) }}
{% endmacro %}

{% macro _change_versions(start_version, end_version) %}
  {{ return('_commit_version >= ' ~ start_version ~ (' and _commit_version <= ' ~ end_version if end_version is not none else '')) }}
{% endmacro %}
