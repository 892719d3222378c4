{#-
  The run's columns (`cols`), laid out once its source is staged:
    output, tracked, stored  the columns it keeps (an incremental run follows on_schema_change)
    target_columns           the target's columns: output, then the shape's history columns
    types                    the column types an incremental run read ({} on a first run): target, log, runs, source
    add_columns, drop_columns, widen_columns   the schema changes it makes
    spark_buckets            the bucket count of an engine that partitions by a bucket of the keys (bucket_count)
    check_feed               a change feed is checked (R7)
    cursor_sql               the run's cursor, when it is not the batch's greatest (snapshots: the version)
    once_skipped             a `once` model's later run reads no snapshot
    prior                    what the engine read from the run log before staging (prior_runs), or none
  `source`: the staged source; `types`: the column types already read with it (none: read them here).
-#}
{% macro _columns(cfg, rel, incremental, source, types, check_feed=false, cursor_sql=none, once_skipped=false, prior=none) %}
  {%- if incremental -%}
    {%- set types = types or auto_cdc._relation_types({'target': rel.target, 'log': rel.log, 'runs': rel.runs, 'source': source}) -%}
    {%- set columns = auto_cdc._unchanged_columns(cfg, types) or auto_cdc._plan_schema_changes(cfg, rel, source, types) -%}
  {%- else -%}
    {%- set columns = {'types': {}, 'output': cfg.output, 'tracked': cfg.tracked, 'stored': cfg.stored,
                       'add_columns': [], 'drop_columns': [], 'widen_columns': {}} -%}
  {%- endif -%}
  {{ return(dict(columns, target_columns=auto_cdc._target_columns(cfg.scd, columns.output),
                 altered=columns.add_columns or columns.drop_columns or columns.widen_columns or columns.get('bookkeeping_missing', false),
                 spark_buckets=auto_cdc.bucket_count(rel, incremental) if auto_cdc._engine().buckets else none, check_feed=check_feed, cursor_sql=cursor_sql,
                 once_skipped=once_skipped, prior=prior)) }}
{% endmacro %}


{#- The usual incremental run's columns, where nothing changed since the last run: the target holds the
    output columns in their order (names compared as the catalog gives them: Spark's lower-cases them) with
    the source's types, the sequence kept its type, and the log and the run log hold every bookkeeping
    column (_bookkeeping_columns_added); else none (_plan_schema_changes). -#}
{% macro _unchanged_columns(cfg, types) %}
  {%- set n = auto_cdc._names() -%}
  {%- set reserved = [n.start_at, n.end_at, n.system_start_at, n.system_end_at] | map('lower') | list -%}
  {%- set lower = {} -%}
  {%- for table, columns in types.items() -%}
    {%- set by_name = {} -%}
    {%- for c, t in columns.items() -%}{%- do by_name.update({c | lower: t | lower}) -%}{%- endfor -%}
    {%- do lower.update({table: by_name}) -%}
  {%- endfor -%}
  {%- set existing = [] -%}
  {%- for c in lower.target if c not in reserved and not c.startswith(n.internal_prefix) -%}{%- do existing.append(c) -%}{%- endfor -%}
  {%- if existing != cfg.output | map('lower') | list -%}{{ return(none) }}{%- endif -%}
  {%- for c in cfg.output | map('lower') if c not in (cfg.seq_columns | map('lower') | list) and lower.target[c] != lower.source.get(c) -%}{{ return(none) }}{%- endfor -%}
  {%- for c in cfg.seq_columns | map('lower') if lower.log.get(c) != lower.source.get(c) -%}{{ return(none) }}{%- endfor -%}
  {%- for table, added in auto_cdc._bookkeeping_columns_added().items() -%}
    {%- for c in added if (c | lower) not in lower[table] -%}{{ return(none) }}{%- endfor -%}
  {%- endfor -%}
  {{ return({'types': types, 'output': cfg.output, 'tracked': cfg.output | select('in', cfg.tracked) | list, 'stored': cfg.stored,
             'add_columns': [], 'drop_columns': [], 'widen_columns': {}}) }}
{% endmacro %}


{#-
  Incremental run: compare the model's output columns with the target's and follow
  on_schema_change (default append_new_columns). A new column is added to the target and the log
  with NULL for the rows and events before it: it opens no version by itself. A column the model no
  longer returns is kept (NULL in later events, and no longer tracked) unless sync_all_columns
  drops it. Returns the columns to use, the changes to make and the column types read (`types`, when
  not given: of the target, the logs and the staged `source`).
-#}
{% macro _plan_schema_changes(cfg, rel, source, types) %}
  {%- set n = auto_cdc._names() -%}
  {%- set reserved = [n.start_at, n.end_at, n.system_start_at, n.system_end_at] | map('lower') | list -%}
  {#- the column types of the target, the logs and the staged source, read in one query -#}
  {%- set types = types or auto_cdc._relation_types({'target': rel.target, 'log': rel.log, 'runs': rel.runs, 'source': source}) -%}
  {%- set existing = [] -%}
  {%- for name in types.target if (name | lower) not in reserved and not (name | lower).startswith(n.internal_prefix) -%}
    {%- do existing.append(name) -%}
  {%- endfor -%}
  {%- set added = [] -%}
  {%- for c in cfg.output if auto_cdc._resolve_column(c, existing) is none -%}{%- do added.append(c) -%}{%- endfor -%}
  {%- set removed = [] -%}
  {%- for c in existing if auto_cdc._resolve_column(c, cfg.output) is none -%}{%- do removed.append(c) -%}{%- endfor -%}
  {#- events are ordered by their sequence across runs, so its type may not change between runs -#}
  {%- set before = types.log -%}
  {%- set now = types.source -%}
  {%- for c in cfg.seq_columns if c in before and c in now and (before[c] | lower) != (now[c] | lower) -%}
    {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': the sequence column '" ~ c ~ "' changed type from "
          ~ before[c] ~ " to " ~ now[c] ~ " since the last run; events of both types cannot be ordered together "
          ~ "(cast it back to " ~ before[c] ~ "; or rebuild with --full-refresh, which rebuilds the history from what the source "
          ~ "still holds: events it no longer holds are lost)") -%}
  {%- endfor -%}
  {%- set mode = cfg.on_schema_change -%}
  {%- set widen = auto_cdc._widened_types(cfg, rel.target, source, types, existing) if mode != 'ignore' else {} -%}
  {%- if mode == 'fail' and (added or removed or widen) -%}
    {%- set widened = [] -%}
    {%- for c, t in widen.items() -%}{%- do widened.append(c ~ ' to ' ~ t) -%}{%- endfor -%}
    {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': the source's columns changed and on_schema_change is 'fail' (new: "
          ~ (added | join(', ') or 'none') ~ "; missing: " ~ (removed | join(', ') or 'none') ~ "; widened: " ~ (widened | join(', ') or 'none') ~ ")") -%}
  {%- endif -%}
  {%- set add = added if mode in ['append_new_columns', 'sync_all_columns'] else [] -%}
  {%- set drop = removed if mode == 'sync_all_columns' else [] -%}
  {%- if auto_cdc._engine().buckets -%}{% do auto_cdc.check_schema_changes(drop, widen) %}{%- endif -%}
  {%- set output = [] -%}
  {%- for c in existing if c not in drop -%}{%- do output.append(auto_cdc._resolve_column(c, cfg.output) or c) -%}{%- endfor -%}
  {%- set output = output + add -%}
  {%- set tracked = [] -%}
  {%- for c in output if c in cfg.tracked -%}{%- do tracked.append(c) -%}{%- endfor -%}
  {%- set stored = [] -%}
  {%- for c in cfg.stored if c not in added or c in add -%}{%- do stored.append(c) -%}{%- endfor -%}
  {{ return({'types': types, 'output': output, 'tracked': tracked, 'stored': stored, 'add_columns': add,
             'drop_columns': drop, 'widen_columns': widen, 'bookkeeping_missing': true}) }}
{% endmacro %}


{#- Bookkeeping columns added since a target was created, by table, with their types: the run log's
    counts of the keys each path took, the target's version each run left unedited
    (unedited_target_version), the strategy it took (plan.sql) and the config it resolved (_config), and the event log's fingerprint of
    each upsert (an event logged before it has none: its key is replayed until its next event). -#}
{% macro _bookkeeping_columns_added() %}
  {%- set bigint = dbt.type_bigint() -%}
  {{ return({'runs': {'fast_keys': bigint, 'replayed_keys': bigint, 'target_version': bigint,
                      'strategy': dbt.type_string(), 'config': dbt.type_string()},
             'log': {auto_cdc._names().fingerprint: bigint}}) }}
{% endmacro %}

{% macro _apply_schema_changes(args) %}
  {%- set rel, cols = args.rel, args.cols -%}
  {%- for table, added in auto_cdc._bookkeeping_columns_added().items() -%}
    {%- set existing = cols.types.get(table, {}).keys() | map('lower') | list -%}
    {%- for c, type in added.items() if existing and (c | lower) not in existing -%}
      {% do auto_cdc._run_sql(auto_cdc.add_column_sql(rel[table], c, type)) %}
    {%- endfor -%}
  {%- endfor -%}
  {#- new and widened columns go into the change feed too (it has the target's columns), when it exists -#}
  {%- set typed = [rel.target, rel.log] -%}
  {%- if cols.add_columns or cols.widen_columns -%}
    {%- set changes = adapter.get_relation(rel.changes.database, rel.changes.schema, rel.changes.identifier) -%}
    {%- if changes is not none -%}{%- do typed.append(changes) -%}{%- endif -%}
  {%- endif -%}
  {%- if cols.add_columns -%}
    {%- set types = auto_cdc._column_types('select ' ~ auto_cdc._cols(cols.add_columns) ~ ' from ' ~ rel.temp.batch) -%}
    {%- for c in cols.add_columns -%}
      {%- for relation in typed -%}
        {% do auto_cdc._run_sql(auto_cdc.add_column_sql(relation, c, types[c])) %}
      {%- endfor -%}
    {%- endfor -%}
  {%- endif -%}
  {%- for c in cols.drop_columns -%}
    {%- for relation in [rel.target, rel.log] -%}
      {% do auto_cdc._run_sql('alter table ' ~ relation ~ ' drop column ' ~ auto_cdc._q(c)) %}
    {%- endfor -%}
  {%- endfor -%}
  {%- for c, type in cols.widen_columns.items() -%}
    {%- for relation in typed -%}
      {% do auto_cdc._run_sql('alter table ' ~ relation ~ ' alter column ' ~ auto_cdc._q(c) ~ ' type ' ~ type) %}
    {%- endfor -%}
  {%- endfor -%}
{% endmacro %}


{#-
  Target columns whose source type has widened (int to bigint, varchar(10) to varchar(20), a
  decimal's precision): target column -> the type both old and new values fit in, the type the
  engine gives a UNION of the two. A narrower source type needs nothing: its values fit. Sequence
  columns are checked separately (their type may not change).
-#}
{% macro _widened_types(cfg, target, source, types, existing) %}
  {%- set pairs = [] -%}
  {%- for c in existing -%}
    {%- set s = auto_cdc._resolve_column(c, cfg.output) -%}
    {%- if s is not none and s not in cfg.seq_columns -%}{%- do pairs.append((c, s)) -%}{%- endif -%}
  {%- endfor -%}
  {%- if not pairs -%}{{ return({}) }}{%- endif -%}
  {%- set target_cols = [] -%}{%- set source_cols = [] -%}
  {%- for c, s in pairs -%}
    {%- do target_cols.append(auto_cdc._q(c)) -%}
    {%- do source_cols.append(auto_cdc._q(s) ~ ' as ' ~ auto_cdc._q(c)) -%}
  {%- endfor -%}
  {%- set before = types.target -%}
  {%- set changed = [] -%}
  {%- for c, s in pairs if (before[c] | lower) != (types.source[s] | lower) -%}{%- do changed.append(c) -%}{%- endfor -%}
  {%- if not changed -%}{{ return({}) }}{%- endif -%}
  {%- set both = auto_cdc._column_types('select ' ~ (target_cols | join(', ')) ~ ' from ' ~ target ~ ' where 1 = 0 union all select '
        ~ (source_cols | join(', ')) ~ ' from ' ~ source ~ ' where 1 = 0') -%}
  {%- set widen = {} -%}
  {%- for c in changed if (both[c] | lower) != (before[c] | lower) -%}{%- do widen.update({c: both[c]}) -%}{%- endfor -%}
  {{ return(widen) }}
{% endmacro %}
