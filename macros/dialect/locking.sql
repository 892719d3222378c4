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

{#- Spark: Spark has no lock a session could hold, so the lock is a table of the catalog,
    <target>__auto_cdc_lock, whose properties name its holder. The metastore creates a name once: a
    taker sends `create table if not exists`, then reads the holder from the properties, and a taker
    that finds another holder fails at once (a Jinja macro cannot sleep to wait), naming it. Of two
    takers that create it in the same instant, the second's create fails with Spark's own error
    (TABLE_OR_VIEW_ALREADY_EXISTS: Spark checks, then creates). Catalog calls only, no Spark job, on
    any table format. The holder drops it after its commit (release_model_lock); a failed run's is
    dropped by the package's on-run-end hook (release_failed_models_locks); a killed run's lapses
    lock_timeout after it was taken, by the taking dbt process's clock. A taker that finds a lapsed
    lock renames it to a name derived from the lapsed holder (_spark_lapsed_lock): of two takers of
    one lapsed lock only one rename succeeds (the other finds the lock gone, or the new name taken,
    and fails with Spark's error), and that name stays taken until the new holder releases, so a
    taker that read the lapsed holder late cannot rename the new lock away (the new lock's properties
    name it, and it is dropped with the lock). Returns the lock table. First, the session's settings
    (_spark_session_settings, macros/adapters/spark.sql). -#}
{% macro spark__take_model_lock(relation, model_name, lock_timeout, statement_timeout) %}
  {% do auto_cdc._spark_session_settings() %}
  {%- set lock = auto_cdc._bookkeeping_relation(relation, auto_cdc._names().lock_suffix, auto_cdc._model_node(relation, 'auto_cdc').config) -%}
  {%- set seconds = auto_cdc._timeout_seconds(lock_timeout, model_name) -%}
  {%- set dt = modules.datetime -%}
  {%- set now = dt.datetime.now(modules.pytz.utc).replace(microsecond=0) -%}
  {#- lock_timeout 0 (Postgres: no timeout): a lock that never lapses; else at least a second -#}
  {%- set lapses = dt.datetime(9999, 12, 31, tzinfo=modules.pytz.utc) if seconds == 0
        else now + dt.timedelta(seconds=[1, seconds | round(0, 'ceil') | int] | max) -%}
  {%- set mine = {'holder': invocation_id, 'holder_name': 'dbt invocation ' ~ invocation_id ~ ' (started ' ~ run_started_at ~ ')',
                  'taken_at': now.isoformat(' '), 'lapses_at': lapses.isoformat(' ')} -%}
  {%- set found = auto_cdc._spark_create_lock(lock, mine) -%}
  {%- if found.holder != invocation_id and found.lapses_at and dt.datetime.fromisoformat(found.lapses_at) <= now -%}
    {#- a lapsed lock (a killed run's): renamed away, then taken; a lapsed lock that one renamed
        before it is dropped -#}
    {%- set lapsed = auto_cdc._spark_lapsed_lock(relation, lock, found.holder) -%}
    {%- if found.lapsed -%}
      {% do auto_cdc._run_sql('drop table if exists ' ~ lock.incorporate(path={'identifier': found.lapsed})) %}
    {%- endif -%}
    {% do auto_cdc._run_sql('alter table ' ~ lock ~ ' rename to ' ~ lapsed) %}
    {%- set found = auto_cdc._spark_create_lock(lock, dict(mine, lapsed=lapsed.identifier)) -%}
  {%- endif -%}
  {%- if found.holder != invocation_id -%}
    {%- do exceptions.raise_database_error("auto_cdc model '" ~ model_name ~ "': another run of this model holds its lock " ~ lock
          ~ " (" ~ found.holder_name ~ ", taken at " ~ found.taken_at ~ ", lapsing at " ~ found.lapses_at ~ "). Spark has no lock a run could wait on: "
          ~ "run again when that run has ended. If no run of the model is going on (that one was killed), drop the lock: drop table "
          ~ lock ~ "; a lock also lapses lock_timeout (" ~ lock_timeout ~ ") after it was taken") -%}
  {%- endif -%}
  {{ return(lock) }}
{% endmacro %}

{#- Spark: the lock table created unless it exists (`props`: this taker's holder, holder_name, taken_at,
    lapses_at and, after a takeover, the lapsed lock it renamed), then its holder as its properties give
    it (a dict of the same keys; a lock made by hand without them has none). -#}
{% macro _spark_create_lock(lock, props) %}
  {%- set pairs = [] -%}
  {%- for k, v in props.items() -%}
    {%- do pairs.append("'auto_cdc.lock_" ~ k ~ "' = '" ~ (v | string | replace('\\', '\\\\') | replace("'", "\\'")) ~ "'") -%}
  {%- endfor -%}
  {% do auto_cdc._run_sql('create table if not exists ' ~ lock ~ ' (holder string) using parquet tblproperties (' ~ (pairs | join(', ')) ~ ')') %}
  {{ return(auto_cdc._spark_lock_holder(lock)) }}
{% endmacro %}

{#- Spark: a lock table's holder, from its properties (a dict: holder, holder_name, taken_at, lapses_at,
    lapsed; none where a property is missing). -#}
{% macro _spark_lock_holder(lock) %}
  {%- set found = {'holder': none, 'holder_name': none, 'taken_at': none, 'lapses_at': none, 'lapsed': none} -%}
  {%- for row in auto_cdc._query('show tblproperties ' ~ lock).rows if (row[0] | string).startswith('auto_cdc.lock_') -%}
    {%- do found.update({(row[0] | string)[14:]: row[1]}) -%}
  {%- endfor -%}
  {{ return(found) }}
{% endmacro %}

{#- Spark: the name a lapsed lock is renamed to, from its holder's id: every taker of one lapsed lock
    renames it to the same name, beside the lock. -#}
{% macro _spark_lapsed_lock(relation, lock, holder) %}
  {{ return(lock.incorporate(path={'identifier': auto_cdc._side_identifier(relation.identifier,
              auto_cdc._names().lock_suffix ~ '_' ~ local_md5(holder | string)[:12])})) }}
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

{#- Postgres: the writer's transaction, its settings, then the model's lock if it is free; whether it was
    is left in the transaction's setting auto_cdc.locked ('on' or 'off').
    `commit; begin` makes the transaction a real one whatever psycopg2 believes (writer.sql): where
    psycopg2 has begun one, the commit ends that empty transaction; where a `COMMIT` sent as SQL has
    left psycopg2 believing it is in one, the server runs each statement on its own until this `begin`
    (the commit then warns that no transaction is in progress). What came before the writer is
    committed, as dbt's run_hooks commits before a hook outside the transaction.
    client_connection_check_interval (PostgreSQL 14 and later, where the platform has it): a server
    session whose client was killed notices it within 5 seconds while a statement runs, and ends,
    rolling back and releasing the model's lock; without it the statement runs on (until
    statement_timeout) and holds the lock. A value set for the server or the role is kept. -#}
{% macro _pg_try_lock_sql(relation, lock_timeout, statement_timeout) %}
  {%- set sql -%}
commit; begin; do $auto_cdc$ begin
  perform {{ auto_cdc._pg_settings(lock_timeout, statement_timeout) | join(', ') }};
  if current_setting('client_connection_check_interval', true) = '0' then
    begin perform set_config('client_connection_check_interval', '5s', true);
    exception when invalid_parameter_value then null; end;
  end if;
  perform set_config('auto_cdc.locked', case when pg_try_advisory_xact_lock({{ auto_cdc._pg_lock_key(relation) }}) then 'on' else 'off' end, true);
end $auto_cdc$
  {%- endset -%}
  {{ return(sql) }}
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

{#- Postgres: every privilege on the model's event log and run log that the current role granted to
    another, revoked (what dbt's apply_grants revokes when a grants config no longer lists it). Nothing
    when there is none, or no log yet. -#}
{% macro _pg_revoke_log_grants_sql(relation) %}
  {%- set n = auto_cdc._names() -%}
  {%- set oids = [] -%}
  {%- for suffix in [n.log_suffix, n.runs_suffix] -%}
    {%- do oids.append("to_regclass('" ~ (auto_cdc._bookkeeping_relation(relation, suffix, config).render() | replace("'", "''")) ~ "')") -%}
  {%- endfor -%}
  {%- set sql -%}
do $auto_cdc$ declare r record; begin
  for r in select distinct c.oid::regclass::text as rel, a.grantee from pg_class c cross join lateral aclexplode(c.relacl) a
           where c.oid in ({{ oids | join(', ') }}) and a.grantor = current_role::regrole and a.grantee <> a.grantor loop
    execute format('revoke all on %s from %s', r.rel, case when r.grantee = 0 then 'public' else quote_ident(pg_get_userbyid(r.grantee)) end);
  end loop;
end $auto_cdc$
  {%- endset -%}
  {{ return(sql) }}
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


{#- The end of a writer's hold on the model's lock, after its commit. `held`: what take_model_lock
    returned. DuckDB and Postgres: nothing (the commit released it). -#}
{% macro release_model_lock(held) %}
  {{ return(adapter.dispatch('release_model_lock', 'auto_cdc')(held)) }}
{% endmacro %}

{% macro default__release_model_lock(held) %}
{% endmacro %}

{#- Spark: the writer's lock table is dropped if it still names the writer (a run that outlived its lock
    may find another's), with the lapsed lock it renamed. -#}
{% macro spark__release_model_lock(held) %}
  {%- if held is not none -%}
    {% do auto_cdc._spark_drop_own_lock(held) %}
  {%- endif -%}
{% endmacro %}

{#- Spark: `lock` dropped if it exists and this invocation holds it, with the lapsed lock its properties
    name (the one this invocation renamed when it took the lock over). -#}
{% macro _spark_drop_own_lock(lock) %}
  {%- if auto_cdc._query('show tables in ' ~ lock.schema ~ " like '" ~ (lock.identifier | lower) ~ "'").rows | length == 0 -%}{{ return(none) }}{%- endif -%}
  {%- set found = auto_cdc._spark_lock_holder(lock) -%}
  {%- if found.holder != invocation_id -%}{{ return(none) }}{%- endif -%}
  {% do auto_cdc._run_sql('drop table if exists ' ~ lock) %}
  {%- if found.lapsed -%}
    {% do auto_cdc._run_sql('drop table if exists ' ~ lock.incorporate(path={'identifier': found.lapsed})) %}
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

{#- Spark: the locks this invocation's auto_cdc models that failed still hold (an error after the lock
    was taken leaves it). -#}
{% macro spark__release_failed_models_locks(results) %}
  {%- for result in results or [] if result.status == 'error' and result.node.resource_type == 'model'
        and result.node.config.materialized in ['auto_cdc', 'auto_cdc_snapshot'] -%}
    {%- set node = result.node -%}
    {% do auto_cdc._spark_drop_own_lock(auto_cdc._bookkeeping_relation(api.Relation.create(database=node.database, schema=node.schema,
          identifier=node.alias or node.name), auto_cdc._names().lock_suffix, node.config)) %}
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
  Concurrent runs of one model (docs/operations.md "Locking and timeouts"): the run holds its model's lock from its first
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
    log (in its bookkeeping_schema, if it sets one) and its change feed. -#}
{% macro _model_tables(relation) %}
  {%- set n = auto_cdc._names() -%}
  {{ return([relation, auto_cdc._bookkeeping_relation(relation, n.log_suffix, config),
             auto_cdc._bookkeeping_relation(relation, n.runs_suffix, config), auto_cdc._side_relation(relation, n.changes_suffix)]) }}
{% endmacro %}

{#- Spark: the model's lock (take_model_lock), then a check that dbt's cache still knows the model's
    tables as they are: a run that ended while this invocation was starting may have created or
    dropped some, and dbt-spark's cache entries carry the table's format, which a listing does not
    give, so the run fails and asks to be run again instead. Returns the lock (take_model_lock's). -#}
{% macro spark__lock_model(relation) %}
  {%- set held = auto_cdc.take_model_lock(relation, model.name, config.get('lock_timeout', '1h'), none) -%}
  {%- set relations = auto_cdc._model_tables(relation) -%}
  {#- the same listing finds an erase a killed writer left part done (repair_killed_operation) -#}
  {%- set erased = auto_cdc._side_relation(relation, auto_cdc._names().erased_suffix) -%}
  {#- one listing per schema: the logs may live in the model's bookkeeping_schema (created by then:
      create_bookkeeping_schemas) -#}
  {%- set names = {} -%}
  {%- for rel in [erased] + relations -%}
    {%- do names.setdefault(rel.schema, []).append(rel.identifier | lower) -%}
  {%- endfor -%}
  {%- set found = [] -%}
  {%- for schema, listed in names.items() if schema == relation.schema or adapter.check_schema_exists(relation.database, schema) -%}
    {%- for row in auto_cdc._query('show tables in ' ~ schema ~ " like '" ~ (listed | join('|')) ~ "'").rows if not row[2] -%}
      {%- do found.append((schema ~ '.' ~ row[1]) | lower) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if (erased.schema ~ '.' ~ erased.identifier) | lower in found -%}{% do auto_cdc._spark_finish_erase(relation, erased) %}{%- endif -%}
  {%- set changed = [] -%}
  {%- for rel in relations -%}
    {%- set listed = (rel.schema ~ '.' ~ rel.identifier) | lower in found -%}
    {%- if (load_cached_relation(rel) is not none) != listed -%}
      {%- do changed.append(rel ~ (' (created)' if listed else ' (dropped)')) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if changed -%}
    {% do auto_cdc.release_model_lock(held) %}
    {%- do exceptions.raise_database_error("auto_cdc model '" ~ model.name ~ "': its tables changed after this dbt invocation "
          ~ "started (another run of the model ended meanwhile): " ~ (changed | join(', ')) ~ ". Nothing was written; run it again") -%}
  {%- endif -%}
  {{ return(held) }}
{% endmacro %}

{#- Postgres: the model's lock (locking.sql), then dbt's cache brought up to date. -#}
{% macro postgres__lock_model(relation) %}
  {%- set tables = auto_cdc._model_tables(relation) -%}
  {%- set quoted = [] -%}
  {%- for rel in tables -%}
    {%- do quoted.append("('" ~ (rel.schema | replace("'", "''")) ~ "', '" ~ (rel.identifier | replace("'", "''")) ~ "')") -%}
  {%- endfor -%}
  {#- each table in its own schema (the logs may live in the model's bookkeeping_schema) -#}
  {%- set lookup = "select s.nspname || '.' || c.relname as relname, c.relkind from pg_class c join pg_namespace s on s.oid = c.relnamespace "
        ~ "where (s.nspname, c.relname) in (" ~ (quoted | join(', ')) ~ ")" -%}
  {#- one round trip when the lock is free: the settings and the lock (take_model_lock), the target's
      lock (a hand edit of the target waits for this run's commit: locking.sql), and the lookup -#}
  {%- set try_lock = auto_cdc._pg_try_lock_sql(relation, config.get('lock_timeout', '1h'), config.get('statement_timeout')) -%}
  {#- with no log_grants, the logs' grants revoked in the same round trip (grants.sql) -#}
  {%- set revoke = '' if config.get('log_grants') else ';\n' ~ auto_cdc._pg_revoke_log_grants_sql(relation) -%}
  {%- set table = auto_cdc._run_then_query(try_lock ~ ';\n' ~ auto_cdc._lock_target_sql(relation, model.name, "current_setting('auto_cdc.locked') = 'on'")
        ~ revoke, "select current_setting('auto_cdc.locked'), l.relname, l.relkind from (select 1 as one) o left join (" ~ lookup ~ ") l on true") -%}
  {%- set rows = [] -%}
  {%- if table.rows[0][0] == 'on' -%}
    {%- for row in table.rows if row[1] is not none -%}{%- do rows.append([row[1], row[2]]) -%}{%- endfor -%}
  {%- else -%}
    {%- for row in auto_cdc._run_then_query(auto_cdc._pg_wait_for_model_lock_sql(relation, model.name) ~ ';\n'
          ~ auto_cdc._lock_target_sql(relation, model.name) ~ revoke, lookup).rows -%}
      {%- do rows.append([row[0], row[1]]) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set found = {} -%}
  {%- for row in rows -%}{%- do found.update({row[0]: 'view' if row[1] in ['v', 'm'] else 'table'}) -%}{%- endfor -%}
  {%- for rel in tables -%}
    {%- set name = rel.schema ~ '.' ~ rel.identifier -%}
    {%- set cached = load_cached_relation(rel) -%}
    {%- if name in found and cached is none -%}
      {%- do adapter.cache_added(rel.incorporate(type=found[name])) -%}
    {%- elif name not in found and cached is not none -%}
      {%- do adapter.cache_dropped(cached) -%}
    {%- endif -%}
  {%- endfor -%}
{% endmacro %}
