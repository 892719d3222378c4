{#-
  What an engine does beyond the SQL every engine shares, as traits the run reads once to know which of an
  engine's own hooks to call: a hook an engine has no use for is never called (nor compiled). The traits:
    in_order       the in-order rows (plan/classify.sql): the engine can update or delete rows in place
    hand_edits     its targets take UPDATE and DELETE by hand, so a run looks for hand edits
    change_table   the change data feed is a table beside the target (else the target's own)
    insert_returns an INSERT returns the rows it inserted (INSERT ... RETURNING): the run log's insert
                   counts the run's changes
    merge_counts   the target's MERGE returns how many rows it updated, deleted and inserted
    last_event_by  how the classification finds each touched key's last logged event: 'join' (each key's
                   greatest sequence by a hash aggregate, joined back to its event), 'aggregate' (one hash
                   aggregate with arg_max_sql), 'window' (a window ranks each key's events)
    model_lock     a run takes the model's lock (take_model_lock), released after its commit
    drops_temp     the run's temp tables outlive it and are dropped by the run (drop_temp_relations)
    prior_runs     the run reads what it needs of the run log once, before it stages (prior_runs)
    touched_log    the run reads the log for the batch's keys from a copy (touched_log)
    killed_runs    no transaction holds a run's statements together: a killed run's events are found
                   (killed_run_events_sql)
    table_history  the target's commit history tells whether anyone but the model's runs changed it
                   (unedited_target_version)
    join_hints     joins take hints (broadcast_hint, one_partition_reads, target_key_filter_sql)
    key_order      the batch's keys are looked up in key order (in_key_order)
    buckets        the target and its log are partitioned by a bucket of their keys (bucket_count)
    config_cache   the run log keeps each run's resolved config, which the next run reuses when nothing it
                   was resolved from changed (plan/config.sql, _config)
-#}
{% macro _engine() %}
  {{ return(adapter.dispatch('engine', 'auto_cdc')()) }}
{% endmacro %}

{% macro default__engine() %}
  {{ return({'in_order': true, 'hand_edits': true, 'change_table': true, 'insert_returns': true, 'merge_counts': false,
             'last_event_by': 'join', 'model_lock': false, 'drops_temp': false, 'prior_runs': false, 'touched_log': false,
             'killed_runs': false, 'table_history': false, 'join_hints': false, 'key_order': false, 'buckets': false,
             'config_cache': true}) }}
{% endmacro %}

{#- DuckDB: arg_max takes each key's last event in the hash aggregate where a join or a window would sort
    its events (SCD2's classification of 100,000 keys: docs/benchmarks.md); one process opens a database
    file at a time and one dbt invocation never runs a model twice, so two runs of a model cannot overlap;
    temp tables end with the node's connection. -#}
{% macro duckdb__engine() %}
  {{ return(dict(auto_cdc.default__engine(), last_event_by='aggregate')) }}
{% endmacro %}

{#- Postgres: the model's lock is an advisory lock; the log is read for the batch's keys from a copy made
    with one index probe per key, and the batch's keys are looked up in key order. -#}
{% macro postgres__engine() %}
  {{ return(dict(auto_cdc.default__engine(), model_lock=true, touched_log=true, key_order=true)) }}
{% endmacro %}

{#- Spark: no transaction spans a run; parquet tables take no UPDATE, DELETE or MERGE (every affected key
    is replayed and its buckets rewritten), Delta tables take the other engines' MERGE and in-order rows,
    and keep a commit history and a change data feed of their own. -#}
{% macro spark__engine() %}
  {%- set merge = auto_cdc._spark_has_merge() -%}
  {{ return({'in_order': merge, 'hand_edits': merge, 'change_table': not merge, 'insert_returns': false,
             'merge_counts': auto_cdc._spark_format() == 'delta', 'last_event_by': 'window', 'model_lock': true,
             'drops_temp': true, 'prior_runs': true, 'touched_log': true, 'killed_runs': true,
             'table_history': auto_cdc._spark_format() == 'delta', 'join_hints': true, 'key_order': false, 'buckets': not merge,
             'config_cache': false}) }}
{% endmacro %}
