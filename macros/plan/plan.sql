{#-
  The run's plan, decided once from the staged batch and what the run reads beside it (its facts), and
  never changed after. Its `strategy` names what the run does (strategies/):
    first_run    a first run or a full refresh: the bookkeeping is created and every key computed
    nothing_new  every event of the batch was applied before: the run only records itself
    in_order     every key the new events touch takes them after everything applied to it, and its rows
                 are the ones its events left: each key's rows follow from its new events and its current
                 row (the common run)
    replay       some keys are replayed from their whole history (a late event, a truncate, a hand edit,
                 a killed run's keys, a shape without the in-order rows); the others, when the keys
                 were sorted (classified), take the in-order rows
  The other keys:
    incremental        the target and its logs exist
    run_id             this run's id in the run log
    events_read, new_events, late_events   what the batch held, what it adds, how many land in the history
    truncates, killed  the new events hold a truncate; a killed run left events under this run's id (Spark)
    has_edits          earlier runs folded hand edits into the log (masks to honour)
    cursor             the cursor the run's row in the run log records, as a literal (none: read there)
    since, unedited, unedited_version   the target's version the last run left, and whether no one but
                       the model's runs changed it since (unedited_target_version; Delta)
    logged, batch_rows the log as the run reads it for the batch's keys (touched_log), and the batch's size
                       where the engine counted it
    sorted, sorted_counts  the keys were sorted in the facts' round trip (_run_facts), and their counts
    classified         the affected keys are sorted into the two kinds (rel.temp.affected's fast column)
    fast_keys, replayed_keys   how many keys of each kind (replayed_keys may be a count's SQL)
    single_events      in order, every key has one new event: its rows need no walk of its events
    replay_keys        the replayed keys as a subquery, when some keys take the in-order rows
    history_ready      the replayed keys' events are read from the log once, into rel.temp.history
    held_first         SCD1: the affected keys' rows were read (rel.temp.held) before the keys were sorted
    held_from_log      every key in order on an unedited target: the rows it holds follow from the log
    target_filter      a condition on the target's rows for the MERGE (target_key_filter_sql), or none
    dropped            a first run: the relations it drops (a full refresh)
    rebuild            a full refresh of a change feed: the versions it goes on from, a copy of the rows
                       it replaces and whether the change feed is kept (rebuilt_change_feed, steps/changes.sql)
  The plan step also brings the target's and the log's columns up to date (_apply_schema_changes), after
  the checks and before anything reads the target.
-#}
{% macro _plan(args, incremental, existing) %}
  {%- if not incremental -%}{{ return(auto_cdc._first_run_plan(args, existing)) }}{%- endif -%}
  {%- set engine = auto_cdc._engine() -%}
  {%- set sorts = engine.in_order and auto_cdc._in_order_applies(args) -%}
  {%- set facts = auto_cdc._run_facts(args, sorts and not (engine.killed_runs or engine.table_history or args.cols.altered)) -%}
  {%- if args.cols.altered -%}{% do auto_cdc._apply_schema_changes(dict(args, plan=facts)) %}{%- endif -%}
  {%- if facts.new_events == 0 and not facts.killed -%}
    {{ return(dict(facts, strategy='nothing_new', classified=false)) }}
  {%- endif -%}
  {%- set args = dict(args, plan=facts) -%}
  {%- if sorts and not facts.truncates -%}{{ return(auto_cdc._classified_plan(args)) }}{%- endif -%}
  {%- set temp = args.rel.temp -%}
  {% do auto_cdc._run_statements(([auto_cdc.drop_temp_table_sql(temp.held), auto_cdc.drop_temp_table_sql(temp.affected)] if facts.sorted else [])
        + [auto_cdc.create_temp_table_sql(temp.affected, auto_cdc.affected_keys_sql(args))]) %}
  {{ return(dict(facts, strategy='replay', classified=false, held_first=false, fast_keys=0, replay_keys=none,
                 replayed_keys='(select count(*) from ' ~ temp.affected ~ ')', history_ready=args.cfg.scd != 'bitemporal')) }}
{% endmacro %}


{#- A first run (or a full refresh) checks the feed before anything is dropped (engines without
    transactions), and takes every distinct event of the batch as new. -#}
{% macro _first_run_plan(args, existing) %}
  {%- set rel, n = args.rel, auto_cdc._names() -%}
  {%- set facts = {'incremental': false, 'run_id': 1, 'logged': rel.log, 'batch_rows': none, 'killed': false,
                   'truncates': false, 'has_edits': false, 'cursor': none, 'since': none, 'unedited': false,
                   'unedited_version': none, 'late_events': 0, 'classified': false, 'held_first': false} -%}
  {%- set args = dict(args, plan=facts) -%}
  {%- if args.cols.check_feed -%}{% do auto_cdc._check_feed(args, none) %}{%- endif -%}
  {%- set row = auto_cdc._run_then_query([auto_cdc.create_temp_table_sql(rel.temp.new, auto_cdc._first_events_sql(args))],
        'select (select count(*) from ' ~ rel.temp.batch ~ '), count(*), count(case when ' ~ auto_cdc._q(n.op) ~ " = '"
        ~ n.truncate ~ "' then 1 end) from " ~ rel.temp.new).rows[0] -%}
  {%- set rebuild = auto_cdc.rebuilt_change_feed(args, existing) if config.get('change_data_feed', false) else none -%}
  {{ return(dict(facts, strategy='first_run', events_read=row[0] | int, new_events=row[1] | int, truncates=(row[2] | int) > 0,
                 fast_keys=0, replayed_keys='(select count(*) from ' ~ rel.temp.affected ~ ')', replay_keys=none,
                 history_ready=false, held_from_log=false, target_filter=none, rebuild=rebuild,
                 dropped=existing[:3] + [none] if (rebuild or {}).get('keep') else existing)) }}
{% endmacro %}


{#- The batch's new events (rel.temp.new) and the run's facts, with the feed's checks (R7), in one
    round trip: the log as the run reads it for the batch's keys first (touched_log), then the new events,
    then one query of the facts (a killed run's events, then an emptied log's name, last). Spark then asks the table's history whether the target is unedited.
    `sort`: the affected keys are sorted in the same round trip (_sort_statements), where nothing the sort
    depends on is known only from the facts (a killed run's keys, an unedited target, a column this run
    adds); with a truncate among the new events the sort is dropped (plan). -#}
{% macro _run_facts(args, sort) %}
  {%- set rel, n, engine = args.rel, auto_cdc._names(), auto_cdc._engine() -%}
  {%- set logged = auto_cdc.touched_log(dict(args, plan={'incremental': true})) if engine.touched_log else {'relation': rel.log, 'statements': []} -%}
  {%- set known = logged.get('facts') or {} -%}
  {%- set facts = {'incremental': true, 'logged': logged.relation, 'batch_rows': known.get('batch_rows'), 'killed': false,
                   'truncates': false, 'classified': false, 'held_first': sort and args.cfg.scd == 1, 'unedited': false, 'sorted': sort} -%}
  {%- set args = dict(args, plan=facts) -%}
  {#- a snapshot's events are new and in order by construction: their versions follow every applied one -#}
  {%- set fresh = args.cfg.shape == 'snapshot' -%}
  {%- set statements = logged.statements + [auto_cdc.create_temp_table_sql(rel.temp.new, auto_cdc.new_events_sql(args) if not fresh
                         else 'select ' ~ auto_cdc._cols(args.cols.stored) ~ ', ' ~ auto_cdc._q(n.op) ~ ' from ' ~ rel.temp.batch)]
                       + (auto_cdc._sort_statements(args) if sort else []) -%}
  {%- set exprs = [known.get('next_run', '(select coalesce(max(run_id), 0) + 1 from ' ~ rel.runs ~ ')'),
                   known.get('edited_keys', '(select coalesce(sum(edited_keys), 0) from ' ~ rel.runs ~ ')'),
                   '0' if fresh else '(' ~ auto_cdc.late_events_sql(args) ~ ')',
                   known.get('batch_rows', '(select count(*) from ' ~ rel.temp.batch ~ ')'),
                   '(select count(*) from ' ~ rel.temp.new ~ ')',
                   '(select count(*) from ' ~ rel.temp.new ~ ' where ' ~ auto_cdc._q(n.op) ~ " = '" ~ n.truncate ~ "')"]
                 + (auto_cdc._sorted_counts_sql(args) if sort else []) -%}
  {%- set killed_events = auto_cdc.killed_run_events_sql(args, known.get('next_run')) if engine.killed_runs else none -%}
  {%- set emptied = auto_cdc.emptied_bookkeeping_sql(args) -%}
  {%- set exprs = exprs + ([killed_events] if killed_events else []) + ([emptied] if emptied else []) -%}
  {%- set statements = auto_cdc.one_partition_reads(args, statements) -%}
  {%- if args.cols.check_feed -%}
    {%- set row = auto_cdc._check_feed(args, facts.logged, exprs, statements) -%}
  {%- else -%}
    {%- set row = auto_cdc._run_then_query(statements, auto_cdc.one_partition_reads(args, 'select ' ~ (exprs | join(', ')))).rows[0] -%}
  {%- endif -%}
  {%- if emptied and row[-1] is not none -%}{% do auto_cdc.check_emptied_bookkeeping(row[-1]) %}{%- endif -%}
  {%- set killed = killed_events is not none and (row[6] | int) > 0 -%}
  {%- set since = (args.cols.get('prior') or {}).get('target_version') -%}
  {%- set facts = dict(facts, run_id=row[0] | int, has_edits=(row[1] | int) > 0, late_events=row[2] | int, events_read=row[3] | int,
                       new_events=row[4] | int, truncates=(row[5] | int) > 0, killed=killed, cursor=known.get('cursor'), since=since,
                       sorted_counts=row[6:8] | list if sort else none) -%}
  {%- set unedited_version = auto_cdc.unedited_target_version(dict(args, plan=facts), since, 0) if engine.table_history and since is not none and not killed else none -%}
  {{ return(dict(facts, unedited=unedited_version is not none, unedited_version=unedited_version)) }}
{% endmacro %}


{#- The statements that sort the affected keys (plan/classify.sql): SCD1 reads the keys' rows first
    (held_first), and the sort reads them there; and the counts of the in-order keys and of all. -#}
{% macro _sort_statements(args) %}
  {%- set rel = args.rel -%}
  {{ return(([auto_cdc.create_temp_table_sql(rel.temp.held, auto_cdc.held_rows_sql(args))] if args.plan.held_first else [])
            + [auto_cdc.create_temp_table_sql(rel.temp.affected, auto_cdc.classified_keys_sql(args))]) }}
{% endmacro %}

{% macro _sorted_counts_sql(args) %}
  {%- set affected = args.rel.temp.affected -%}
  {{ return(['(select count(*) from ' ~ affected ~ ' where ' ~ auto_cdc._q(auto_cdc._names().fast) ~ ')', '(select count(*) from ' ~ affected ~ ')']) }}
{% endmacro %}


{#- The affected keys sorted into the two kinds (plan/classify.sql), with a count of each (sorted in the
    facts' round trip where it could be): every key in order is the in_order strategy, else the replay of
    the others. -#}
{% macro _classified_plan(args) %}
  {%- set rel, facts, n = args.rel, args.plan, auto_cdc._names() -%}
  {%- if facts.sorted -%}
    {%- set row = facts.sorted_counts + [none] -%}
    {%- set key_filter = none -%}
  {%- else -%}
    {%- set args = dict(args, plan=dict(facts, held_first=args.cfg.scd == 1 and not facts.killed and not facts.unedited)) -%}
    {%- set key_filter = auto_cdc.target_key_filter_sql(args) if auto_cdc._engine().join_hints else none -%}
    {%- set row = auto_cdc._run_then_query(auto_cdc.one_partition_reads(args, auto_cdc._sort_statements(args)),
          auto_cdc.one_partition_reads(args, 'select count(case when ' ~ auto_cdc._q(n.fast) ~ ' then 1 end), count(*)'
          ~ (', ' ~ key_filter if key_filter else '') ~ ' from ' ~ rel.temp.affected)).rows[0] -%}
  {%- endif -%}
  {%- set fast_keys, replayed = row[0] | int, (row[1] | int) - (row[0] | int) -%}
  {%- set plan = dict(args.plan, classified=true, fast_keys=fast_keys, replayed_keys=replayed,
                      target_filter=auto_cdc.target_key_filter(args, row[2]) if key_filter and row[2] else none) -%}
  {%- if replayed == 0 -%}
    {%- set plan = dict(plan, strategy='in_order', replay_keys=none, history_ready=false, single_events=fast_keys == facts.new_events) -%}
    {{ return(dict(plan, held_from_log=auto_cdc.held_from_log_applies(dict(args, plan=plan)))) }}
  {%- endif -%}
  {{ return(dict(plan, strategy='replay', held_from_log=false, history_ready=args.cfg.scd != 'bitemporal',
                 replay_keys='(select ' ~ auto_cdc._cols(args.cfg.key_columns) ~ ' from ' ~ rel.temp.affected
                             ~ ' where not ' ~ auto_cdc._q(n.fast) ~ ')')) }}
{% endmacro %}


{#- A first run's new events: the batch's distinct events (bitemporal: an event learned at several system
    times counts from its earliest). -#}
{% macro _first_events_sql(args) %}
  {%- set cfg, n = args.cfg, auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- if cfg.scd != 'bitemporal' -%}
    {{ return('select distinct ' ~ auto_cdc._cols(args.cols.stored) ~ ', ' ~ op ~ ' from ' ~ args.rel.temp.batch) }}
  {%- endif -%}
  {%- set rest = args.cols.stored | reject('equalto', cfg.system_seq) | list -%}
  {{ return('select ' ~ auto_cdc._cols(args.cols.stored) ~ ', ' ~ op ~ ' from (select ' ~ auto_cdc._cols(rest) ~ ', ' ~ op ~ ', min('
            ~ auto_cdc._q(cfg.system_seq) ~ ') as ' ~ auto_cdc._q(cfg.system_seq) ~ ' from ' ~ args.rel.temp.batch
            ~ ' group by ' ~ auto_cdc._cols(rest) ~ ', ' ~ op ~ ') b') }}
{% endmacro %}
