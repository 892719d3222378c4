{#-
  What every writer of a model's state shares: a run (skeleton.sql), auto_cdc.erase_keys and
  auto_cdc.compact (macros/operations/). A writer
    1. takes the model's lock as the first statement of its own transaction (writer_lock; a run:
       lock_model, which also brings dbt's relation cache up to date), with the model's lock_timeout
       bounding every wait for a lock and its statement_timeout every statement, until the commit;
    2. sends every statement through _run_sql or _query, each followed by a fault point (_fault_point:
       a no-op outside the fault tests), so that a test can stop the writer after any statement;
    3. ends with writer_done (a last fault point, once its work is done) and writer_commit (the commit,
       then the lock's release where the commit does not release it).
  On Postgres the lock's statement also starts the transaction (_pg_try_lock_sql, dialect/locking.sql):
  dbt's transaction there is psycopg2's implicit one, which a `COMMIT` sent as SQL before the writer
  (dbt's run-operation sends one before the macro runs; run_hooks before a pre-hook outside the
  transaction) leaves psycopg2 believing open, so the writer's statements would each commit on their own.
  Spark has no transactions: the lock is a lease that lapses (locking.sql), and the next writer repairs
  what a killed one left (a run: killed_run_events_sql; an erase: repair_killed_operation).
-#}

{#- The model's lock for an operation (a run takes it with lock_model): `relation` is the target,
    lock_timeout and statement_timeout the model's configs. Returns what writer_commit releases. -#}
{% macro writer_lock(relation, model_name, lock_timeout='1h', statement_timeout=none) %}
  {%- set held = auto_cdc.take_model_lock(relation, model_name, lock_timeout, statement_timeout) -%}
  {% do auto_cdc.repair_killed_operation(relation) %}
  {{ return(held) }}
{% endmacro %}


{#- Every statement of a writer goes through here, inside its transaction: dbt's run_query does not
    begin one (auto_begin=False), and on Postgres dbt's commit needs the transaction it began (R8). -#}
{% macro _run_sql(sql) %}
  {% call statement('auto_cdc', auto_begin=True) %}{{ sql }}{% endcall %}
  {% do auto_cdc._fault_point() %}
{% endmacro %}

{#- A query's rows (an agate table), inside the writer's transaction. -#}
{% macro _query(sql) %}
  {% call statement('auto_cdc_query', fetch_result=True, auto_begin=True) %}{{ sql }}{% endcall %}
  {%- set table = load_result('auto_cdc_query').table -%}
  {% do auto_cdc._fault_point() %}
  {% do return(table) %}
{% endmacro %}

{#- A single value from a one-row, one-column query. -#}
{% macro _scalar(sql) %}
  {% set result = auto_cdc._query(sql) %}
  {% do return(result.columns[0].values()[0] if result and result.rows | length > 0 else none) %}
{% endmacro %}


{#- A hook after every statement of a writer, and once more (`last`, writer_done) when its work is
    done, for fault-injection tests: the package's own is a no-op. A test project overrides it through
    dbt's dispatch config (`dispatch: [{macro_namespace: auto_cdc, search_order: [<test project>,
    auto_cdc]}]`), as auto_cdc_testkit/faults.py does. In a run-operation dbt's `model` is the
    operation's macro, which the tests' hook counts the statements on, as on a run's model. -#}
{% macro _fault_point(last=false) %}
  {%- do return(adapter.dispatch('_fault_point', 'auto_cdc')(last)) -%}
{% endmacro %}

{% macro default___fault_point(last=false) %}{% endmacro %}

{#- The writer's work is done: the last fault point before its commit. -#}
{% macro writer_done() %}
  {% do auto_cdc._fault_point(last=true) %}
{% endmacro %}


{#- The writer's commit, then the end of its hold on the model's lock (`held`: what the lock returned;
    DuckDB and Postgres: the commit released it). -#}
{% macro writer_commit(held) %}
  {% do adapter.commit() %}
  {% do auto_cdc.release_model_lock(held) %}
{% endmacro %}
