{#-
  R7: bad input fails the run before anything is written, with a message naming the model and every
  kind of bad input the batch holds at once (NULL keys, NULL sequences, NULL system times, conflicts,
  unknown columns_to_update names), each with its count, a few examples and what to do. Conflicts
  (same key and sequence, different operation or values) are looked for inside the batch and
  against the events already applied, so splitting a feed across runs never turns an error into a
  silent choice. The counts come from one query (with the apply's facts); examples are read only for
  a kind whose count is not zero.
-#}
{#- `facts`: more expressions to evaluate in the same query (the apply's counts), after the statement
    `before` (in the same round trip); returns their values. -#}
{% macro _check_feed(args, log, facts=[], before=none) %}
  {%- set cfg = args.cfg -%}
  {%- set batch = args.rel.temp.batch -%}
  {#- the columns two events must agree on (cfg.compared) that this run stores; against the log, not
      a column added by this run, which events applied before it existed never had -#}
  {%- set stored = [] -%}
  {%- for c in cfg.compared if c in args.cols.stored -%}{%- do stored.append(c) -%}{%- endfor -%}
  {%- set log_columns = [] -%}
  {%- for c in stored if c not in args.cols.add_columns -%}{%- do log_columns.append(c) -%}{%- endfor -%}
  {% do auto_cdc.check_sequence_type(args) %}

  {#- one count per kind: the NULLs of each column in one pass over the batch, then conflicts and
      unknown columns_to_update names -#}
  {%- set checks = auto_cdc._feed_checks(args, log, stored, log_columns, before is not none) -%}
  {%- set sums, counts = [], [] -%}
  {%- for check in checks if check.get('nulls') -%}
    {%- do sums.append('coalesce(sum(case when ' ~ check.nulls ~ ' then 1 else 0 end), 0) as ' ~ auto_cdc._alias('check_' ~ loop.index0)) -%}
  {%- endfor -%}
  {%- for check in checks if not check.get('nulls') -%}
    {%- do counts.append('(select count(*) as ' ~ auto_cdc._alias('count_' ~ loop.index0) ~ ' from (' ~ check.rows ~ ') c) ' ~ auto_cdc._alias('counted_' ~ loop.index0)) -%}
  {%- endfor -%}
  {%- set named_facts = [] -%}
  {%- for f in facts -%}{%- do named_facts.append(f ~ ' as ' ~ auto_cdc._alias('fact_' ~ loop.index0)) -%}{%- endfor -%}
  {%- set parts = ['(select ' ~ (sums | join(', ')) ~ ' from ' ~ batch ~ ') checks'] + counts
        + (['(select ' ~ (named_facts | join(', ')) ~ ') facts'] if facts else []) -%}
  {%- set query = auto_cdc.one_partition_reads(args, 'select * from ' ~ (parts | join(' cross join '))) -%}
  {%- set row = (auto_cdc._run_then_query(before, query) if before else auto_cdc._query(query)).rows[0] -%}
  {%- set problems = [] -%}
  {%- for check in checks -%}
    {%- if row[loop.index0] | int > 0 -%}{%- do problems.append(auto_cdc._feed_problem(args, check, row[loop.index0] | int)) -%}{%- endif -%}
  {%- endfor -%}
  {%- if problems -%}
    {%- do exceptions.raise_database_error("auto_cdc model '" ~ model.name ~ "': bad input in the change feed, nothing was applied:\n  - " ~ (problems | join('\n  - '))) -%}
  {%- endif -%}
  {{ return(row[checks | length:]) }}
{% endmacro %}


{#- The kinds of bad input a batch is checked for, the NULL checks first: each {kind ('key', 'sequence',
    'system', 'conflict' or 'columns'), column (a NULL check's), nulls (a condition on the batch's rows,
    for a NULL check), rows (a query of the offending rows, their first columns `shown`, then the
    unknown name or whether the conflict is in the batch or against the log)}. What each means, and
    what to do, is read only when one is found (_feed_problem). -#}
{% macro _feed_checks(args, log, stored, log_columns, new_events_made) %}
  {%- set cfg, batch, n = args.cfg, args.rel.temp.batch, auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set identity = cfg.key_columns + cfg.seq_columns -%}
  {%- set nulls = [] -%}
  {%- for c in cfg.key_columns -%}{%- do nulls.append(('key', c, op ~ " <> '" ~ n.truncate ~ "' and " ~ auto_cdc._q(c) ~ " is null", identity)) -%}{%- endfor -%}
  {%- for c in cfg.seq_columns -%}{%- do nulls.append(('sequence', c, auto_cdc._q(c) ~ " is null", identity)) -%}{%- endfor -%}
  {%- if cfg.system_seq -%}{%- do nulls.append(('system', cfg.system_seq, auto_cdc._q(cfg.system_seq) ~ " is null", identity + [cfg.system_seq])) -%}{%- endif -%}
  {%- set checks = [] -%}
  {%- for kind, column, condition, shown in nulls -%}
    {%- do checks.append({'kind': kind, 'column': column, 'nulls': condition, 'shown': shown,
                          'rows': 'select ' ~ auto_cdc._cols(shown) ~ ' from ' ~ batch ~ ' where ' ~ condition}) -%}
  {%- endfor -%}
  {%- do checks.append({'kind': 'conflict', 'shown': identity, 'rows': auto_cdc._conflicts_sql(args, log, stored, log_columns, new_events_made)}) -%}
  {#- R5: columns_to_update may name only output columns -#}
  {%- if cfg.columns_to_update -%}
    {%- set known = [] -%}
    {%- for c in cfg.output -%}{%- do known.append("'" ~ (c | lower | replace("'", "''")) ~ "'") -%}{%- endfor -%}
    {%- set unknown -%}
      select {{ auto_cdc._cols(cfg.key_columns) }}, name from (
        select {{ auto_cdc._cols(cfg.key_columns) }}, {{ auto_cdc.split_names_sql(auto_cdc._q(n.columns)) }} as name
        from {{ batch }}
        where {{ op }} = '{{ n.upsert }}' and {{ auto_cdc._q(n.columns) }} is not null
      ) listed
      where name <> '' and name not in ({{ known | join(', ') }})
    {%- endset -%}
    {%- do checks.append({'kind': 'columns', 'shown': cfg.key_columns, 'rows': unknown}) -%}
  {%- endif -%}
  {{ return(checks) }}
{% endmacro %}


{#- One problem of _check_feed's message: what was found (its count), the first five of its rows and what
    to do. -#}
{% macro _feed_problem(args, check, count) %}
  {%- set cfg, c = args.cfg, check.get('column') -%}
  {%- set what = {
    'key': ("NULL in key column '" ~ c ~ "': {n} row(s)",
            "leave such rows out in the model (`where " ~ auto_cdc._q(c) ~ " is not null`) or give them their key: every event needs one"),
    'sequence': ("NULL in sequence column '" ~ c ~ "': {n} row(s)",
                 "leave such rows out in the model or fill the sequence in (`coalesce(...)`): every event needs its place in the order"),
    'system': ("NULL in system_sequence_by column '" ~ c ~ "': {n} row(s)",
               "leave such rows out in the model or fill the system time in: every event needs the time it was learned at"),
    'conflict': ('conflicting events (same key and sequence, different operation or values) for {n} key/sequence pair(s)',
                 "drop the duplicates in the model, or make the sequence unique per key (add a tie-breaker column to "
                 ~ "sequence_by, such as the time a row was loaded): two events at one key and sequence must be one event. An "
                 ~ "event already applied changes only when the source is corrected and the model rebuilt with --full-refresh"),
    'columns': ("columns_to_update column '" ~ cfg.columns_to_update ~ "' names unknown columns in {n} case(s)",
                "name only the model's output columns (" ~ (cfg.output | join(', ')) ~ ") in '" ~ cfg.columns_to_update ~ "', or add the column to the model")
  }[check.kind] -%}
  {%- set found = auto_cdc._query('select * from (' ~ check.rows ~ ') ' ~ auto_cdc._alias('found') ~ ' order by '
        ~ auto_cdc._cols(check.shown) ~ ' limit 5') -%}
  {%- set shown = [] -%}
  {%- for row in found.rows -%}
    {%- set parts = [] -%}
    {%- for c in check.shown -%}{%- do parts.append(c ~ '=' ~ ('NULL' if row[loop.index0] is none else row[loop.index0])) -%}{%- endfor -%}
    {%- set described = '(' ~ (parts | join(', ')) ~ ')' -%}
    {%- if check.kind == 'columns' -%}{%- set described = "'" ~ row[-1] ~ "' for " ~ described -%}{%- endif -%}
    {%- if check.kind == 'conflict' -%}{%- set described = described ~ (' in this batch' if row[-1] == 'batch' else ' against an applied event') -%}{%- endif -%}
    {%- do shown.append(described) -%}
  {%- endfor -%}
  {{ return(what[0] | replace('{n}', count | string) ~ ': ' ~ (shown | join(', '))
            ~ ((' and ' ~ (count - shown | length) ~ ' more') if count > shown | length else '') ~ '. What to do: ' ~ what[1]) }}
{% endmacro %}


{#- Events at one key and sequence that disagree, inside the batch and against the log. With
    `new_events_made` (the run's new events are made before the check, in its round trip), the events
    inside the batch are read from them when they are the batch's distinct events over the compared
    columns less those at a key and sequence the log holds (an event there that disagrees is found
    against the log): one distinct of the batch fewer (0.16 s against 0.04 s for 1,000,000 events on
    DuckDB). Not when a horizon drops events from them or they hold other columns. -#}
{% macro _conflicts_sql(args, log, stored, log_columns, new_events_made=false) %}
  {%- set cfg = args.cfg -%}
  {%- set batch = args.rel.temp.batch -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set identity = cfg.key_columns + cfg.seq_columns -%}
  {%- if new_events_made and log is not none and cfg.scd != 'bitemporal' and stored == args.cols.stored
        and not auto_cdc.horizon_applies(args) -%}
    {%- set distinct_events = "select * from " ~ args.rel.temp.new ~ " where " ~ op ~ " <> '" ~ n.truncate ~ "'" -%}
  {%- else -%}
    {%- set distinct_events = "select distinct " ~ auto_cdc._cols(stored) ~ ", " ~ op ~ " from " ~ batch ~ " where " ~ op ~ " <> '" ~ n.truncate ~ "'" -%}
  {%- endif -%}
  {%- set sql -%}
      select {{ auto_cdc._cols(identity, 'd') }}, count(*) as {{ auto_cdc._q(n.internal_prefix ~ 'events') }}, 'batch' as {{ auto_cdc._q(n.internal_prefix ~ 'found') }}
      from ({{ distinct_events }}) d
      group by {{ auto_cdc._cols(identity, 'd') }}
      having count(*) > 1
      {%- if log is not none %}
      union all
      select {{ auto_cdc.broadcast_hint(['b'], args.plan.get('batch_rows'), (log_columns | length) + 1) }}{{ auto_cdc._cols(identity, 'b') }}, 2 as {{ auto_cdc._q(n.internal_prefix ~ 'events') }}, 'log' as {{ auto_cdc._q(n.internal_prefix ~ 'found') }}
      from (select distinct {{ auto_cdc._cols(log_columns) }}, {{ op }} from {{ batch }} where {{ op }} <> '{{ n.truncate }}') b
      join {{ log }} l
        on {{ auto_cdc._eq(identity, 'l', 'b') }}
      where {{ auto_cdc._source_event('l') }}
        and not (l.{{ op }} = b.{{ op }} and {{ auto_cdc._same(log_columns, 'l', 'b') }})
      {%- endif %}
    {%- endset -%}
  {{ return(sql) }}
{% endmacro %}
