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


{% macro _resolve_config(source_columns) %}
  {%- set names = auto_cdc._names() -%}
  {%- set errors = [] -%}
  {%- set columns = source_columns | list -%}

  {%- set scd = auto_cdc._scd_type(config.get('stored_as_scd_type', 1), errors) -%}
  {%- do auto_cdc._check_configs('auto_cdc', scd, errors) -%}
  {%- set raw = {} -%}
  {%- for name in ['keys', 'sequence_by', 'column_list', 'except_column_list', 'track_history_column_list',
                   'track_history_except_column_list', 'ignore_null_updates_column_list',
                   'ignore_null_updates_except_column_list'] -%}
    {%- do raw.update({name: auto_cdc._as_list(config.get(name))}) -%}
  {%- endfor -%}
  {%- set ignore_null_all = config.get('ignore_null_updates', false) -%}
  {%- set columns_to_update = config.get('columns_to_update') -%}
  {%- set system_sequence_by = config.get('system_sequence_by') -%}
  {%- set cursor_column = config.get('cursor_column') -%}
  {#- dbt fills in on_schema_change='ignore' for every model; auto_cdc's default is append_new_columns,
      so only a value the user set counts -#}
  {%- set on_schema_change = config.get('on_schema_change') if 'on_schema_change' in (model.unrendered_config or {}) else 'append_new_columns' -%}

  {#- config combinations (R9) -#}
  {%- if not raw['keys'] -%}{%- do errors.append("keys: required (a list of key columns)") -%}{%- endif -%}
  {%- if not raw.sequence_by -%}{%- do errors.append("sequence_by: required (a column or a list of columns)") -%}{%- endif -%}
  {%- set ignore_forms = [] -%}
  {%- if ignore_null_all -%}{%- do ignore_forms.append('ignore_null_updates') -%}{%- endif -%}
  {%- if raw.ignore_null_updates_column_list is not none -%}{%- do ignore_forms.append('ignore_null_updates_column_list') -%}{%- endif -%}
  {%- if raw.ignore_null_updates_except_column_list is not none -%}{%- do ignore_forms.append('ignore_null_updates_except_column_list') -%}{%- endif -%}
  {%- if ignore_forms | length > 1 -%}
    {%- do errors.append((ignore_forms | join(', ')) ~ ": choose one ignore_null_updates form") -%}
  {%- endif -%}
  {%- if scd == 'bitemporal' and not system_sequence_by -%}
    {%- do errors.append("stored_as_scd_type 'bitemporal': requires system_sequence_by") -%}
  {%- endif -%}
  {%- if columns_to_update and ignore_forms -%}
    {%- do errors.append("columns_to_update: cannot be combined with " ~ (ignore_forms | join(', '))) -%}
  {%- endif -%}
  {%- if columns_to_update and scd == 'bitemporal' -%}
    {%- do errors.append("columns_to_update: not supported with stored_as_scd_type 'bitemporal'") -%}
  {%- endif -%}
  {%- set snapshot_expr = config.get('apply_as_snapshot') -%}
  {%- if snapshot_expr and scd != 1 -%}
    {%- do errors.append("apply_as_snapshot: a snapshot and a change feed combine into an SCD type 1 target only (as in Databricks)") -%}
  {%- endif -%}
  {%- if snapshot_expr and ignore_forms -%}
    {%- do errors.append("apply_as_snapshot: cannot be combined with " ~ (ignore_forms | join(', ')) ~ " (a snapshot row writes every column)") -%}
  {%- endif -%}
  {%- if snapshot_expr and columns_to_update -%}
    {%- do errors.append("apply_as_snapshot: cannot be combined with columns_to_update (a snapshot row writes every column)") -%}
  {%- endif -%}
  {%- if on_schema_change not in ['ignore', 'fail', 'append_new_columns', 'sync_all_columns'] -%}
    {%- do errors.append("on_schema_change: unknown value '" ~ on_schema_change ~ "' (expected ignore, fail, append_new_columns or sync_all_columns)") -%}
  {%- endif -%}

  {#- columns -#}
  {%- for c in columns -%}
    {%- if (c | lower).startswith(names.internal_prefix | lower) -%}
      {%- do errors.append("column '" ~ c ~ "': names starting with " ~ names.internal_prefix ~ " are reserved for the package") -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for name in ['apply_as_deletes', 'apply_as_truncates', 'apply_as_snapshot'] if config.get(name) is string -%}
    {%- do auto_cdc._check_expression_columns(name, config.get(name), columns, errors) -%}
  {%- endfor -%}
  {%- set keys = auto_cdc._resolve_list('keys', raw['keys'] or [], columns, errors) -%}
  {%- set seqs = auto_cdc._resolve_list('sequence_by', raw.sequence_by or [], columns, errors) -%}
  {%- set cursor = auto_cdc._resolve_list('cursor_column', [cursor_column] if cursor_column else [], columns, errors) -%}
  {%- set system_seq = auto_cdc._resolve_list('system_sequence_by', [system_sequence_by] if system_sequence_by else [], columns, errors) -%}
  {%- set ctu = auto_cdc._resolve_list('columns_to_update', [columns_to_update] if columns_to_update else [], columns, errors) -%}

  {%- if raw.column_list is not none -%}
    {%- set output = auto_cdc._resolve_list('column_list', raw.column_list, columns, errors) -%}
  {%- else -%}
    {%- set excluded = auto_cdc._resolve_list('except_column_list', raw.except_column_list or [], columns, errors) -%}
    {#- the columns_to_update column is not an output column unless listed (R5) -#}
    {%- set excluded = excluded + ctu -%}
    {%- set output = [] -%}
    {%- for c in columns if c not in excluded -%}{%- do output.append(c) -%}{%- endfor -%}
  {%- endif -%}
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
    {%- set tracked = [] -%}
    {%- for c in output if c not in untracked -%}{%- do tracked.append(c) -%}{%- endfor -%}
  {%- endif -%}

  {%- set ignore_null = [] -%}
  {%- if ignore_null_all -%}
    {%- set ignore_null = output -%}
  {%- elif raw.ignore_null_updates_column_list is not none -%}
    {%- set ignore_null = auto_cdc._resolve_list('ignore_null_updates_column_list', raw.ignore_null_updates_column_list, output, errors) -%}
  {%- elif raw.ignore_null_updates_except_column_list is not none -%}
    {%- set kept = auto_cdc._resolve_list('ignore_null_updates_except_column_list', raw.ignore_null_updates_except_column_list, output, errors) -%}
    {%- set ignore_null = [] -%}
    {%- for c in output if c not in kept -%}{%- do ignore_null.append(c) -%}{%- endfor -%}
  {%- endif -%}


  {%- if errors -%}
    {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "' has invalid configuration:\n  - " ~ (errors | join('\n  - '))) -%}
  {%- endif -%}

  {#- payload: output columns that are neither keys nor sequence columns; a delete or truncate carries none -#}
  {%- set payload = [] -%}
  {%- for c in output if c not in keys and c not in seqs -%}{%- do payload.append(c) -%}{%- endfor -%}
  {%- set stored = keys + [] -%}
  {%- for c in seqs + output + system_seq if c not in stored -%}{%- do stored.append(c) -%}{%- endfor -%}
  {#- with columns_to_update, the log keeps each upsert's normalised list of written columns -#}
  {%- if ctu -%}{%- do stored.append(names.columns) -%}{%- endif -%}
  {#- R6/R7: the same business event learned at two system times is one event (the earliest
      learning counts), so the system time is not part of what two events must agree on -#}
  {%- set compared = [] -%}
  {%- for c in stored if not (system_seq and c == system_seq[0] and c not in output) -%}{%- do compared.append(c) -%}{%- endfor -%}
  {#- R5: keys and sequence columns are written by every upsert; the other output columns may be partial -#}
  {%- set ignore_null_payload = [] -%}
  {%- for c in ignore_null if c in payload -%}{%- do ignore_null_payload.append(c) -%}{%- endfor -%}

  {% do return({
    'scd': scd,
    'key_columns': keys,
    'seq_columns': seqs,
    'output': output,
    'payload': payload,
    'stored': stored,
    'compared': compared,
    'tracked': tracked,
    'ignore_null': ignore_null_payload,
    'columns_to_update': ctu[0] if ctu else none,
    'system_seq': system_seq[0] if system_seq else none,
    'cursor': cursor[0] if cursor else none,
    'delete_expr': config.get('apply_as_deletes'),
    'truncate_expr': config.get('apply_as_truncates'),
    'snapshot_expr': snapshot_expr,
    'on_schema_change': on_schema_change
  }) %}
{% endmacro %}


{#-
  auto_cdc_snapshot configs. The result has the shape _resolve_config returns, so
  the snapshot's diff feeds the same apply: the snapshot version is the sequence (an internal
  column), every other column is an output column.
-#}
{% macro _resolve_snapshot_config(source_columns) %}
  {%- set names = auto_cdc._names() -%}
  {%- set errors = [] -%}
  {%- set columns = source_columns | list -%}
  {%- set scd = auto_cdc._scd_type(config.get('stored_as_scd_type', 1), errors) -%}
  {%- if scd == 'bitemporal' -%}
    {%- do errors.append("stored_as_scd_type: auto_cdc_snapshot supports 1 or 2") -%}
  {%- endif -%}
  {%- do auto_cdc._check_configs('auto_cdc_snapshot', scd if scd != 'bitemporal' else none, errors) -%}
  {%- set raw_keys = auto_cdc._as_list(config.get('keys')) -%}
  {%- set track = auto_cdc._as_list(config.get('track_history_column_list')) -%}
  {%- set track_except = auto_cdc._as_list(config.get('track_history_except_column_list')) -%}
  {%- set version = config.get('snapshot_version') -%}
  {%- set max_delete_fraction = config.get('max_delete_fraction') -%}
  {%- set on_schema_change = config.get('on_schema_change') if 'on_schema_change' in (model.unrendered_config or {}) else 'append_new_columns' -%}

  {%- if not raw_keys -%}{%- do errors.append("keys: required (a list of key columns)") -%}{%- endif -%}
  {%- if max_delete_fraction is not none and (max_delete_fraction is string or max_delete_fraction < 0 or max_delete_fraction > 1) -%}
    {%- do errors.append("max_delete_fraction: expected a number between 0 and 1, got '" ~ max_delete_fraction ~ "'") -%}
  {%- endif -%}
  {%- for c in columns -%}
    {%- if (c | lower).startswith(names.internal_prefix | lower) -%}
      {%- do errors.append("column '" ~ c ~ "': names starting with " ~ names.internal_prefix ~ " are reserved for the package") -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set keys = auto_cdc._resolve_list('keys', raw_keys or [], columns, errors) -%}
  {%- set version_col = auto_cdc._resolve_list('snapshot_version', [version] if version else [], columns, errors) -%}
  {%- set output = [] -%}
  {%- for c in columns if c not in version_col -%}{%- do output.append(c) -%}{%- endfor -%}
  {%- set reserved = [names.start_at, names.end_at, names.system_start_at, names.system_end_at] | map('lower') | list -%}
  {%- for c in output if (c | lower) in reserved -%}
    {%- do errors.append("column '" ~ c ~ "': reserved for the target's history columns; rename it") -%}
  {%- endfor -%}
  {%- set tracked = output -%}
  {%- if track is not none -%}
    {%- set tracked = auto_cdc._resolve_list('track_history_column_list', track, output, errors) -%}
  {%- elif track_except is not none -%}
    {%- set untracked = auto_cdc._resolve_list('track_history_except_column_list', track_except, output, errors) -%}
    {%- set tracked = [] -%}
    {%- for c in output if c not in untracked -%}{%- do tracked.append(c) -%}{%- endfor -%}
  {%- endif -%}
  {%- if errors -%}
    {%- do exceptions.raise_compiler_error("auto_cdc_snapshot model '" ~ model.name ~ "' has invalid configuration:\n  - " ~ (errors | join('\n  - '))) -%}
  {%- endif -%}
  {%- set payload = [] -%}
  {%- for c in output if c not in keys -%}{%- do payload.append(c) -%}{%- endfor -%}
  {% do return({
    'scd': scd, 'key_columns': keys, 'seq_columns': [names.version], 'output': output, 'payload': payload,
    'stored': keys + [names.version] + payload, 'tracked': tracked, 'ignore_null': [],
    'columns_to_update': none, 'system_seq': none, 'cursor': none, 'delete_expr': none, 'truncate_expr': none, 'snapshot_expr': none,
    'on_schema_change': on_schema_change,
    'snapshot_version': version_col[0] if version_col else none, 'max_delete_fraction': max_delete_fraction
  }) %}
{% endmacro %}
