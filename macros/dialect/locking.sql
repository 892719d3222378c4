{#-
  The model's lock: one run of a model at a time (macros/locking.sql says what it guards and when it is taken).
  Each hook: its dispatcher, `default__` (what DuckDB and Postgres share unless they override it), then
  the engines' overrides, each saying how its dialect differs. docs/contributing.md lists them all.
-#}


{% macro take_model_lock(relation, model_name, lock_timeout='1h', statement_timeout=none) %}
  {{ return(adapter.dispatch('take_model_lock', 'auto_cdc')(relation, model_name, lock_timeout, statement_timeout)) }}
{% endmacro %}

{#- DuckDB: a database file is open in one process at a time (DuckDB's file lock), and one dbt
    invocation never runs a model twice, so two writers of one model cannot overlap. -#}
{% macro default__take_model_lock(relation, model_name, lock_timeout, statement_timeout) %}
{% endmacro %}

{#- Spark (a session with Delta Lake's catalog): Spark has no lock a session could hold, so the lock is a
    lease, a row in the Delta table <target>__auto_cdc_lease. A taker appends its row (appends never
    conflict), then reads the live rows (not expired, lock_timeout after they were taken) in commit
    order (row tracking's row_commit_version): the earliest holds the lease. Every taker reads the same
    order, so of two runs that append at once exactly one finds its row first. The other deletes its
    row and fails at once (a Jinja macro cannot sleep to wait), naming the holder. The holder deletes its
    row after its commit (release_model_lock); a failed run's row is deleted by the package's
    on-run-end hook (release_failed_models_locks); a killed run's row lapses after lock_timeout.
    Without Delta Lake (parquet only) there is no lease: returns none. Returns the lease relation. -#}
{% macro spark__take_model_lock(relation, model_name, lock_timeout, statement_timeout) %}
  {%- if not auto_cdc._spark_session_has_delta() -%}{{ return(none) }}{%- endif -%}
  {%- set lease = auto_cdc._side_relation(relation, auto_cdc._names().lease_suffix) -%}
  {%- if load_cached_relation(lease) is none -%}
    {% do auto_cdc._run_sql('create table if not exists ' ~ lease ~ ' (token string, holder string, taken_at timestamp, expires_at timestamp)'
          ~ " using delta tblproperties ('delta.enableRowTracking' = 'true', 'delta.enableDeletionVectors' = 'true')") %}
  {%- endif -%}
  {#- lock_timeout 0 (Postgres: no timeout): a lease that never lapses; else at least a second -#}
  {%- set seconds = auto_cdc._timeout_seconds(lock_timeout, model_name) -%}
  {%- set lapses = "timestamp'9999-12-31 00:00:00'" if seconds == 0 else 'timestampadd(SECOND, ' ~ ([1, seconds | round(0, 'ceil') | int] | max) ~ ', current_timestamp())' -%}
  {%- set holder = 'dbt invocation ' ~ invocation_id ~ ' (started ' ~ run_started_at ~ ')' -%}
  {% do auto_cdc._run_sql('insert into ' ~ lease ~ " select '" ~ invocation_id ~ "', '" ~ (holder | replace("'", "''"))
        ~ "', current_timestamp(), " ~ lapses) %}
  {%- set first = auto_cdc._query('select token, holder, cast(taken_at as string), cast(expires_at as string) from ' ~ lease
        ~ " where token = '" ~ invocation_id ~ "' or expires_at > current_timestamp() order by _metadata.row_commit_version limit 1").rows[0] -%}
  {%- if first[0] != invocation_id -%}
    {% do auto_cdc._run_sql('delete from ' ~ lease ~ " where token = '" ~ invocation_id ~ "'") %}
    {%- do exceptions.raise_database_error("auto_cdc model '" ~ model_name ~ "': another run of this model holds its lease in " ~ lease
          ~ " (" ~ first[1] ~ ", taken at " ~ first[2] ~ ", lapsing at " ~ first[3] ~ "). Spark has no lock a run could wait on: "
          ~ "run again when that run has ended. If no run of the model is going on (that one was killed), delete its row: delete from "
          ~ lease ~ " where token = '" ~ first[0] ~ "'; a lease also lapses lock_timeout (" ~ lock_timeout ~ ") after it was taken") -%}
  {%- endif -%}
  {{ return(lease) }}
{% endmacro %}

{#- Postgres: a transaction-level advisory lock on the target's name, released by the commit or
    rollback, or when the session ends (a killed run: its server session ends when its connection
    is closed, or when statement_timeout cancels what it was running). -#}
{% macro postgres__take_model_lock(relation, model_name, lock_timeout, statement_timeout) %}
  {#- the settings, then the lock if it is free, in one round trip -#}
  {%- if auto_cdc._run_then_query(auto_cdc._pg_try_lock_sql(relation, lock_timeout, statement_timeout),
        "select current_setting('auto_cdc.locked')").rows[0][0] != 'on' -%}
    {% do auto_cdc._run_sql(auto_cdc._pg_wait_for_model_lock_sql(relation, model_name)) %}
  {%- endif -%}
{% endmacro %}

{#- Postgres: the run's settings, then the model's lock if it is free; whether it was is left in the
    transaction's setting auto_cdc.locked ('on' or 'off'). -#}
{% macro _pg_try_lock_sql(relation, lock_timeout, statement_timeout) %}
  {{ return('do $auto_cdc$ begin perform ' ~ (auto_cdc._pg_settings(lock_timeout, statement_timeout) | join(', '))
        ~ "; perform set_config('auto_cdc.locked', case when pg_try_advisory_xact_lock(" ~ auto_cdc._pg_lock_key(relation)
        ~ ") then 'on' else 'off' end, true); end $auto_cdc$") }}
{% endmacro %}

{#- Postgres: the run's settings (set_config calls, for its transaction).
    - JIT off: the apply's statements are joins over a batch whose temp tables the planner misjudges, so
      it compiled them for longer than they ran (650 ms of a 760 ms statement on a 10,000-event batch).
    - random_page_cost at most 1.1 (PostgreSQL's suggestion for data mostly in cache or on SSD): at the
      default 4 the planner reads the whole event log and target to join them with a batch's keys rather
      than look those keys up in their indexes (docs/benchmarks.md). -#}
{% macro _pg_settings(lock_timeout, statement_timeout) %}
  {%- set settings = [] -%}
  {%- for name, value in [('lock_timeout', lock_timeout), ('statement_timeout', statement_timeout), ('jit', 'off')] if value is not none -%}
    {%- do settings.append("set_config('" ~ name ~ "', '" ~ (value | string | replace("'", "''")) ~ "', true)") -%}
  {%- endfor -%}
  {%- do settings.append("set_config('random_page_cost', least(current_setting('random_page_cost')::float8, 1.1)::text, true)") -%}
  {{ return(settings) }}
{% endmacro %}

{#- Postgres: the model's advisory lock key, from the target's name. -#}
{% macro _pg_lock_key(relation) %}
  {{ return("hashtext('auto_cdc'), hashtext('" ~ (relation.render() | replace("'", "''")) ~ "')") }}
{% endmacro %}

{#- Postgres: wait for the model's advisory lock (until lock_timeout; then fail naming its holders); the
    wait is logged. -#}
{% macro _pg_wait_for_model_lock_sql(relation, model_name) %}
  {%- do log("auto_cdc model '" ~ model_name ~ "': another run of this model is applying to " ~ relation
        ~ "; waiting for it to finish", info=true) -%}
  {{ return(auto_cdc._wait_for_lock_sql(model_name, "the model's lock", 'perform pg_advisory_xact_lock(' ~ auto_cdc._pg_lock_key(relation) ~ ')',
        "l.locktype = 'advisory' and l.classid = hashtext('auto_cdc')::oid and l.objid = hashtext('"
        ~ (relation.render() | replace("'", "''")) ~ "')::oid and l.objsubid = 2")) }}
{% endmacro %}


{#- The end of a writer's hold on the model's lock, after its commit. `lease`: what take_model_lock
    returned. DuckDB and Postgres: nothing (the commit released it). -#}
{% macro release_model_lock(lease) %}
  {{ return(adapter.dispatch('release_model_lock', 'auto_cdc')(lease)) }}
{% endmacro %}

{% macro default__release_model_lock(lease) %}
{% endmacro %}

{#- Spark: the writer's lease row goes, and any lapsed one with it. -#}
{% macro spark__release_model_lock(lease) %}
  {%- if lease is not none -%}
    {% do auto_cdc._run_sql('delete from ' ~ lease ~ " where token = '" ~ invocation_id ~ "' or expires_at < current_timestamp()") %}
  {%- endif -%}
{% endmacro %}


{#- The package's on-run-end hook (dbt_project.yml): the locks of this invocation's models that failed.
    DuckDB and Postgres: nothing (a failed run's rollback released its lock); the hook sends no
    statement. Returns the hook's SQL: always empty. -#}
{% macro release_failed_models_locks(results) %}
  {{ return(adapter.dispatch('release_failed_models_locks', 'auto_cdc')(results)) }}
{% endmacro %}

{% macro default__release_failed_models_locks(results) %}
  {{ return('') }}
{% endmacro %}

{#- Spark: the lease rows of this invocation's auto_cdc models that failed (an error after the lease was
    taken leaves its row). -#}
{% macro spark__release_failed_models_locks(results) %}
  {%- for result in results or [] if result.status == 'error' and result.node.resource_type == 'model'
        and result.node.config.materialized in ['auto_cdc', 'auto_cdc_snapshot'] -%}
    {%- set node = result.node -%}
    {%- set lease = auto_cdc._side_relation(api.Relation.create(database=node.database, schema=node.schema,
          identifier=node.alias or node.name), auto_cdc._names().lease_suffix) -%}
    {%- if auto_cdc._query('show tables in ' ~ lease.schema ~ " like '" ~ (lease.identifier | lower) ~ "'").rows | length > 0 -%}
      {% do auto_cdc._run_sql('delete from ' ~ lease ~ " where token = '" ~ invocation_id ~ "'") %}
    {%- endif -%}
  {%- endfor -%}
  {{ return('') }}
{% endmacro %}


{#- A timeout setting in seconds: milliseconds as a bare number (as Postgres reads it), or a number with
    ms, s, min, h or d. -#}
{% macro _timeout_seconds(value, model_name) %}
  {%- set m = modules.re.match('^\\s*([0-9]+(?:\\.[0-9]+)?)\\s*(ms|s|min|h|d)?\\s*$', value | string | lower) -%}
  {%- if not m -%}
    {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model_name ~ "': lock_timeout '" ~ value
          ~ "' is not a duration: give a number with ms, s, min, h or d (e.g. '1h'), or milliseconds") -%}
  {%- endif -%}
  {%- set units = {'ms': 0.001, 's': 1, 'min': 60, 'h': 3600, 'd': 86400} -%}
  {{ return((m.group(1) | float) * units[m.group(2) or 'ms']) }}
{% endmacro %}


{#-
  Concurrent runs of one model (README "Guarantees"): the run holds its model's lock from its first
  statement to its commit, so a second run of the same model waits, then applies only what the first
  did not (R2). Called first thing after the outside-transaction pre-hooks, before the relations are
  looked up: dbt's relation cache was filled when the invocation started, so once the lock is held
  the cache is brought up to date for the target and its bookkeeping, which the other run may have
  created or dropped meanwhile.
-#}
{% macro lock_model(relation) %}
  {{ return(adapter.dispatch('lock_model', 'auto_cdc')(relation)) }}
{% endmacro %}

{#- DuckDB: a database file is open in one process at a time (DuckDB's file lock), and one dbt
    invocation never runs a model twice, so two runs of one model cannot overlap. -#}
{% macro default__lock_model(relation) %}
{% endmacro %}

{#- The model's tables whose existence a concurrent run may change: the target, its event log, its run
    log and its change feed. -#}
{% macro _model_tables(relation) %}
  {%- set n = auto_cdc._names() -%}
  {%- set tables = [relation] -%}
  {%- for suffix in [n.log_suffix, n.runs_suffix, n.changes_suffix] -%}
    {%- do tables.append(auto_cdc._side_relation(relation, suffix)) -%}
  {%- endfor -%}
  {{ return(tables) }}
{% endmacro %}

{#- Spark: the model's lease (take_model_lock), then a check that dbt's cache still knows the model's
    tables as they are: a run that ended while this invocation was starting may have created or
    dropped some, and dbt-spark's cache entries carry the table's format, which a listing does not
    give, so the run fails and asks to be run again instead. Returns the lease. -#}
{% macro spark__lock_model(relation) %}
  {%- set lease = auto_cdc.take_model_lock(relation, model.name, config.get('lock_timeout', '1h'), none) -%}
  {%- if lease is none -%}{{ return(none) }}{%- endif -%}
  {%- set relations = auto_cdc._model_tables(relation) -%}
  {%- set names = [] -%}
  {%- for rel in relations -%}{%- do names.append(rel.identifier | lower) -%}{%- endfor -%}
  {%- set found = [] -%}
  {%- for row in auto_cdc._query('show tables in ' ~ relation.schema ~ " like '" ~ (names | join('|')) ~ "'").rows if not row[2] -%}
    {%- do found.append(row[1] | lower) -%}
  {%- endfor -%}
  {%- set changed = [] -%}
  {%- for rel in relations if (load_cached_relation(rel) is not none) != (rel.identifier | lower in found) -%}
    {%- do changed.append(rel ~ (' (created)' if rel.identifier | lower in found else ' (dropped)')) -%}
  {%- endfor -%}
  {%- if changed -%}
    {% do auto_cdc.release_model_lock(lease) %}
    {%- do exceptions.raise_database_error("auto_cdc model '" ~ model.name ~ "': its tables changed after this dbt invocation "
          ~ "started (another run of the model ended meanwhile): " ~ (changed | join(', ')) ~ ". Nothing was written; run it again") -%}
  {%- endif -%}
  {{ return(lease) }}
{% endmacro %}

{#- Postgres: the model's lock (locking.sql), then dbt's cache brought up to date. -#}
{% macro postgres__lock_model(relation) %}
  {%- set names = [] -%}
  {%- for rel in auto_cdc._model_tables(relation) -%}{%- do names.append(rel.identifier) -%}{%- endfor -%}
  {%- set quoted = [] -%}
  {%- for name in names -%}{%- do quoted.append("'" ~ (name | replace("'", "''")) ~ "'") -%}{%- endfor -%}
  {%- set lookup = "select c.relname, c.relkind from pg_class c join pg_namespace s on s.oid = c.relnamespace "
        ~ "where s.nspname = '" ~ (relation.schema | replace("'", "''")) ~ "' and c.relname in (" ~ (quoted | join(', ')) ~ ")" -%}
  {#- one round trip when the lock is free: the settings and the lock (take_model_lock), the target's
      lock (a hand edit of the target waits for this run's commit: locking.sql), and the lookup -#}
  {%- set try_lock = auto_cdc._pg_try_lock_sql(relation, config.get('lock_timeout', '1h'), config.get('statement_timeout')) -%}
  {%- set table = auto_cdc._run_then_query(try_lock ~ ';\n' ~ auto_cdc._lock_target_sql(relation, model.name, "current_setting('auto_cdc.locked') = 'on'"),
        "select current_setting('auto_cdc.locked'), l.relname, l.relkind from (select 1 as one) o left join (" ~ lookup ~ ") l on true") -%}
  {%- set rows = [] -%}
  {%- if table.rows[0][0] == 'on' -%}
    {%- for row in table.rows if row[1] is not none -%}{%- do rows.append([row[1], row[2]]) -%}{%- endfor -%}
  {%- else -%}
    {%- for row in auto_cdc._run_then_query(auto_cdc._pg_wait_for_model_lock_sql(relation, model.name) ~ ';\n'
          ~ auto_cdc._lock_target_sql(relation, model.name), lookup).rows -%}
      {%- do rows.append([row[0], row[1]]) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set found = {} -%}
  {%- for row in rows -%}{%- do found.update({row[0]: 'view' if row[1] in ['v', 'm'] else 'table'}) -%}{%- endfor -%}
  {%- for name in names -%}
    {%- set rel = relation.incorporate(path={'identifier': name}) -%}
    {%- set cached = load_cached_relation(rel) -%}
    {%- if name in found and cached is none -%}
      {%- do adapter.cache_added(rel.incorporate(type=found[name])) -%}
    {%- elif name not in found and cached is not none -%}
      {%- do adapter.cache_dropped(cached) -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}
