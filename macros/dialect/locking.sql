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

{#- Postgres: a transaction-level advisory lock on the target's name, released by the commit or
    rollback, or when the session ends (a killed run: its server session ends when its connection
    is closed, or when statement_timeout cancels what it was running). -#}
{% macro postgres__take_model_lock(relation, model_name, lock_timeout, statement_timeout) %}
  {#- the settings, then the lock if it is free, in one statement. JIT off: the apply's statements are
      joins over a batch whose temp tables the planner misjudges, so it compiled them for longer than
      they ran (650 ms of a 760 ms statement on a 10,000-event batch) -#}
  {%- set settings = [] -%}
  {%- for name, value in [('lock_timeout', lock_timeout), ('statement_timeout', statement_timeout), ('jit', 'off')] if value is not none -%}
    {%- do settings.append("set_config('" ~ name ~ "', '" ~ (value | string | replace("'", "''")) ~ "', true)") -%}
  {%- endfor -%}
  {%- set key = "hashtext('auto_cdc'), hashtext('" ~ (relation.render() | replace("'", "''")) ~ "')" -%}
  {%- set try_lock = 'select pg_try_advisory_xact_lock(' ~ key ~ ')' ~ (
        (' from (select concat(' ~ (settings | join(', ')) ~ ') as settings) s where s.settings is not null') if settings else '') -%}
  {%- if not auto_cdc._scalar(try_lock) -%}
    {%- do log("auto_cdc model '" ~ model_name ~ "': another run of this model is applying to " ~ relation
          ~ "; waiting for it to finish", info=true) -%}
    {% do auto_cdc._run_sql(auto_cdc._wait_for_lock_sql(model_name, "the model's lock", 'perform pg_advisory_xact_lock(' ~ key ~ ')',
          "l.locktype = 'advisory' and l.classid = hashtext('auto_cdc')::oid and l.objid = hashtext('"
          ~ (relation.render() | replace("'", "''")) ~ "')::oid and l.objsubid = 2")) %}
  {%- endif -%}
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

{#- Postgres: the model's lock (locking.sql), then dbt's cache brought up to date. -#}
{% macro postgres__lock_model(relation) %}
  {%- set n = auto_cdc._names() -%}
  {% do auto_cdc.take_model_lock(relation, model.name, config.get('lock_timeout', '1h'), config.get('statement_timeout')) %}
  {%- set names = [relation.identifier] -%}
  {%- for suffix in [n.log_suffix, n.runs_suffix, n.changes_suffix] -%}
    {%- do names.append(auto_cdc._side_relation(relation, suffix).identifier) -%}
  {%- endfor -%}
  {%- set quoted = [] -%}
  {%- for name in names -%}{%- do quoted.append("'" ~ (name | replace("'", "''")) ~ "'") -%}{%- endfor -%}
  {%- set found = {} -%}
  {#- a hand edit of the target waits for this run's commit (locking.sql); the lock and the lookup in
      one round trip -#}
  {%- for row in auto_cdc._run_then_query(auto_cdc._lock_target_sql(relation, model.name),
        "select c.relname, c.relkind from pg_class c join pg_namespace s on s.oid = c.relnamespace "
        ~ "where s.nspname = '" ~ (relation.schema | replace("'", "''")) ~ "' and c.relname in (" ~ (quoted | join(', ')) ~ ")").rows -%}
    {%- do found.update({row[0]: 'view' if row[1] in ['v', 'm'] else 'table'}) -%}
  {%- endfor -%}
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
