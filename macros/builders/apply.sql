{#-
  The apply step, shared by every target shape. The event log beside the target holds every event
  ever applied; a run
    1. keeps the batch's events the log does not hold yet (re-read events are duplicates: R2), and
       in the same round trip checks the feed (R7) and reads the run's facts; a run with no new
       event records itself and stops there;
    2. collects the keys they touch (a truncate touches every key, and they are all replayed) and
       sorts them into two paths (paths.sql): keys whose new events all follow everything applied to
       them, and whose rows are as the log left them, take the fast path; the others are replayed;
    3. reads the replayed keys' events from the log (history) and the affected keys' rows from the
       target (held: an SCD2 key on the fast path, its open version only), once each, into temp tables
       (SCD type 1 reads held before step 2, which reads the rows there);
    4. folds hand edits of the replayed keys' rows into the log (edits.sql) and appends the events;
    5. computes the affected keys' rows: the fast path's from the batch and the key's current row,
       the replayed keys' from their whole history (the shape's builder); and
    6. writes only the difference into the target with one MERGE: rows that are no longer right are
       deleted or updated, rows that are missing are inserted; untouched keys and unchanged rows are
       never rewritten.
  So a run's cost follows its new events and, for replayed keys only, their history (R1, R8).
-#}

{#- Steps 1-6 for a staged batch of events (rel.temp.batch). The first run or a full refresh checks
    the feed, then creates the event log and the run log (and drops what was there); an incremental
    run evolves their schema after its checks. The target is created from the first recomputation.
    The rows the run removes (stale) and adds (missing) are kept aside: they are the run's metrics
    and, with change_data_feed, its change feed. `args`: the resolved config, the relations and the
    plan ({cfg, rel, plan}); the batch's path (_batch_path) is added as each step decides it,
    `logged` (the log as the run reads it for the batch's keys: touched_log) and `batch_rows` (the
    staged batch's size where the engine counted it, else none) before its first read, and `run`
    (this run's id, whether its new events hold a truncate, and whether a killed run left events
    under its id) once the run's facts are read. -#}
{% macro _apply_batch(args, incremental, existing) %}
  {%- set n = auto_cdc._names() -%}
  {%- set rel, temp = args.rel, args.rel.temp -%}
  {% if not incremental %}
    {#- the first run checks the feed before it drops anything (engines without transactions) -#}
    {%- if args.plan.check_feed -%}{% do auto_cdc._check_feed(args, none) %}{%- endif -%}
    {#- a full refresh's change feed goes on from the versions it drops (changes.sql) -#}
    {%- set args = auto_cdc._with(args, {'rebuild': auto_cdc.rebuilt_change_feed(args, existing)}) -%}
    {% do auto_cdc._create_bookkeeping(args, existing) %}
  {% endif %}
  {%- set args = auto_cdc._with(args, {'path': auto_cdc._batch_path(args, incremental)}) -%}
  {#- the log as this run reads it for the batch's keys (an engine's table of their events, made first) -#}
  {%- set logged = auto_cdc.touched_log(args) if incremental else {'relation': rel.log, 'statements': []} -%}
  {#- the batch's size (touched_log's facts) bounds every table of the run's events and keys: join hints -#}
  {%- set args = auto_cdc._with(args, {'logged': logged.relation, 'batch_rows': (logged.get('facts') or {}).get('batch_rows')}) -%}
  {#- made in the round trip of the new events and the run's facts; from here on, the statements read the
      run's small tables as one partition where the engine gains by it (one_partition_reads) -#}
  {%- set create_new = auto_cdc.one_partition_reads(args,
        logged.statements + [auto_cdc.create_temp_table_sql(temp.new, auto_cdc.new_events_sql(args))]) -%}
  {#- the run's facts (with the feed's checks, R7, on incremental runs of a change feed): one query -#}
  {#- (those the engine read on the way, touched_log's `facts`, as literals) -#}
  {%- set known = logged.get('facts') or {} -%}
  {%- set facts = [known.get('next_run', '(select coalesce(max(run_id), 0) + 1 from ' ~ rel.runs ~ ')'),
                   known.get('edited_keys', '(select coalesce(sum(edited_keys), 0) from ' ~ rel.runs ~ ')'),
                   '(' ~ auto_cdc.late_events_sql(args) ~ ')',
                   known.get('batch_rows', '(select count(*) from ' ~ temp.batch ~ ')'),
                   '(select count(*) from ' ~ temp.new ~ ')',
                   '(select count(*) from ' ~ temp.new ~ ' where ' ~ auto_cdc._q(n.op) ~ " = '" ~ n.truncate ~ "')"] -%}
  {%- set killed_events = auto_cdc.killed_run_events_sql(args, known.get('next_run')) -%}
  {%- set facts = facts + ([killed_events] if killed_events else []) -%}
  {#- an emptied run log or event log, found in the same query (guards.sql) -#}
  {%- set emptied = auto_cdc.emptied_bookkeeping_sql(args) if incremental else none -%}
  {%- set facts = facts + ([emptied] if emptied else []) -%}
  {%- if incremental and args.plan.check_feed -%}
    {%- set row = auto_cdc._check_feed(args, args.logged, facts, create_new) -%}
  {%- else -%}
    {%- set row = auto_cdc._run_then_query(create_new, auto_cdc.one_partition_reads(args, 'select ' ~ (facts | join(', ')))).rows[0] -%}
  {%- endif -%}
  {% do auto_cdc.check_emptied_bookkeeping(row[facts | length - 1] if emptied else none) %}
  {%- set run_id = row[0] | int -%}
  {%- set has_edits = (row[1] | int) > 0 -%}
  {#- this run's id, how many new events it has, whether they hold a truncate (it touches every key: no
      fast path), whether a killed run left events under its id, and the cursor its row in the run log
      records, where the engine read it on the way (a literal; none: record_run_sql reads it) -#}
  {%- set killed = killed_events is not none and (row[6] | int) > 0 -%}
  {#- whether no one but the model's runs has changed the target's rows since the last run's version
      (unedited_target_version; not after a killed run, whose events the target may lack) -#}
  {%- set since = (args.plan.get('prior') or {}).get('target_version') -%}
  {%- set unedited_version = auto_cdc.unedited_target_version(args, since, 0) if incremental and since is not none and not killed else none -%}
  {%- set args = auto_cdc._with(args, {'run': {'id': run_id, 'new_events': row[4] | int, 'truncates': (row[5] | int) > 0,
                                                'killed': killed, 'cursor': known.get('cursor'), 'since': since,
                                                'unedited': unedited_version is not none, 'unedited_version': unedited_version}}) -%}
  {%- set metrics = {'events_read': row[3] | int, 'events_applied': row[4] | int, 'late_events': row[2] | int,
                     'num_upserted_rows': 0, 'num_deleted_rows': 0, 'edited_keys': 0,
                     'fast_keys': 0, 'replayed_keys': 0} -%}
  {% if incremental %}
    {% do auto_cdc._apply_schema_changes(args) %}
  {% endif %}
  {#- nothing new, and nothing a killed run left: nothing to recompute (the run is still recorded) -#}
  {%- if incremental and metrics.events_applied == 0 and not args.run.killed -%}
    {% do auto_cdc._record_run(args, run_id, metrics, false) %}
    {{ return(none) }}
  {%- endif -%}
  {#- the affected keys, and which of them take the fast path (macros/builders/paths.sql) -#}
  {%- set fast = incremental and not args.run.truncates and auto_cdc.fast_path_applies(args) -%}
  {#- SCD type 1: the affected keys are the new events' (no killed run adds any), each with all its rows
      in held whatever its path, so held is read first and the classification reads it, not the target
      (on an unedited target the classification reads no row of the target: held comes after it, and
      from the log where every key takes the fast path, held_from_log_applies) -#}
  {%- set held_first = fast and args.cfg.scd == 1 and not args.run.killed and not args.run.unedited -%}
  {%- set args = auto_cdc._with(args, {'path': auto_cdc._batch_path(args, incremental, held_first=held_first)}) -%}
  {%- set create_affected = auto_cdc.one_partition_reads(args,
        ([auto_cdc.create_temp_table_sql(temp.held, auto_cdc.held_rows_sql(args))] if held_first else [])
        + [auto_cdc.create_temp_table_sql(temp.affected, auto_cdc.classified_keys_sql(args) if fast else auto_cdc.affected_keys_sql(args))]) -%}
  {%- set replay, target_filter = true, none -%}
  {%- if fast -%}
    {#- with the counts, a condition on the target's keys where the engine's MERGE takes one (target_key_filter_sql) -#}
    {%- set key_filter = auto_cdc.target_key_filter_sql(args) -%}
    {%- set paths = auto_cdc._run_then_query(create_affected, auto_cdc.one_partition_reads(args, 'select count(case when ' ~ auto_cdc._q(n.fast) ~ ' then 1 end), count(*)'
          ~ (', ' ~ key_filter if key_filter else '') ~ ' from ' ~ temp.affected)).rows[0] -%}
    {%- do metrics.update({'fast_keys': paths[0] | int, 'replayed_keys': (paths[1] | int) - (paths[0] | int)}) -%}
    {%- set replay = metrics.replayed_keys > 0 -%}
    {%- set target_filter = auto_cdc.target_key_filter(args, paths[2]) if key_filter and paths[2] else none -%}
  {%- else -%}
    {% do auto_cdc._run_statements(create_affected) %}
    {%- do metrics.update({'replayed_keys': '(select count(*) from ' ~ temp.affected ~ ')'}) -%}
  {%- endif -%}
  {%- set args = auto_cdc._with(args, {'path': auto_cdc._batch_path(args, incremental, has_edits, fast, replay, held_first, target_filter)}) -%}
  {#- the replayed keys' events (the log is read once) and the affected keys' target rows -#}
  {%- if args.path.history_ready -%}
    {#- args.logged holds every event of the replayed keys unless a truncate or a killed run added keys
        beyond the batch's, or this run changed the log's columns after copying it -#}
    {%- set plan = args.plan -%}
    {%- set whole_log = args.run.truncates or args.run.killed or plan.add_columns or plan.drop_columns or plan.widen_columns -%}
    {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(temp.history,
          auto_cdc._logged_events_sql(args, none, none if whole_log else args.logged))) %}
  {%- endif -%}
  {%- if incremental and not held_first -%}
    {% do auto_cdc._run_sql(auto_cdc.one_partition_reads(args, auto_cdc.create_temp_table_sql(temp.held, auto_cdc.held_rows_sql(args)))) %}
  {%- endif -%}
  {#- hand edits of the replayed keys become events first (macros/builders/edits.sql); the fast path
      takes only keys whose rows are as the log left them -#}
  {%- set edited_keys = auto_cdc.fold_target_edits(args, run_id) if incremental and replay and not args.run.unedited else 0 -%}
  {%- if edited_keys > 0 or has_edits -%}
    {%- for relation in [rel.log] + ([temp.history] if args.path.history_ready else []) -%}
      {% do auto_cdc._run_sql(auto_cdc.drop_replaced_edits_sql(args, relation)) %}
    {%- endfor -%}
  {%- endif -%}
  {% do auto_cdc.log_new_events(args, run_id) %}
  {%- if args.path.history_ready -%}
    {% do auto_cdc._run_sql(auto_cdc.append_to_history_sql(args, run_id)) %}
  {%- endif -%}
  {#- the rows the affected keys should have, then the target's rows that differ from them (stale) and
      theirs that the target lacks (missing): one round trip -#}
  {%- set create_desired = auto_cdc.one_partition_reads(args, auto_cdc.create_temp_table_sql(temp.desired, auto_cdc.desired_rows_sql(args, with_fast=true))) -%}
  {% if not incremental %}
    {% do auto_cdc._run_sql(create_desired) %}
    {% do auto_cdc._run_sql(auto_cdc.create_target_sql(args)) %}
    {% do auto_cdc.create_key_indexes(args) %}
  {% endif %}
  {%- if args.path.no_replay and auto_cdc.fast_rows_replace_held(args) -%}
    {#- every key on the fast path, and none of its held rows among its new ones (paths.sql): the held
        rows are the stale ones and the desired rows the missing ones, with nothing to compare -#}
    {% do auto_cdc._run_sql(create_desired) %}
    {%- set temp = auto_cdc._with(temp, {'stale': temp.held, 'missing': temp.desired}) -%}
    {%- set args = auto_cdc._with(args, {'rel': auto_cdc._with(rel, {'temp': temp})}) -%}
  {%- else -%}
    {% do auto_cdc._run_statements(([create_desired] if incremental else [])
          + auto_cdc.one_partition_reads(args, [auto_cdc.create_temp_table_sql(temp.stale, auto_cdc.stale_rows_sql(args)),
                                                auto_cdc.create_temp_table_sql(temp.missing, auto_cdc.missing_rows_sql(args))])) %}
  {%- endif -%}
  {#- with every key on the fast path, the rows to write are at most the held row and a new one per key
      (SCD2: its open version), and one per new event (paths.sql) -#}
  {%- set counts = auto_cdc._change_counts(args, 2 * metrics.fast_keys + args.run.new_events if args.path.no_replay else none) -%}
  {%- set written = auto_cdc.write_changes(args, counts) -%}
  {%- if written is mapping -%}{%- set counts = written -%}{%- endif -%}
  {%- if not incremental -%}
    {% do auto_cdc.analyze_relations([rel.target, rel.log]) %}
  {%- endif -%}
  {%- do metrics.update({'edited_keys': edited_keys}) -%}
  {% do auto_cdc._record_run(args, run_id, metrics, true, counts) %}
{% endmacro %}


{#- The path of the batch through the apply: a new dict each time the apply decides more of it, never
    updated in place. `replay` is none until the affected keys are sorted into the two paths
    (paths.sql); until then only `incremental` (and `held_first`) is known.
      incremental    the target and its logs exist (not a first run, not a full refresh);
      held_first     the affected keys' rows (rel.temp.held, without the path column) are read before
                     the keys are sorted, and the sort reads them there (SCD type 1);
      has_edits      the log holds hand edits that earlier runs folded in (masks to honour);
      fast_path      the keys are sorted into the two paths (rel.temp.affected says which is whose);
      replay_keys    the keys to replay, when some take the fast path (else every affected key);
      no_replay      every key takes the fast path: nothing is replayed;
      history_ready  the replayed keys' events are read from the log once, into rel.temp.history,
                     and every later step reads them there (not bitemporal, which reads the log
                     once per system time);
      held_from_log  every key takes the fast path on an unedited target, and the rows it holds are
                     known from the log without reading the target (held_from_log_applies);
      target_filter  a condition every affected key's rows of the target (alias t) meet, for the
                     target's side of the MERGE's join (target_key_filter_sql), or none. -#}
{% macro _batch_path(args, incremental, has_edits=false, fast=false, replay=none, held_first=false, target_filter=none) %}
  {%- set keys_sorted = replay is not none -%}
  {{ return({'incremental': incremental, 'has_edits': has_edits, 'fast_path': fast, 'held_first': held_first,
             'target_filter': target_filter,
             'replay_keys': '(select ' ~ auto_cdc._cols(args.cfg.key_columns) ~ ' from ' ~ args.rel.temp.affected
                            ~ ' where not ' ~ auto_cdc._q(auto_cdc._names().fast) ~ ')' if fast else none,
             'no_replay': keys_sorted and not replay,
             'held_from_log': keys_sorted and not replay and auto_cdc.held_from_log_applies(args),
             'history_ready': keys_sorted and replay and args.cfg.scd != 'bitemporal'}) }}
{% endmacro %}


{#- The counts of a run's stale and missing rows, as SQL: the rows it upserted, the rows it removed and,
    of those, the keys' rows it deleted (no missing row has their row key). -#}
{% macro _change_count_sqls(args) %}
  {%- set pk = auto_cdc._row_key(args) -%}
  {%- set s, m = auto_cdc._alias('s'), auto_cdc._alias('m') -%}
  {{ return({'upserted': '(select count(*) from ' ~ args.rel.temp.missing ~ ')',
             'removed': '(select count(*) from ' ~ args.rel.temp.stale ~ ')',
             'deleted': '(select count(*) from ' ~ args.rel.temp.stale ~ ' ' ~ s ~ ' where not exists (select 1 from '
                        ~ args.rel.temp.missing ~ ' ' ~ m ~ ' where ' ~ auto_cdc._eq(pk, s, m) ~ '))'}) }}
{% endmacro %}

{#- The counts of _change_count_sqls, read before the write, where the run needs them then: with
    change_data_feed (an unchanged target records no change), and where an INSERT returns no rows to
    count them with (the write skips a MERGE with nothing to write). Else none; and where the MERGE
    returns them (merge_returns_counts) and `at_most` bounds the rows to write (for the MERGE's join
    hint), only {at_most}: write_changes returns the counts. One pass over the missing and the stale
    rows, grouped by row key (each scalar subquery is a job or more on Spark): a stale row is deleted
    when no missing row has its row key, as in _change_count_sqls, where a row key holding a NULL
    equals none. -#}
{% macro _change_counts(args, at_most=none) %}
  {%- if at_most is not none and auto_cdc.merge_returns_counts() -%}{{ return({'at_most': at_most}) }}{%- endif -%}
  {%- if not config.get('change_data_feed', false) and auto_cdc.insert_returns_rows() -%}{{ return(none) }}{%- endif -%}
  {%- set pk = auto_cdc._row_key(args) -%}
  {%- set m, s = auto_cdc._alias('m'), auto_cdc._alias('s') -%}
  {%- set unmatched = [m ~ ' = 0'] -%}
  {%- for c in pk -%}{%- do unmatched.append(auto_cdc._q(c) ~ ' is null') -%}{%- endfor -%}
  {%- set sql -%}
select coalesce(sum({{ m }}), 0), coalesce(sum({{ s }}), 0),
  coalesce(sum(case when {{ unmatched | join(' or ') }} then {{ s }} else 0 end), 0)
from (
  select {{ auto_cdc._cols(pk) }}, sum({{ m }}) as {{ m }}, sum({{ s }}) as {{ s }}
  from (
    select {{ auto_cdc._cols(pk) }}, 1 as {{ m }}, 0 as {{ s }} from {{ args.rel.temp.missing }}
    union all
    select {{ auto_cdc._cols(pk) }}, 0 as {{ m }}, 1 as {{ s }} from {{ args.rel.temp.stale }}
  ) {{ auto_cdc._alias('rows') }}
  group by {{ auto_cdc._cols(pk) }}
) {{ auto_cdc._alias('per_key') }}
  {%- endset -%}
  {%- set row = auto_cdc._query(sql).rows[0] -%}
  {{ return({'upserted': row[0] | int, 'removed': row[1] | int, 'deleted': row[2] | int,
             'at_most': (row[0] | int) + (row[1] | int)}) }}
{% endmacro %}

{#- The run's row in the run log and dbt's result message. `written`: the run wrote its stale and
    missing rows, which give num_upserted_rows and num_deleted_rows (docs/how-it-works.md "Metrics") and, with
    change_data_feed, the change feed; `counts`: theirs when the run read them before the write
    (_change_counts), else the counts come back from the run log's insert itself. -#}
{% macro _record_run(args, run_id, metrics, written, counts=none) %}
  {%- set commit_version = none -%}
  {#- the target's version this run leaves unedited, from the last run's (or from the target's creation
      by this run), where the engine keeps a history to tell (unedited_target_version: the run's MERGE
      names its id, as do those of a run that failed before recording itself) -#}
  {%- set since = args.run.since if args.path.incremental else none -%}
  {#- the run's own schema changes (_apply_schema_changes): one commit of the target for each column it
      dropped or widened, in the log as well, so the target still holds the rows the log yields -#}
  {%- set altered = (args.plan.drop_columns | length) + (args.plan.widen_columns | length) if args.path.incremental else 0 -%}
  {%- if args.path.incremental and not written and altered == 0 -%}
    {#- a run that wrote nothing leaves the version it found -#}
    {%- set target_version = args.run.unedited_version -%}
  {%- elif since is not none or not args.path.incremental -%}
    {%- set target_version = auto_cdc.unedited_target_version(args, since, altered) -%}
  {%- else -%}
    {%- set target_version = none -%}
  {%- endif -%}
  {%- if written and counts is not none -%}
    {%- do metrics.update({'num_upserted_rows': counts.upserted, 'num_deleted_rows': counts.deleted}) -%}
    {%- if config.get('change_data_feed', false) and (counts.upserted + counts.removed > 0 or (args.get('rebuild') or {}).get('prior')) -%}
      {%- set commit_version = auto_cdc.record_changes(args) -%}
    {%- endif -%}
    {% do auto_cdc._run_sql(auto_cdc.record_run_sql(args, run_id, metrics, commit_version, target_version=target_version)) %}
  {%- elif written -%}
    {%- set sqls = auto_cdc._change_count_sqls(args) -%}
    {%- set row = auto_cdc._query(auto_cdc.record_run_sql(args, run_id, metrics, none, sqls.upserted, sqls.deleted, target_version)
          ~ '\nreturning num_upserted_rows, num_deleted_rows').rows[0] -%}
    {%- do metrics.update({'num_upserted_rows': row[0] | int, 'num_deleted_rows': row[1] | int}) -%}
  {%- else -%}
    {% do auto_cdc._run_sql(auto_cdc.record_run_sql(args, run_id, metrics, none, target_version=target_version)) %}
  {%- endif -%}
  {%- if commit_version is none -%}{% do auto_cdc._leave_change_table(args) %}{%- endif -%}
  {%- set message = 'num_upserted_rows=' ~ metrics.num_upserted_rows ~ ' num_deleted_rows=' ~ metrics.num_deleted_rows
        ~ ' late_events=' ~ metrics.late_events ~ ' ignored_events=' ~ (metrics.events_read - metrics.events_applied) -%}
  {% do store_raw_result(name='main', message=message, code='AUTO_CDC',
                         rows_affected=metrics.num_upserted_rows + metrics.num_deleted_rows) %}
{% endmacro %}


{#- New events whose key already had a later event applied: they land inside the history (R1). The outer
    alias is a reserved name: Spark resolves a name in a correlated subquery against the inner table's
    columns first, so `b.x` would break on a log with a column `b`. -#}
{% macro late_events_sql(args) -%}
  {%- set cfg = args.cfg -%}
  {%- set op = auto_cdc._q(auto_cdc._names().op) -%}
select count(*) from (
  select {{ auto_cdc.broadcast_hint(['b'], args.get('batch_rows'), (cfg.key_columns + cfg.seq_columns) | length) }}distinct {{ auto_cdc._cols(cfg.key_columns + cfg.seq_columns, 'b') }}
  from {{ args.rel.temp.new }} b
  join {{ args.logged }} l on {{ auto_cdc._eq(cfg.key_columns, 'l', 'b') }}
  where b.{{ op }} <> '{{ auto_cdc._names().truncate }}'
    and l.{{ op }} in ('{{ auto_cdc._names().upsert }}', '{{ auto_cdc._names().delete }}')
    and {{ auto_cdc._seq_lt(cfg.seq_columns, 'b', 'l') }}
) late
{%- endmacro %}


{#- Bitemporal: an event already logged counts again only if it is now learned at an earlier system
    time; it then replaces the logged one (see _apply_batch). -#}
{% macro _new_bitemporal_events_sql(args) -%}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set st = auto_cdc._q(cfg.system_seq) -%}
  {%- set rest = [] -%}
  {%- for c in args.plan.stored if c != cfg.system_seq -%}{%- do rest.append(c) -%}{%- endfor -%}
select {{ auto_cdc._cols(args.plan.stored, 'b') }}, b.{{ op }}
from (
  select {{ auto_cdc._cols(rest) }}, {{ op }}, min({{ st }}) as {{ st }}
  from {{ args.rel.temp.batch }}
  group by {{ auto_cdc._cols(rest) }}, {{ op }}
) b
where not exists (
  select 1 from {{ args.logged }} l
  where {{ auto_cdc._eq(cfg.key_columns + cfg.seq_columns, 'l', 'b') }} and l.{{ st }} <= b.{{ st }}
)
{%- endmacro %}


{#- The target's rows for the affected keys, recomputed from the log. -#}
{% macro desired_rows_sql(args, with_fast=false) %}
  {%- if args.cfg.scd == 1 -%}
    {%- if with_fast and args.path.fast_path -%}
      {%- if args.path.no_replay -%}{{ return(auto_cdc.scd1_fast_rows_sql(args)) }}{%- endif -%}
      {{ return(auto_cdc._union_all([auto_cdc.scd1_rows_sql(args), auto_cdc.scd1_fast_rows_sql(args)])) }}
    {%- endif -%}
    {{ return(auto_cdc.scd1_rows_sql(args)) }}
  {%- elif args.cfg.scd == 'bitemporal' -%}
    {{ return(auto_cdc.bitemporal_rows_sql(args)) }}
  {%- else -%}
    {%- if with_fast and args.path.fast_path -%}
      {%- if args.path.no_replay -%}{{ return(auto_cdc.scd2_fast_rows_sql(args)) }}{%- endif -%}
      {{ return(auto_cdc._union_all([auto_cdc.scd2_rows_sql(args), auto_cdc.scd2_fast_rows_sql(args)])) }}
    {%- endif -%}
    {{ return(auto_cdc.scd2_rows_sql(args)) }}
  {%- endif -%}
{% endmacro %}


{#- The rows of several queries (each may have its own WITH). -#}
{% macro _union_all(queries) %}
  {%- set parts = [] -%}
  {%- for q in queries -%}{%- do parts.append('select * from (\n' ~ q ~ '\n) ' ~ auto_cdc._alias('part_' ~ loop.index0)) -%}{%- endfor -%}
  {{ return(parts | join('\nunion all\n')) }}
{% endmacro %}


{#- Target rows of affected keys that the recomputation no longer produces. -#}
{% macro stale_rows_sql(args) %}
  {%- if not args.path.incremental -%}
select {{ auto_cdc._cols(args.plan.target_columns) }} from {{ args.rel.temp.desired }} where 1 = 0
  {%- else -%}
{{ auto_cdc.unmatched_rows_sql(args, args.rel.temp.held, args.rel.temp.desired) }}
  {%- endif -%}
{% endmacro %}

{#- Recomputed rows the target does not hold yet. -#}
{% macro missing_rows_sql(args) %}
  {%- if not args.path.incremental -%}
select {{ auto_cdc._cols(args.plan.target_columns) }} from {{ args.rel.temp.desired }}
  {%- else -%}
{{ auto_cdc.unmatched_rows_sql(args, args.rel.temp.desired, args.rel.temp.held) }}
  {%- endif -%}
{% endmacro %}


{#- What identifies a row of the target's shape: the keys (SCD1), with __START_AT (SCD2; never NULL),
    and __SYSTEM_START_AT (bitemporal). It is the change feed's primary key (a removed and an added row
    with the same one are an update, so a late event that moves __START_AT shows as delete + insert),
    and the write merges on it (joining on every column costs far more). -#}
{% macro _row_key(args) %}
  {%- set n = auto_cdc._names() -%}
  {{ return(args.cfg.key_columns + ([] if args.cfg.scd == 1 else [n.start_at])
            + ([n.system_start_at] if args.cfg.scd == 'bitemporal' else [])) }}
{% endmacro %}
