{#-
  The model's lock (docs/operations.md "Locking and timeouts"). Every writer of a model's state takes it: a run
  (lock_model, dialect/locking.sql), auto_cdc.erase_keys and auto_cdc.compact. It is held until the writer
  commits or rolls back, so two writers of one model never overlap. On Postgres a run also locks the target
  against concurrent INSERT, UPDATE and DELETE (readers keep reading): a hand edit committed before
  the run takes the lock is seen by the run, one made after it waits for the run's commit, so a
  run never writes an older value over a committed edit.

  lock_timeout (default '1h') bounds each wait for a lock, statement_timeout (default: the
  server's) each statement; a wait that times out fails with the sessions that hold the lock.
-#}
{#- Postgres: the target locked against concurrent writes (SHARE ROW EXCLUSIVE: it conflicts with the
    ROW EXCLUSIVE lock every INSERT, UPDATE and DELETE takes, and not with reads), once it exists.
    The statement that takes it (and does nothing when there is no target table yet, or when the
    condition `only_if` is false). -#}
{% macro _lock_target_sql(relation, model_name, only_if='true') %}
  {%- set literal = "'" ~ (relation.render() | replace("'", "''")) ~ "'" -%}
  {{ return(auto_cdc._wait_for_lock_sql(model_name, relation ~ " against writes",
        "if " ~ only_if ~ " and (select relkind from pg_class where oid = to_regclass(" ~ literal ~ ")) in ('r', 'p') then execute 'lock table "
          ~ (relation | string | replace("'", "''")) ~ " in share row exclusive mode'; end if",
        "l.relation = to_regclass(" ~ literal ~ ")")) }}
{% endmacro %}


{#- Postgres: run `statement` (which waits for a lock); when lock_timeout ends the wait, fail naming
    the sessions that hold a lock matching `holder_condition` on pg_locks `l`. -#}
{% macro _wait_for_lock_sql(model_name, what, statement, holder_condition) -%}
  {%- set head = ("auto_cdc model '" ~ model_name ~ "': timed out (lock_timeout ") | replace("'", "''") -%}
  {%- set tail = (") waiting for " ~ what ~ ", held by ") | replace("'", "''") -%}
do $auto_cdc$
declare holders text;
begin
  {{ statement }};
exception when lock_not_available then
  select string_agg(format('pid %s (application_name %L, user %s, state %s, transaction started %s, query started %s: %s)',
                           a.pid, a.application_name, a.usename, a.state, a.xact_start, a.query_start, left(a.query, 200)), '; ')
    into holders
  from pg_locks l join pg_stat_activity a on a.pid = l.pid
  where l.granted and l.pid <> pg_backend_pid() and {{ holder_condition }};
  raise exception using errcode = 'lock_not_available',
    message = '{{ head }}' || current_setting('lock_timeout') || '{{ tail }}' || coalesce(holders, 'a session that has since ended')
      || '. End that session (select pg_terminate_backend(pid)) if it is orphaned, or raise lock_timeout.';
end
$auto_cdc$
{%- endmacro %}
