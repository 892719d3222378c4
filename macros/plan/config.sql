{#-
  Reads the model's auto_cdc configs, resolves every column name against the columns the model
  returns, and checks them. Every problem is collected and raised once, naming the model.
  Column names match exactly, else case-insensitively when that is unambiguous (Postgres folds
  unquoted names to lower case, DuckDB keeps them as written).
-#}

{% macro _resolve_column(name, columns) %}
  {% if name in columns %}{% do return(name) %}{% endif %}
  {% set matches = [] %}
  {% for c in columns %}
    {% if c | lower == name | lower %}{% do matches.append(c) %}{% endif %}
  {% endfor %}
  {% do return(matches[0] if matches | length == 1 else none) %}
{% endmacro %}


{#- A config that takes a list of column names: none stays none, a string becomes a one-item list. -#}
{% macro _as_list(value) %}
  {% if value is none %}{% do return(none) %}{% endif %}
  {% if value is string %}{% do return([value]) %}{% endif %}
  {% do return(value | list) %}
{% endmacro %}


{% macro _resolve_list(config_name, value, columns, errors) %}
  {% set resolved = [] %}
  {% for name in value %}
    {% set col = auto_cdc._resolve_column(name, columns) if name is string else none %}
    {% if col is none %}
      {% do errors.append(config_name ~ ": unknown column '" ~ name ~ "' (the model returns: " ~ (columns | join(', ')) ~ ")") %}
    {% elif col not in resolved %}
      {% do resolved.append(col) %}
    {% endif %}
  {% endfor %}
  {% do return(resolved) %}
{% endmacro %}


{% macro _scd_type(raw, errors) %}
  {% set text = (raw | string | lower | trim) if raw is not none else '1' %}
  {% if text in ['1', '2'] %}{% do return(text | int) %}{% endif %}
  {% if text == 'bitemporal' %}{% do return('bitemporal') %}{% endif %}
  {% do errors.append("stored_as_scd_type: unknown value '" ~ raw ~ "' (expected 1, 2 or 'bitemporal')") %}
  {% do return(none) %}
{% endmacro %}


{#-
  The package's configs, one row each: the materializations that take it ('in'), the kind of value
  (columns: a column name or a list of them; column: one name; expression: a SQL condition over the
  source's columns; boolean; number; scd_type), the target shapes it applies to ('shapes', when not
  every one) and the configs it excludes ('excludes'). This table drives the checks that both
  materializations share (_check_configs); the rules that involve more than a pair of configs and
  the column resolution follow in each resolver. docs/configuration.md describes every row.
-#}
{#- Kind 'setting': the value is checked where it is used (guards.sql, grants.sql, locking.sql). -#}
{% macro _package_configs() %}
  {%- set both = ['auto_cdc', 'auto_cdc_snapshot'] -%}
  {%- set feed = ['auto_cdc'] -%}
  {%- do return({
    'keys': {'kind': 'columns', 'in': both},
    'stored_as_scd_type': {'kind': 'scd_type', 'in': both},
    'track_history_column_list': {'kind': 'columns', 'in': both, 'shapes': [2, 'bitemporal'],
                                  'excludes': ['track_history_except_column_list']},
    'track_history_except_column_list': {'kind': 'columns', 'in': both, 'shapes': [2, 'bitemporal']},
    'once': {'kind': 'boolean', 'in': both},
    'change_data_feed': {'kind': 'boolean', 'in': both},
    'spark_buckets': {'kind': 'number', 'in': both},
    'sequence_by': {'kind': 'columns', 'in': feed},
    'apply_as_deletes': {'kind': 'expression', 'in': feed},
    'apply_as_truncates': {'kind': 'expression', 'in': feed, 'shapes': [1]},
    'apply_as_snapshot': {'kind': 'expression', 'in': feed},
    'column_list': {'kind': 'columns', 'in': feed, 'excludes': ['except_column_list']},
    'except_column_list': {'kind': 'columns', 'in': feed},
    'ignore_null_updates': {'kind': 'boolean', 'in': feed},
    'ignore_null_updates_column_list': {'kind': 'columns', 'in': feed},
    'ignore_null_updates_except_column_list': {'kind': 'columns', 'in': feed},
    'columns_to_update': {'kind': 'column', 'in': feed},
    'system_sequence_by': {'kind': 'column', 'in': feed, 'shapes': ['bitemporal']},
    'cursor_column': {'kind': 'column', 'in': feed},
    'snapshot_version': {'kind': 'column', 'in': ['auto_cdc_snapshot']},
    'max_delete_fraction': {'kind': 'number', 'in': ['auto_cdc_snapshot']},
    'allow_full_refresh': {'kind': 'boolean', 'in': both},
    'lock_timeout': {'kind': 'setting', 'in': both},
    'statement_timeout': {'kind': 'setting', 'in': both},
    'log_grants': {'kind': 'setting', 'in': both},
    'bookkeeping_schema': {'kind': 'setting', 'in': both},
    'change_data_feed_grants': {'kind': 'setting', 'in': both},
    'on_text_sequence': {'kind': 'setting', 'in': both}
  }) -%}
{% endmacro %}


{#- dbt's own model configs (dbt-core's NodeConfig and ModelConfig fields, 1.8 to 1.11) and those of
    the adapters the package runs on (dbt-postgres and dbt-duckdb: indexes, unlogged; dbt-spark:
    file_format ... tblproperties), which a model of this package may set too. -#}
{% macro _dbt_configs() %}
  {%- do return([
    'access', 'alias', 'batch_size', 'begin', 'column_types', 'concurrent_batches', 'contract', 'database',
    'docs', 'enabled', 'event_time', 'freshness', 'full_refresh', 'grants', 'group', 'incremental_strategy',
    'lookback', 'materialized', 'meta', 'on_configuration_change', 'on_schema_change', 'packages',
    'persist_docs', 'post-hook', 'pre-hook', 'post_hook', 'pre_hook', 'quoting', 'schema', 'static_analysis',
    'tags', 'unique_key', 'sql_header', 'description', 'catalog_name',
    'indexes', 'unlogged',
    'file_format', 'location_root', 'partition_by', 'clustered_by', 'buckets', 'options',
    'merge_update_columns', 'tblproperties'
  ]) -%}
{% endmacro %}


{#- Levenshtein distance of two strings (Jinja has no difflib): the DP table one row at a time. -#}
{% macro _edit_distance(a, b) %}
  {%- set row = namespace(previous=range((b | length) + 1) | list) -%}
  {%- for ca in a -%}
    {%- set current = [loop.index] -%}
    {%- for cb in b -%}
      {%- do current.append([row.previous[loop.index] + 1, current[loop.index0] + 1,
                             row.previous[loop.index0] + (0 if ca == cb else 1)] | min) -%}
    {%- endfor -%}
    {%- set row.previous = current -%}
  {%- endfor -%}
  {%- do return(row.previous[-1]) -%}
{% endmacro %}


{#- The candidate closest to name, or none when none is close: at most about a third of the longer
    name differs (as difflib's get_close_matches would judge), or one starts with the other
    (`op` for `operation`). -#}
{% macro _closest(name, candidates) %}
  {%- set best = namespace(name=none, score=none) -%}
  {%- for c in candidates -%}
    {%- set a, b = name | lower, c | lower -%}
    {%- set d = auto_cdc._edit_distance(a, b) -%}
    {%- set prefix = ([a | length, b | length] | min) >= 2 and (a.startswith(b) or b.startswith(a)) -%}
    {%- set score = d / 100 if prefix else d -%}
    {%- if (prefix or d <= ([a | length, b | length] | max) / 3) and (best.score is none or score < best.score) -%}
      {%- set best.name = c -%}
      {%- set best.score = score -%}
    {%- endif -%}
  {%- endfor -%}
  {%- do return(best.name) -%}
{% endmacro %}


{#- Every config the user set on the model (its config() call, properties and dbt_project.yml) must
    be this package's for this materialization, or dbt's own; each value must be of its kind, fit the
    target shape (scd, none when stored_as_scd_type itself is wrong) and not come with a config it
    excludes. -#}
{% macro _check_configs(materialization, scd, errors) %}
  {%- set package = auto_cdc._package_configs() -%}
  {%- set dbt_configs = auto_cdc._dbt_configs() -%}
  {%- set shapes_of = {'auto_cdc': [1, 2, 'bitemporal'], 'auto_cdc_snapshot': [1, 2]}[materialization] -%}
  {%- set accepted, set_configs = [], [] -%}
  {%- for name, row in package.items() if materialization in row['in'] -%}
    {%- do accepted.append(name) -%}
    {%- if config.get(name) not in [none, '', []] -%}{%- do set_configs.append(name) -%}{%- endif -%}
  {%- endfor -%}
  {%- for name in (model.unrendered_config or {}).keys() | sort -%}
    {%- if name in package and materialization not in package[name]['in'] -%}
      {%- do errors.append(name ~ ": not a config of " ~ materialization
            ~ (" (the snapshot version orders the changes)" if materialization == 'auto_cdc_snapshot' else " (it belongs to " ~ (package[name]['in'] | join(', ')) ~ ")")) -%}
    {%- elif name not in package and name not in dbt_configs -%}
      {%- set closest = auto_cdc._closest(name, accepted + dbt_configs) -%}
      {%- do errors.append(name ~ ": unknown config, neither " ~ materialization ~ "'s nor dbt's"
            ~ ("; did you mean `" ~ closest ~ "`?" if closest else "")) -%}
    {%- elif name in package -%}
      {%- set value, kind = config.get(name), package[name]['kind'] -%}
      {%- if value is not none -%}
        {%- if kind == 'boolean' and value is not boolean -%}
          {%- do errors.append(name ~ ": expected true or false, got '" ~ value ~ "'") -%}
        {%- elif kind == 'number' and (value is not number or value is boolean) -%}
          {%- do errors.append(name ~ ": expected a number, got '" ~ value ~ "'") -%}
        {%- elif kind in ['column', 'expression'] and value is not string -%}
          {%- do errors.append(name ~ ": expected " ~ ("a column name" if kind == 'column' else "a SQL condition (a string)") ~ ", got '" ~ value ~ "'") -%}
        {%- elif kind == 'columns' and value is not string and (value is mapping or value is not iterable) -%}
          {%- do errors.append(name ~ ": expected a column name or a list of them, got '" ~ value ~ "'") -%}
        {%- endif -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for name in set_configs -%}
    {%- set row = package[name] -%}
    {%- for other in row.get('excludes', []) if other in set_configs -%}
      {%- do errors.append(name ~ " and " ~ other ~ ": set one of them, not both") -%}
    {%- endfor -%}
    {%- set shapes = [] -%}
    {%- for shape in row.get('shapes', shapes_of) if shape in shapes_of -%}{%- do shapes.append(shape) -%}{%- endfor -%}
    {%- if scd is not none and scd not in shapes -%}
      {%- set named = [] -%}
      {%- for shape in shapes -%}{%- do named.append("'" ~ shape ~ "'" if shape is string else shape | string) -%}{%- endfor -%}
      {%- do errors.append(name ~ ": only for stored_as_scd_type " ~ (named | join(' or '))) -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}


{#- Words of a SQL condition that should name source columns: identifiers outside string literals that
    are not keywords, function names (followed by '('), types (after '::' or cast's 'as'), typed
    literals (followed by a string) or qualified names; quoted identifiers as written. A word that
    is none of the source's columns is reported with the closest column; anything subtler is left
    to the engine. -#}
{% macro _check_expression_columns(config_name, expression, columns, errors) %}
  {%- set re = modules.re -%}
  {%- set keywords = ['and', 'or', 'not', 'in', 'is', 'null', 'true', 'false', 'like', 'ilike', 'between',
        'case', 'when', 'then', 'else', 'end', 'as', 'exists', 'select', 'from', 'where', 'distinct',
        'escape', 'similar', 'to', 'any', 'all', 'some', 'interval', 'unknown', 'collate', 'at', 'time',
        'zone', 'current_date', 'current_time', 'current_timestamp', 'localtime', 'localtimestamp',
        'current_user', 'session_user', 'user', 'glob', 'regexp', 'rlike', 'div', 'mod', 'over',
        'partition', 'by', 'order', 'asc', 'desc', 'nulls', 'first', 'last', 'filter', 'within', 'group',
        'union', 'except', 'intersect', 'limit', 'offset', 'join', 'on', 'using', 'array', 'row',
        'year', 'month', 'day', 'hour', 'minute', 'second', 'with', 'without', 'precision', 'varying',
        'double', 'character'] -%}
  {%- set lowered = columns | map('lower') | list -%}
  {%- set text = re.sub("'(?:[^']|'')*'", " '' ", expression) -%}
  {%- set tokens = re.findall('"(?:[^"]|"")*"|`[^`]*`|::|\\.|\\(|\'\'|[0-9][0-9A-Za-z_.]*|[A-Za-z_][A-Za-z0-9_$]*|\\S', text) -%}
  {%- for t in tokens -%}
    {%- set before = tokens[loop.index0 - 1] if loop.index0 > 0 else '' -%}
    {%- set after = tokens[loop.index0 + 1] if not loop.last else '' -%}
    {%- set quoted = t[:1] in ['"', '`'] -%}
    {%- set word = t[1:-1] | replace('""', '"') if quoted else t -%}
    {%- if (quoted or re.match('^[A-Za-z_]', t)) and after not in ['(', '.', "''"] and before not in ['::', '.']
          and not (before | lower == 'as') and (quoted or (t | lower) not in keywords) -%}
      {%- set known = (word | lower) in lowered -%}
      {%- if not known -%}
        {%- set closest = auto_cdc._closest(word, columns) -%}
        {%- do errors.append(config_name ~ ": unknown column '" ~ word ~ "' in " ~ expression
              ~ ("; did you mean `" ~ closest ~ "`?" if closest else "") ~ " (the model returns: " ~ (columns | join(', ')) ~ ")") -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}


{#-
  The run's resolved config (_resolve_config). Resolving and checking it costs a run more than much of
  its SQL (its templates are compiled anew by every dbt process), and its result depends only on the
  model's configs, the columns the model returns and the resolver itself: each run keeps it in its row of
  the run log (`config`, with `key`, a hash of those), and a run whose key equals the last run's takes it
  from there, as dbt's partial parsing takes a file it has parsed before. A run whose key differs (a
  config or a column changed, or the package) resolves and checks it again. `last_run`: the run log's
  last row (_source_columns), or none.
-#}
{% macro _config(shape, columns, last_run) %}
  {%- set resolver = [] -%}
  {%- for name in ['_resolve_config', '_resolve_feed_columns', '_resolve_snapshot_columns', '_check_configs', '_package_configs',
                   '_check_expression_columns', '_resolve_list', '_names'] -%}
    {%- do resolver.append(auto_cdc[name].macro.macro_sql) -%}
  {%- endfor -%}
  {%- set key = local_md5(tojson([shape, model.config, model.unrendered_config, columns, resolver], sort_keys=true)) -%}
  {%- set kept = fromjson(last_run.config) if (last_run or {}).get('config') else {} -%}
  {%- if kept.get('key') == key -%}{{ return(dict(kept.cfg, key=key)) }}{%- endif -%}
  {{ return(dict(auto_cdc._resolve_config(shape, columns), key=key)) }}
{% endmacro %}


{#-
  The one resolver of both materializations: the model's configs, checked against the table above
  (_check_configs) and resolved against the columns the model returns (`columns`). `shape` is 'feed'
  (auto_cdc: the model returns a change feed) or 'snapshot' (auto_cdc_snapshot: full snapshots, whose
  version, the snapshot_version column or the run's start, is the sequence, an internal column). Every
  problem is collected and raised once, naming the model. The result (cfg):
    scd                     1, 2 or 'bitemporal'
    key_columns, seq_columns  the keys; the sequence (a snapshot's: the internal version column)
    output                  the target's columns before the history columns
    payload                 the output columns that are neither keys nor sequence columns
    stored                  the columns the event log keeps: keys, sequence, output, system time and,
                            with columns_to_update, each upsert's list of written columns
    compared                what two events at one key and sequence must agree on (R7): the stored
                            columns, but a system time that is not an output column (the same business
                            event learned twice is one event, counted from its earliest learning)
    tracked                 SCD2: the columns whose change opens a version
    ignore_null             the payload columns where a NULL in an upsert keeps the previous value
    columns_to_update, system_seq, cursor, snapshot_version   column names, or none
    delete_expr, truncate_expr, snapshot_expr                 the conditions, or none
    on_schema_change, max_delete_fraction, shape
  dbt fills in on_schema_change='ignore' for every model; the package's default is append_new_columns,
  so only a value the user set counts.
-#}
{% macro _resolve_config(shape, source_columns) %}
  {%- set names, errors, columns = auto_cdc._names(), [], source_columns | list -%}
  {%- set feed = shape == 'feed' -%}
  {%- set materialization = 'auto_cdc' if feed else 'auto_cdc_snapshot' -%}
  {%- set scd = auto_cdc._scd_type(config.get('stored_as_scd_type', 1), errors) -%}
  {%- if scd == 'bitemporal' and not feed -%}{%- do errors.append("stored_as_scd_type: auto_cdc_snapshot supports 1 or 2") -%}{%- endif -%}
  {%- do auto_cdc._check_configs(materialization, scd if feed or scd != 'bitemporal' else none, errors) -%}
  {%- set raw = {} -%}
  {%- for name, row in auto_cdc._package_configs().items() if materialization in row['in'] -%}
    {%- do raw.update({name: auto_cdc._as_list(config.get(name)) if row.kind == 'columns' else config.get(name)}) -%}
  {%- endfor -%}
  {%- set on_schema_change = config.get('on_schema_change') if 'on_schema_change' in (model.unrendered_config or {}) else 'append_new_columns' -%}
  {%- if not raw['keys'] -%}{%- do errors.append("keys: required (a list of key columns)") -%}{%- endif -%}
  {%- if on_schema_change not in ['ignore', 'fail', 'append_new_columns', 'sync_all_columns'] -%}
    {%- do errors.append("on_schema_change: unknown value '" ~ on_schema_change ~ "' (expected ignore, fail, append_new_columns or sync_all_columns)") -%}
  {%- endif -%}
  {%- for c in columns if (c | lower).startswith(names.internal_prefix | lower) -%}
    {%- do errors.append("column '" ~ c ~ "': names starting with " ~ names.internal_prefix ~ " are reserved for the package") -%}
  {%- endfor -%}
  {%- set keys = auto_cdc._resolve_list('keys', raw['keys'] or [], columns, errors) -%}
  {%- set feed_cfg = auto_cdc._resolve_feed_columns(raw, scd, columns, errors) if feed else auto_cdc._resolve_snapshot_columns(raw, columns, errors) -%}
  {%- set output = feed_cfg.output -%}
  {%- for k in keys if k not in output -%}
    {%- do errors.append("keys: key column '" ~ k ~ "' must be an output column (it is excluded)") -%}
  {%- endfor -%}
  {%- set reserved = [names.start_at, names.end_at, names.system_start_at, names.system_end_at] | map('lower') | list -%}
  {%- for c in output if (c | lower) in reserved -%}
    {%- do errors.append("column '" ~ c ~ "': reserved for the target's history columns; rename it or exclude it from the output") -%}
  {%- endfor -%}
  {%- set tracked = output -%}
  {%- if raw.track_history_column_list is not none -%}
    {%- set tracked = auto_cdc._resolve_list('track_history_column_list', raw.track_history_column_list, output, errors) -%}
  {%- elif raw.track_history_except_column_list is not none -%}
    {%- set untracked = auto_cdc._resolve_list('track_history_except_column_list', raw.track_history_except_column_list, output, errors) -%}
    {%- set tracked = output | reject('in', untracked) | list -%}
  {%- endif -%}
  {%- if errors -%}
    {%- do exceptions.raise_compiler_error(materialization ~ " model '" ~ model.name ~ "' has invalid configuration:\n  - " ~ (errors | join('\n  - '))) -%}
  {%- endif -%}
  {%- set seqs, system_seq, ctu = feed_cfg.seq_columns, feed_cfg.system_seq, feed_cfg.columns_to_update -%}
  {%- set payload = output | reject('in', keys + seqs) | list -%}
  {%- set stored = keys + [] -%}
  {%- for c in seqs + output + ([system_seq] if system_seq else []) if c not in stored -%}{%- do stored.append(c) -%}{%- endfor -%}
  {%- if ctu -%}{%- do stored.append(names.columns) -%}{%- endif -%}
  {{ return(dict(feed_cfg, shape=shape, scd=scd, key_columns=keys, payload=payload, stored=stored, tracked=tracked,
                 compared=stored | reject('equalto', system_seq if system_seq not in output else none) | list,
                 ignore_null=feed_cfg.ignore_null | select('in', payload) | list, on_schema_change=on_schema_change)) }}
{% endmacro %}


{#- A change feed's columns and rules (R9): the sequence, the output columns (column_list, or every column
    but except_column_list and the columns_to_update column, which is not an output column unless listed:
    R5), the partial-update forms, the system time, the cursor, and the conditions' columns. -#}
{% macro _resolve_feed_columns(raw, scd, columns, errors) %}
  {%- if not raw.sequence_by -%}{%- do errors.append("sequence_by: required (a column or a list of columns)") -%}{%- endif -%}
  {%- set ignore_forms = [] -%}
  {%- for name in ['ignore_null_updates', 'ignore_null_updates_column_list', 'ignore_null_updates_except_column_list']
        if raw[name] not in [none, false] -%}{%- do ignore_forms.append(name) -%}{%- endfor -%}
  {%- if ignore_forms | length > 1 -%}{%- do errors.append((ignore_forms | join(', ')) ~ ": choose one ignore_null_updates form") -%}{%- endif -%}
  {%- if scd == 'bitemporal' and not raw.system_sequence_by -%}{%- do errors.append("stored_as_scd_type 'bitemporal': requires system_sequence_by") -%}{%- endif -%}
  {%- if raw.columns_to_update and ignore_forms -%}{%- do errors.append("columns_to_update: cannot be combined with " ~ (ignore_forms | join(', '))) -%}{%- endif -%}
  {%- if raw.columns_to_update and scd == 'bitemporal' -%}{%- do errors.append("columns_to_update: not supported with stored_as_scd_type 'bitemporal'") -%}{%- endif -%}
  {%- if raw.apply_as_snapshot -%}
    {%- if scd != 1 -%}{%- do errors.append("apply_as_snapshot: a snapshot and a change feed combine into an SCD type 1 target only (as in Databricks)") -%}{%- endif -%}
    {%- if ignore_forms -%}{%- do errors.append("apply_as_snapshot: cannot be combined with " ~ (ignore_forms | join(', ')) ~ " (a snapshot row writes every column)") -%}{%- endif -%}
    {%- if raw.columns_to_update -%}{%- do errors.append("apply_as_snapshot: cannot be combined with columns_to_update (a snapshot row writes every column)") -%}{%- endif -%}
  {%- endif -%}
  {%- for name in ['apply_as_deletes', 'apply_as_truncates', 'apply_as_snapshot'] if raw[name] is string -%}
    {%- do auto_cdc._check_expression_columns(name, raw[name], columns, errors) -%}
  {%- endfor -%}
  {%- set one = {} -%}
  {%- for name in ['cursor_column', 'system_sequence_by', 'columns_to_update'] -%}
    {%- do one.update({name: (auto_cdc._resolve_list(name, [raw[name]] if raw[name] else [], columns, errors) + [none])[0]}) -%}
  {%- endfor -%}
  {%- if raw.column_list is not none -%}
    {%- set output = auto_cdc._resolve_list('column_list', raw.column_list, columns, errors) -%}
  {%- else -%}
    {%- set excluded = auto_cdc._resolve_list('except_column_list', raw.except_column_list or [], columns, errors) -%}
    {%- set output = columns | reject('in', excluded + ([one.columns_to_update] if one.columns_to_update else [])) | list -%}
  {%- endif -%}
  {%- set ignore_null = output if raw.ignore_null_updates else [] -%}
  {%- if raw.ignore_null_updates_column_list is not none -%}
    {%- set ignore_null = auto_cdc._resolve_list('ignore_null_updates_column_list', raw.ignore_null_updates_column_list, output, errors) -%}
  {%- elif raw.ignore_null_updates_except_column_list is not none -%}
    {%- set kept = auto_cdc._resolve_list('ignore_null_updates_except_column_list', raw.ignore_null_updates_except_column_list, output, errors) -%}
    {%- set ignore_null = output | reject('in', kept) | list -%}
  {%- endif -%}
  {{ return({'seq_columns': auto_cdc._resolve_list('sequence_by', raw.sequence_by or [], columns, errors), 'output': output,
             'ignore_null': ignore_null, 'columns_to_update': one.columns_to_update, 'system_seq': one.system_sequence_by,
             'cursor': one.cursor_column, 'delete_expr': raw.apply_as_deletes, 'truncate_expr': raw.apply_as_truncates,
             'snapshot_expr': raw.apply_as_snapshot, 'snapshot_version': none, 'max_delete_fraction': none}) }}
{% endmacro %}


{#- Snapshots: the snapshot_version column orders them and is no output column; every other column is. -#}
{% macro _resolve_snapshot_columns(raw, columns, errors) %}
  {%- set fraction = raw.max_delete_fraction -%}
  {%- if fraction is not none and (fraction is string or fraction < 0 or fraction > 1) -%}
    {%- do errors.append("max_delete_fraction: expected a number between 0 and 1, got '" ~ fraction ~ "'") -%}
  {%- endif -%}
  {%- set version = auto_cdc._resolve_list('snapshot_version', [raw.snapshot_version] if raw.snapshot_version else [], columns, errors) -%}
  {{ return({'seq_columns': [auto_cdc._names().version], 'output': columns | reject('in', version) | list, 'ignore_null': [],
             'columns_to_update': none, 'system_seq': none, 'cursor': none, 'delete_expr': none, 'truncate_expr': none,
             'snapshot_expr': none, 'snapshot_version': (version + [none])[0], 'max_delete_fraction': fraction}) }}
{% endmacro %}
