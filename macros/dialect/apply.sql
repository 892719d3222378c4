{#-
  The apply's statements where an engine writes differently (Spark's parquet tables take no UPDATE,
  DELETE or MERGE), and what an engine's apply can do (the fast path, skipping empty runs).
  Each hook: its dispatcher, `default__` (what DuckDB and Postgres share unless they override it), then
  the engines' overrides, each saying how its dialect differs. docs/contributing.md lists them all.
-#}


{#- Does this run classify its keys into the two paths? -#}
{% macro fast_path_applies(args) %}
  {{ return(adapter.dispatch('fast_path_applies', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__fast_path_applies(args) %}
  {%- set cfg = args.cfg -%}
  {%- if cfg.scd not in [1, 2] or cfg.columns_to_update or cfg.ignore_null -%}{{ return(false) }}{%- endif -%}
  {#- SCD2 continues the open version from its row, with the sequence of its __START_AT: a sequence
      column shown in the row holds that value only when it is tracked (a tracked column's value is
      the same in every event of a version); an untracked one shows the version's last event's -#}
  {%- for c in cfg.seq_columns if cfg.scd == 2 and c in args.plan.output and c not in args.plan.tracked -%}{{ return(false) }}{%- endfor -%}
  {{ return(true) }}
{% endmacro %}

{#- Spark on parquet: every affected key is replayed and its buckets rewritten (macros/adapters/spark.sql).
    Delta takes the MERGE of the other engines, and their fast path. -#}
{% macro spark__fast_path_applies(args) %}
  {{ return(auto_cdc._spark_has_merge() and auto_cdc.default__fast_path_applies(args)) }}
{% endmacro %}


{#- What an incremental change feed run needs from the run log, read once before it stages the batch,
    or none where the run's statements read the run log as they go (DuckDB, Postgres: a small table
    read at no cost). `next_run`: its last run id + 1; `edited_keys`: the sum of its edited keys;
    `cursor`: the greatest cursor applied, as a SQL literal (`null` before any), or none where the
    engine cannot write it as one. `rel`: the run's relations (_relations). -#}
{% macro prior_runs(rel) %}
  {{ return(adapter.dispatch('prior_runs', 'auto_cdc')(rel)) }}
{% endmacro %}

{% macro default__prior_runs(rel) %}
  {{ return(none) }}
{% endmacro %}

{#- Spark: each reference to the run log plans a read of it (on Delta, Spark jobs that read its
    transaction log): the staging's cursor filter read it twice, the run's facts once and the run's
    row in it once more. Read once here, the later statements take literals. -#}
{% macro spark__prior_runs(rel) %}
  {%- set types = auto_cdc._column_types('select * from ' ~ rel.runs) -%}
  {%- set parts = auto_cdc._spark_literal_parts('max(cursor_value)', types['cursor_value']) -%}
  {#- the target's version the last run left unedited (unedited_target_version; a run log written before
      the column has none) -#}
  {%- set has_version = 'target_version' in (types.keys() | map('lower') | list) -%}
  {%- set row = auto_cdc._query('select coalesce(max(run_id), 0) + 1, coalesce(sum(edited_keys), 0), '
        ~ ('max_by(target_version, run_id)' if has_version else 'cast(null as bigint)')
        ~ (', ' ~ parts.select if parts else '') ~ ' from ' ~ rel.runs).rows[0] -%}
  {{ return({'next_run': row[0] | int, 'edited_keys': row[1] | int,
             'target_version': row[2] | int if row[2] is not none else none,
             'cursor': auto_cdc._spark_literal(parts, row[3]) if parts else none}) }}
{% endmacro %}


{#- The target's version now, when no one but the model's runs has changed its rows since `since`, the
    version a run left it at (none: since this run created it, at version 0); else none. A run whose
    target is unedited since the last run's version takes no hand edit into account: its classification
    compares no target row with the log (paths.sql) and it folds no edits (edits.sql). The MERGEs of the
    run in `args.run` (merge_changes_sql names the run's id in them) are the model's own; `writes`: the
    commits the caller made that change rows and name no run (erase_keys' DELETE: 0 or 1; a run's
    ALTERs of the columns it drops or widens in the target and the log alike). An engine
    that keeps no history of the table's commits returns none, and every run compares. -#}
{% macro unedited_target_version(args, since, writes) %}
  {{ return(adapter.dispatch('unedited_target_version', 'auto_cdc')(args, since, writes)) }}
{% endmacro %}

{% macro default__unedited_target_version(args, since, writes) %}
  {{ return(none) }}
{% endmacro %}

{#- Delta: the table's history (DESCRIBE HISTORY) lists each commit's operation and parameters. After
    `since`, the commits must be those that change no row (compaction, vacuum, table properties, added
    columns), the MERGEs of this run's id and exactly `writes` more. A MERGE of this run's id is this
    run's, or one of a run that failed after it and before it recorded itself (the run log has no row
    for it, so the next run takes its id, and repeats its work: killed_run_events_sql). A commit of
    anyone else that changes rows (an UPDATE, DELETE, MERGE, INSERT or RESTORE by hand) leaves every
    later run of the model comparing until --full-refresh: the model's rows outside a run's keys may
    have changed, and a later run would not look at them. The history's rows carry each commit's
    parameters, a MERGE's condition with its key filter among them (target_key_filter_sql, up to about
    350 KB): the newest 5 commits are read first, and 100 only where `since` is older than those. -#}
{% macro spark__unedited_target_version(args, since, writes) %}
  {#- a run-operation (erase_keys) has no `this`: the target's own format -#}
  {%- set format = auto_cdc._spark_format() if this is defined else auto_cdc._spark_format(args.rel.target) -%}
  {%- if format != 'delta' -%}{{ return(none) }}{%- endif -%}
  {%- set rowless = ['OPTIMIZE', 'VACUUM START', 'VACUUM END', 'SET TBLPROPERTIES', 'UNSET TBLPROPERTIES', 'ADD COLUMNS', 'REORG'] -%}
  {#- a MERGE of the run's id: a clause whose whole condition is the one of merge_changes_sql's delete
      clause, as the history shows it: the source's action column, with the number Spark gave it, equal
      to the id's negative, `"(__auto_cdc_upsert#123 = -7)"` (the quotes escaped, `\"`, where the
      connection returns the parameters as JSON). A hand MERGE whose conditions merely contain both parts,
      `((__auto_cdc_upsert#9 = 2) AND (id#8 = -7))`, is not the model's. -#}
  {%- set run_id = (args.get('run') or {}).get('id') -%}
  {%- set mark = modules.re.compile('"\\(' ~ modules.re.escape(auto_cdc._names().merge_action) ~ '#[0-9]+ = -'
        ~ (run_id | int) ~ '\\)\\\\?"') if run_id is not none else none -%}
  {%- set first = since if since is not none else 0 -%}
  {%- set history = auto_cdc._query('describe history ' ~ args.rel.target ~ ' limit 5') -%}
  {%- if history.rows | length == 5 and (history.rows[4]['version'] | int) > first -%}
    {%- set history = auto_cdc._query('describe history ' ~ args.rel.target ~ ' limit 100') -%}
  {%- endif -%}
  {%- set found = {'anchor': false, 'writes': 0, 'latest': none} -%}
  {%- for row in history.rows -%}
    {%- set version, operation = row['version'] | int, row['operation'] -%}
    {%- set parameters = row['operationParameters'] | string -%}
    {%- set own = mark is not none and operation == 'MERGE' and mark.search(parameters) is not none -%}
    {%- if found.latest is none -%}{%- do found.update({'latest': version}) -%}{%- endif -%}
    {%- if version == first -%}
      {#- the run that created the target made version 0 -#}
      {%- do found.update({'anchor': since is not none or operation == 'CREATE TABLE AS SELECT'}) -%}
    {%- elif version > first and operation not in rowless and not own -%}
      {%- do found.update({'writes': found.writes + 1}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(found.latest if found.anchor and found.writes == writes else none) }}
{% endmacro %}


{#- The log as an incremental run reads it for the batch's keys: its new events (R2), the feed's
    conflicts (R7), its late events and the fast path's classification (macros/builders/paths.sql).
    `relation`, made by `statements` first. Every read of it joins the batch's keys, or takes the
    truncates. `facts` (optional): run facts an engine read on the way, as numbers (`batch_rows`,
    `next_run`: the run log's last run id + 1, `edited_keys`: the sum of its edited keys), which the
    run's facts query then takes as literals. -#}
{% macro touched_log(args) %}
  {{ return(adapter.dispatch('touched_log', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__touched_log(args) %}
  {{ return({'relation': args.rel.log, 'statements': []}) }}
{% endmacro %}

{#- Spark: every reference to a table in a query lists the table's files while the query is planned (on
    Delta a Spark job), there is no index to look the batch's keys up with, and Spark computes a CTE
    again for each reference: the run's statements read the whole log five times. It reads a temp
    table of the rows it needs instead (the batch's keys' events and the truncates), made with one
    scan of the log. -#}
{% macro spark__touched_log(args) %}
  {#- the batch's size bounds its keys', for the join's hint (0.1-0.2 s; a Delta log of 10,000,000 rows is
      otherwise sorted whole, 2-5 s); the run log's facts (prior_runs, or read in the same query), so
      that the facts query reads the run log nowhere (each reference to a Delta table is a planning
      job) and finds a killed run's events by a literal run id, which skips the log's files by their
      statistics; with the run log's cursor, the batch's greatest, for the run's row in the run log -#}
  {%- set n = auto_cdc._names() -%}
  {%- set prior = args.plan.get('prior') -%}
  {%- if prior is none -%}
    {%- set row = auto_cdc._query('select b.n, r.next_run, r.edited from (select count(*) as n from ' ~ args.rel.temp.batch
          ~ ') b cross join (select coalesce(max(run_id), 0) + 1 as next_run, coalesce(sum(edited_keys), 0) as edited from '
          ~ args.rel.runs ~ ') r').rows[0] -%}
    {%- set facts = {'batch_rows': row[0] | int, 'next_run': row[1] | int, 'edited_keys': row[2] | int} -%}
  {%- else -%}
    {#- the batch's cursor as a literal of its type (staged as __auto_cdc_cursor; none without cursor_column) -#}
    {%- set source_types = args.plan.types.get('source', {}) -%}
    {%- set cursor_name = auto_cdc._resolve_column(n.cursor, source_types.keys() | list) if args.cfg.cursor else none -%}
    {%- set parts = auto_cdc._spark_literal_parts('max(' ~ auto_cdc._q(n.cursor) ~ ')', source_types[cursor_name]) if cursor_name and prior.cursor is not none else none -%}
    {%- set row = auto_cdc._query('select count(*)' ~ (', ' ~ parts.select if parts else '') ~ ' from ' ~ args.rel.temp.batch).rows[0] -%}
    {#- the run's cursor: the batch's greatest, else the run log's (none: the run's row reads them) -#}
    {%- if not args.cfg.cursor -%}
      {%- set cursor = prior.cursor -%}
    {%- elif parts and row[1] is not none -%}
      {%- set cursor = auto_cdc._spark_literal(parts, row[1]) -%}
    {%- else -%}
      {%- set cursor = prior.cursor if parts else none -%}
    {%- endif -%}
    {%- set facts = {'batch_rows': row[0] | int, 'next_run': prior.next_run, 'edited_keys': prior.edited_keys, 'cursor': cursor} -%}
  {%- endif -%}
  {{ return({'relation': args.rel.temp.logged,
             'statements': [auto_cdc.create_temp_table_sql(args.rel.temp.logged, auto_cdc._touched_log_sql(args, facts.batch_rows))],
             'facts': facts}) }}
{% endmacro %}

{#- Postgres: each read of the log probes its index once per key of the batch (the new events, the feed's
    conflicts, the late events, the classification): four probes per key of a log larger than the
    server's buffers. It reads a temp table of the batch's keys' events and the truncates instead, made
    with one probe per key in the round trip of the new events (a truncate has its partial index), the
    keys in order so that each probe reads the index pages the one before it read (100,000 keys into a
    log of 5,000,000 events: 1.0-1.1 s against 1.5 s; docs/benchmarks.md). -#}
{% macro postgres__touched_log(args) %}
  {%- set n = auto_cdc._names() -%}
  {#- a log written before events kept their fingerprint gains the column after the copy would be made -#}
  {%- if n.fingerprint not in (args.plan.types.get('log', {}).keys() | map('lower') | list) -%}
    {{ return(auto_cdc.default__touched_log(args)) }}
  {%- endif -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set keys = args.cfg.key_columns -%}
  {%- set sql -%}
select l.*
from {{ args.rel.log }} l
join (select distinct {{ auto_cdc._cols(keys) }} from {{ args.rel.temp.batch }} where {{ op }} <> '{{ n.truncate }}'
      order by {{ auto_cdc._cols(keys) }}) k
  on {{ auto_cdc._eq(keys, 'l', 'k') }}
where l.{{ op }} <> '{{ n.truncate }}'
union all
select l.* from {{ args.rel.log }} l where l.{{ op }} = '{{ n.truncate }}'
  {%- endset -%}
  {{ return({'relation': args.rel.temp.logged, 'statements': [auto_cdc.create_temp_table_sql(args.rel.temp.logged, sql)]}) }}
{% endmacro %}

{#- The log's events of the batch's keys, and its truncates, with one scan of the log (touched_log). -#}
{% macro _touched_log_sql(args, batch_rows) %}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set keys = args.cfg.key_columns -%}
  {%- set l, k = auto_cdc._alias('l'), auto_cdc._alias('k') -%}
select {{ auto_cdc.broadcast_hint([k], batch_rows, keys | length) }}{{ l }}.*
from {{ args.rel.log }} {{ l }}
left join (select distinct {{ auto_cdc._cols(keys) }} from {{ args.rel.temp.batch }} where {{ op }} <> '{{ n.truncate }}') {{ k }}
  on {{ auto_cdc._eq(keys, l, k) }}
where {{ l }}.{{ op }} = '{{ n.truncate }}' or {{ k }}.{{ auto_cdc._q(keys[0]) }} is not null
{% endmacro %}


{#- A scalar query for the run's facts (macros/builders/apply.sql): how many events a killed run logged
    under this run's id, the one after the run log's last, or none where a run is one transaction and
    cannot leave any. The run knows the answer as `args.run.killed`: the keys of such events are
    affected again (affected_keys_sql) and their rows are not hand edits (edits.sql), and a run with
    nothing new does not stop early. -#}
{% macro killed_run_events_sql(args, next_run=none) %}
  {{ return(adapter.dispatch('killed_run_events_sql', 'auto_cdc')(args, next_run)) }}
{% endmacro %}

{% macro default__killed_run_events_sql(args, next_run=none) %}
  {{ return(none) }}
{% endmacro %}

{#- Spark: no transaction holds a run's statements together (on parquet or on Delta), so a run killed
    after its log append left events under the run id this run has (its run log row was never
    written). `next_run`: that id, when the run has read it already. -#}
{% macro spark__killed_run_events_sql(args, next_run=none) %}
  {%- set run_id = next_run if next_run is not none else '(select coalesce(max(run_id), 0) + 1 from ' ~ args.rel.runs ~ ')' -%}
  {{ return('(select count(*) from ' ~ args.rel.log ~ ' where ' ~ auto_cdc._q(auto_cdc._names().run) ~ ' = ' ~ run_id ~ ')') }}
{% endmacro %}


{#- Whether a run's target, event log and run log commit together (its transaction): then an empty run
    log beside the other relations, or an empty event log beside a run log that recorded events, was
    emptied by hand (guards.sql). -#}
{% macro bookkeeping_commits_together() %}
  {{ return(adapter.dispatch('bookkeeping_commits_together', 'auto_cdc')()) }}
{% endmacro %}

{% macro default__bookkeeping_commits_together() %}
  {{ return(true) }}
{% endmacro %}

{#- Spark: each statement commits on its own; a first run killed before its row in the run log leaves
    the other relations, with no history to lose (the next run starts over). -#}
{% macro spark__bookkeeping_commits_together() %}
  {{ return(false) }}
{% endmacro %}


{#- Can an INSERT return the rows it inserted (INSERT ... RETURNING)? -#}
{% macro insert_returns_rows() %}
  {{ return(adapter.dispatch('insert_returns_rows', 'auto_cdc')()) }}
{% endmacro %}

{% macro default__insert_returns_rows() %}
  {{ return(true) }}
{% endmacro %}

{% macro spark__insert_returns_rows() %}
  {{ return(false) }}
{% endmacro %}


{#- Does the target's MERGE return how many rows it updated, deleted and inserted (then write_changes
    counts the run's changes itself, and the run reads none before it)? -#}
{% macro merge_returns_counts() %}
  {{ return(adapter.dispatch('merge_returns_counts', 'auto_cdc')()) }}
{% endmacro %}

{#- DuckDB's and Postgres's MERGE return a row count only; they count with the run log's insert
    (insert_returns_rows). -#}
{% macro default__merge_returns_counts() %}
  {{ return(false) }}
{% endmacro %}

{#- Delta's MERGE returns one row: num_affected_rows, num_updated_rows, num_deleted_rows,
    num_inserted_rows. -#}
{% macro spark__merge_returns_counts() %}
  {{ return(auto_cdc._spark_format() == 'delta') }}
{% endmacro %}


{#- The batch's events the log does not hold yet, above the model's horizon (compact.sql). -#}
{% macro new_events_sql(args) %}
  {{ return(auto_cdc.above_horizon_sql(args, adapter.dispatch('new_events_sql', 'auto_cdc')(args))) }}
{% endmacro %}

{% macro default__new_events_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- if cfg.scd == 'bitemporal' -%}
    {{ return(auto_cdc._new_bitemporal_events_sql(args)) }}
  {%- endif -%}
{#- DuckDB builds an anti-join's hash table on its subquery, the whole log; an inner join builds it on
    the smaller side (the batch) and only probes the log: the events already logged are found by a join
    first, then the batch is anti-joined with those few. Each anti-join joins on all the columns that
    identify its events (key and sequence; a truncate's sequence): a key test inside an OR would leave
    the sequence alone as the join key, and a re-read batch whose events share one sequence value would
    then compare every event with every logged one. -#}
with logged as (
  select distinct {{ auto_cdc._cols(cfg.key_columns + cfg.seq_columns, 'b') }}, b.{{ op }}
  from {{ args.rel.temp.batch }} b
  join {{ args.logged }} l
    on {{ auto_cdc._eq(cfg.key_columns + cfg.seq_columns, 'l', 'b') }}
  where b.{{ op }} <> '{{ n.truncate }}'
    and {{ auto_cdc._source_event('l') }}
  union all
  select distinct {{ auto_cdc._cols(cfg.key_columns + cfg.seq_columns, 'b') }}, b.{{ op }}
  from {{ args.rel.temp.batch }} b
  join {{ args.logged }} l on {{ auto_cdc._eq(cfg.seq_columns, 'l', 'b') }}
  where b.{{ op }} = '{{ n.truncate }}' and l.{{ op }} = '{{ n.truncate }}'
)
select distinct {{ auto_cdc._cols(args.plan.stored, 'b') }}, b.{{ op }}
from {{ args.rel.temp.batch }} b
where not exists (
  select 1 from logged g
  where {{ auto_cdc._eq(cfg.key_columns + cfg.seq_columns, 'g', 'b') }}
    and g.{{ op }} <> '{{ n.truncate }}' and b.{{ op }} <> '{{ n.truncate }}'
)
and not exists (
  select 1 from logged g
  where {{ auto_cdc._eq(cfg.seq_columns, 'g', 'b') }}
    and g.{{ op }} = '{{ n.truncate }}' and b.{{ op }} = '{{ n.truncate }}'
)
{% endmacro %}

{#- default__new_events_sql with reserved aliases (see the top of this file). -#}
{% macro spark__new_events_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set b, l = auto_cdc._alias('b'), auto_cdc._alias('l') -%}
  {%- if cfg.scd == 'bitemporal' -%}
    {%- set st = auto_cdc._q(cfg.system_seq) -%}
    {%- set rest = [] -%}
    {%- for c in args.plan.stored if c != cfg.system_seq -%}{%- do rest.append(c) -%}{%- endfor -%}
select {{ auto_cdc._cols(args.plan.stored, b) }}, {{ b }}.{{ op }}
from (
  select {{ auto_cdc._cols(rest) }}, {{ op }}, min({{ st }}) as {{ st }}
  from {{ args.rel.temp.batch }}
  group by {{ auto_cdc._cols(rest) }}, {{ op }}
) {{ b }}
where not exists (
  select 1 from {{ args.logged }} {{ l }}
  where {{ auto_cdc._eq(cfg.key_columns + cfg.seq_columns, l, b) }} and {{ l }}.{{ st }} <= {{ b }}.{{ st }}
)
  {%- else -%}
select distinct {{ auto_cdc._cols(args.plan.stored, b) }}, {{ b }}.{{ op }}
from {{ args.rel.temp.batch }} {{ b }}
where not exists (
    select 1 from {{ args.logged }} {{ l }}
    where {{ auto_cdc._source_event(l) }}
      and {{ auto_cdc._eq(cfg.key_columns + cfg.seq_columns, l, b) }}
  )
  and not exists (
    select 1 from {{ args.logged }} {{ l }}
    where {{ b }}.{{ op }} = '{{ n.truncate }}' and {{ l }}.{{ op }} = '{{ n.truncate }}'
      and {{ auto_cdc._eq(cfg.seq_columns, l, b) }}
  )
  {%- endif -%}
{% endmacro %}


{% macro affected_keys_sql(args) %}
  {{ return(adapter.dispatch('affected_keys_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__affected_keys_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
select distinct {{ auto_cdc._cols(cfg.key_columns) }}
from {{ args.rel.temp.new }}
where {{ op }} <> '{{ n.truncate }}'
{%- if args.run.truncates %}
{#- a truncate touches every key the log holds -#}
union
select distinct {{ auto_cdc._cols(cfg.key_columns) }}
from {{ args.rel.log }}
where {{ op }} in ('{{ n.upsert }}', '{{ n.delete }}')
{%- if args.path.incremental %}
{#- with the keys only the target has (inserted by hand) -#}
union
select distinct {{ auto_cdc._cols(cfg.key_columns) }}
from {{ args.rel.target }}
{%- endif %}
{%- endif %}
{%- if args.run.killed %}
{#- a killed run's events (killed_run_events_sql): its keys are recomputed though their events are no
    longer new, every key if it logged a truncate -#}
union
select distinct {{ auto_cdc._cols(cfg.key_columns) }}
from {{ args.rel.log }}
where {{ op }} <> '{{ n.truncate }}'
  and ({{ auto_cdc._q(n.run) }} = {{ args.run.id }}
       or exists (select 1 from {{ args.rel.log }} where {{ op }} = '{{ n.truncate }}' and {{ auto_cdc._q(n.run) }} = {{ args.run.id }}))
{%- endif %}
{% endmacro %}

{#- How many affected keys there are at most (affected_keys_sql), for the join hints of the tables of
    them: the new events' keys, one per new event at most, unless a truncate or a killed run adds
    others (none: no bound). -#}
{% macro _affected_keys_at_most(args) %}
  {{ return(none if args.run.truncates or args.run.killed else args.run.new_events) }}
{% endmacro %}

{#- A condition on the target's rows (alias t) that every affected key's rows meet and most others fail,
    for the target's side of the MERGE's join (merge_changes_sql): target_key_filter_sql is a select
    item over the affected keys' table (affected_keys_sql), read with the count of each path, and
    target_key_filter(args, value) the condition made of its value; none where the engine takes none. -#}
{% macro target_key_filter_sql(args) %}
  {{ return(adapter.dispatch('target_key_filter_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__target_key_filter_sql(args) %}
  {{ return(none) }}
{% endmacro %}

{% macro target_key_filter(args, value) %}
  {{ return(adapter.dispatch('target_key_filter', 'auto_cdc')(args, value)) }}
{% endmacro %}

{% macro default__target_key_filter(args, value) %}
  {{ return(none) }}
{% endmacro %}

{#- Spark with MERGE (Delta): a MERGE that inserts as well as updates joins its source with the target
    files it touches keeping every source row (Delta's left outer join, the source on the left), a join
    Spark cannot broadcast the source into: it shuffles every row of those files, and a batch's keys
    touch every file. With a condition on the target's key in the ON clause as well, Spark drops the
    other rows as it reads them, before the join. The key is one integer column, and a run affects at
    most 100,000 keys (_affected_keys_at_most). Up to 10,000 keys the condition lists them (`list`);
    a list costs its parsing and planning, about as much as it saves at 30,000 keys. Above, it reads
    a bitmap of `slots` bits (a prime at least 8 times the keys), written as the decimal values of its
    64-bit words and read back as one array: Spark folds `cast(split('..', ',') as array<bigint>)` into
    a constant once, and a row's test is then arithmetic and an array's element. The bit of key k is
    k modulo `slots`, so the keys of a range as wide as `slots` take one bit each, and about one row in
    eight of the others passes where the batch takes as many keys as it may (docs/benchmarks.md, "The
    target's side of the MERGE" and "Above 10,000 keys: a bitmap of the keys on the target's side"). -#}
{% macro _spark_key_filter(args) %}
  {%- set keys = args.cfg.key_columns -%}
  {%- set at_most = auto_cdc._affected_keys_at_most(args) -%}
  {%- if keys | length != 1 or at_most is none or at_most > 100000 or not auto_cdc._spark_has_merge() -%}{{ return(none) }}{%- endif -%}
  {%- set types = args.plan.types.get('target') or {} -%}
  {%- set name = auto_cdc._resolve_column(keys[0], types.keys() | list) -%}
  {%- if name is none or (types[name] | lower) not in ['tinyint', 'smallint', 'int', 'bigint'] -%}{{ return(none) }}{%- endif -%}
  {%- if at_most <= 10000 -%}{{ return({'key': auto_cdc._q(keys[0]), 'list': true}) }}{%- endif -%}
  {%- for slots in [131071, 262139, 524287, 1048573] if slots >= 8 * at_most -%}
    {{ return({'key': auto_cdc._q(keys[0]), 'slots': slots}) }}
  {%- endfor -%}
{% endmacro %}

{#- The list: the keys comma-separated. The bitmap: its 64-bit words comma-separated, from each word's
    bits (w, v) in order, every word no key sets written as 0. -#}
{% macro spark__target_key_filter_sql(args) %}
  {%- set f = auto_cdc._spark_key_filter(args) -%}
  {%- if not f -%}{{ return(none) }}{%- endif -%}
  {%- if f.list -%}{{ return("concat_ws(',', collect_list(cast(" ~ f.key ~ ' as string)))') }}{%- endif -%}
  {%- set words = (f.slots + 63) // 64 -%}
  {%- set sql -%}
(select if(size(ws) = 0, concat('0', repeat(',0', {{ words - 1 }})), concat(
    array_join(transform(ws, (x, j) -> concat(repeat('0,', cast(x.w - if(j = 0, -1, ws[j - 1].w) - 1 as int)), cast(x.v as string))), ','),
    repeat(',0', cast({{ words - 1 }} - ws[size(ws) - 1].w as int))))
  from (select array_sort(collect_list(struct(w, v))) as ws
        from (select cast(div(p, 64) as int) as w, bit_or(shiftleft(cast(1 as bigint), cast(p % 64 as int))) as v
              from (select pmod({{ f.key }}, {{ f.slots }}) as p from {{ args.rel.temp.affected }}) as k
              group by 1) as g) as a)
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{% macro spark__target_key_filter(args, value) %}
  {%- set f = auto_cdc._spark_key_filter(args) -%}
  {%- if f.list -%}{{ return('t.' ~ f.key ~ ' in (' ~ value ~ ')') }}{%- endif -%}
  {%- set p = 'pmod(t.' ~ f.key ~ ', ' ~ f.slots ~ ')' -%}
  {{ return("(shiftright(get(cast(split('" ~ value ~ "', ',') as array<bigint>), cast(div(" ~ p ~ ', 64) as int)), cast('
            ~ p ~ ' % 64 as int)) & 1) = 1') }}
{% endmacro %}


{#- The target's rows of the affected keys, read once (incremental runs: the first run has no target).
    An SCD2 key on the fast path contributes its open version only: the fast path never changes a
    closed version, so reading them would make the run's cost grow with the key's history. Where the
    run reads them before it sorts its keys into paths (args.path.held_first, SCD type 1), the keys
    are the new events'. Where the log tells them (args.path.held_from_log), the target is not read. -#}
{% macro held_rows_sql(args) %}
  {%- if args.path.get('held_from_log') -%}{{ return(auto_cdc._held_from_log_sql(args)) }}{%- endif -%}
  {{ return(adapter.dispatch('held_rows_sql', 'auto_cdc')(args)) }}
{% endmacro %}

{% macro default__held_rows_sql(args, conditions=[]) %}
  {%- set n = auto_cdc._names() -%}
  {%- set where = conditions + (['not a.' ~ auto_cdc._q(n.fast) ~ ' or t.' ~ auto_cdc._q(n.end_at) ~ ' is null']
                                if args.path.fast_path and args.cfg.scd == 2 else []) -%}
  {%- set keys_at_most = auto_cdc._affected_keys_at_most(args) -%}
  {%- set keys = args.cfg.key_columns -%}
{%- if args.path.held_first %}
with touched as (
  select distinct {{ auto_cdc._cols(keys) }} from {{ args.rel.temp.new }} where {{ auto_cdc._q(n.op) }} <> '{{ n.truncate }}'
)
{%- endif %}
select {{ auto_cdc.broadcast_hint(['a'], keys_at_most, (keys | length) + 1) }}{{ auto_cdc._cols(args.plan.target_columns, 't') }}
  {%- if args.path.fast_path %}, a.{{ auto_cdc._q(n.fast) }}{% endif %}
from {{ args.rel.target }} t
{%- if args.path.held_first %}
join {{ auto_cdc.in_key_order('touched', keys) }} a on {{ auto_cdc._eq(keys, 't', 'a') }}
{%- else %}
join {{ args.rel.temp.affected }} a on {{ auto_cdc._eq(keys, 't', 'a') }}
{%- endif %}
{%- if where %}
where ({{ where | join(') and (') }})
{%- endif %}
{% endmacro %}

{#- The affected keys' target rows, read from their buckets only (a literal list prunes the rest); Delta
    tables are not bucketed. -#}
{% macro spark__held_rows_sql(args) %}
  {%- if auto_cdc._spark_has_merge() -%}{{ return(auto_cdc.default__held_rows_sql(args)) }}{%- endif -%}
  {%- set n = auto_cdc._names() -%}
  {% do auto_cdc._spark_bucket_settings() %}
  {%- set buckets = auto_cdc._spark_bucket_list('select distinct ' ~ auto_cdc._spark_bucket_expr(args) ~ ' from ' ~ args.rel.temp.affected) -%}
{{ auto_cdc.default__held_rows_sql(args, ['t.' ~ auto_cdc._q(n.bucket) ~ ' in (' ~ ((buckets or [-1]) | join(', ')) ~ ')']) }}
{% endmacro %}


{#- The run's new events into the log. -#}
{% macro append_to_log_sql(args, run_id) %}
  {{ return(adapter.dispatch('append_to_log_sql', 'auto_cdc')(args, run_id)) }}
{% endmacro %}

{% macro default__append_to_log_sql(args, run_id) %}
  {%- set n = auto_cdc._names() -%}
insert into {{ args.rel.log }} ({{ auto_cdc._cols(args.plan.stored) }}, {{ auto_cdc._q(n.op) }}, {{ auto_cdc._q(n.run) }}, {{ auto_cdc._q(n.fingerprint) }})
select {{ auto_cdc._cols(args.plan.stored) }}, {{ auto_cdc._q(n.op) }}, {{ run_id }}, {{ auto_cdc._logged_fingerprint_sql(args) }}
from {{ args.rel.temp.new }}
{% endmacro %}

{#- Parquet: each event with its bucket; Delta tables are not bucketed. -#}
{% macro spark__append_to_log_sql(args, run_id) %}
  {%- if auto_cdc._spark_has_merge() -%}{{ return(auto_cdc.default__append_to_log_sql(args, run_id)) }}{%- endif -%}
  {%- set n = auto_cdc._names() -%}
insert into {{ args.rel.log }} ({{ auto_cdc._cols(args.plan.stored) }}, {{ auto_cdc._q(n.op) }}, {{ auto_cdc._q(n.run) }}, {{ auto_cdc._q(n.fingerprint) }}, {{ auto_cdc._q(n.bucket) }})
select {{ auto_cdc._cols(args.plan.stored) }}, {{ auto_cdc._q(n.op) }}, {{ run_id }}, {{ auto_cdc._logged_fingerprint_sql(args) }}, {{ auto_cdc._spark_bucket_expr(args) }}
from {{ args.rel.temp.new }}
{% endmacro %}


{#- An upsert's fingerprint in the log (row_fingerprint_sql): of its output columns, the values its
    row in the target holds (a column the model no longer returns is NULL there and left out). -#}
{% macro _logged_fingerprint_sql(args) %}
  {%- set n = auto_cdc._names() -%}
  {%- set columns = [] -%}
  {%- for c in args.plan.output if c in args.plan.stored -%}{%- do columns.append(c) -%}{%- endfor -%}
  {{ return('case when ' ~ auto_cdc._q(n.op) ~ " = '" ~ n.upsert ~ "' then " ~ auto_cdc.row_fingerprint_sql(columns) ~ ' end') }}
{% endmacro %}


{#- Step 2: append the new events to the log. Bitemporal: an event learned again at an earlier system
    time replaces the logged one. -#}
{% macro log_new_events(args, run_id) %}
  {{ return(adapter.dispatch('log_new_events', 'auto_cdc')(args, run_id)) }}
{% endmacro %}

{% macro default__log_new_events(args, run_id) %}
  {%- if args.cfg.scd == 'bitemporal' -%}
    {% do auto_cdc._run_sql(auto_cdc.delete_matching_sql(args.rel.log, args.rel.temp.new, auto_cdc._eq(args.cfg.key_columns + args.cfg.seq_columns, 'l', 'b'))) %}
  {%- endif -%}
  {% do auto_cdc._run_sql(auto_cdc.append_to_log_sql(args, run_id)) %}
{% endmacro %}

{#- Step 2 on parquet: appends are plain inserts; bitemporal, where a new event replaces a logged
    one learned later, rewrites the buckets of the new events with the log's other rows plus them
    (never empty: the new events are in them). -#}
{% macro spark__log_new_events(args, run_id) %}
  {%- if args.cfg.scd != 'bitemporal' or auto_cdc._spark_has_merge() -%}
    {{ return(auto_cdc.default__log_new_events(args, run_id)) }}
  {%- endif -%}
  {%- set n = auto_cdc._names() -%}
  {% do auto_cdc._spark_bucket_settings() %}
  {%- set buckets = auto_cdc._spark_bucket_list('select distinct ' ~ auto_cdc._spark_bucket_expr(args) ~ ' from ' ~ args.rel.temp.new) -%}
  {%- if not buckets -%}{{ return(none) }}{%- endif -%}
  {%- set columns = args.plan.stored + [n.op, n.run] -%}
  {%- set l, b = auto_cdc._alias('l'), auto_cdc._alias('b') -%}
  {%- set sql -%}
select {{ auto_cdc._cols(columns, l) }}, {{ l }}.{{ auto_cdc._q(n.bucket) }}
from {{ args.rel.log }} {{ l }}
where {{ l }}.{{ auto_cdc._q(n.bucket) }} in ({{ buckets | join(', ') }})
  and not exists (
    select 1 from {{ args.rel.temp.new }} {{ b }} where {{ auto_cdc._eq(args.cfg.key_columns + args.cfg.seq_columns, l, b) }}
  )
union all
select {{ auto_cdc._cols(args.plan.stored) }}, {{ auto_cdc._q(n.op) }}, {{ run_id }}, {{ auto_cdc._spark_bucket_expr(args) }}
from {{ args.rel.temp.new }}
  {%- endset -%}
  {% do auto_cdc._spark_overwrite_buckets(args.rel.log, columns + [n.bucket], sql, []) %}
{% endmacro %}


{#- Delete the rows of `relation` (alias l) that match a row of `source` (alias b) by the condition `on`. -#}
{% macro delete_matching_sql(relation, source, on) %}
  {{ return(adapter.dispatch('delete_matching_sql', 'auto_cdc')(relation, source, on)) }}
{% endmacro %}

{% macro default__delete_matching_sql(relation, source, on) %}
delete from {{ relation }} as l using {{ source }} as b where {{ on }}
{% endmacro %}

{#- Spark (Delta) has no DELETE ... USING: a MERGE whose only action deletes, which takes several
    source rows matching one row. -#}
{% macro spark__delete_matching_sql(relation, source, on) %}
merge into {{ relation }} as l using {{ source }} as b on {{ on }} when matched then delete
{% endmacro %}


{#- Step 5: remove the stale rows from the target and insert the missing ones. `counts`: how many there
    are, where the run read them before the write (_change_counts); only `at_most` where the write
    counts them itself (merge_returns_counts: it returns the counts); else none. -#}
{% macro write_changes(args, counts=none) %}
  {{ return(adapter.dispatch('write_changes', 'auto_cdc')(args, counts)) }}
{% endmacro %}

{#- One MERGE on the row key (_row_key): a missing row replaces the stale row with its row key (an
    update) or is inserted; a stale row no missing row replaces is deleted. -#}
{% macro default__write_changes(args, counts) %}
  {% do auto_cdc._run_sql(auto_cdc.merge_changes_sql(args, counts)) %}
{% endmacro %}

{#- Postgres, where a key holds several rows (SCD type 2, bitemporal): most missing rows are new versions.
    The MERGE probed the target's key index for each of them, though none has its row key there: a missing
    row's row key is in the target only on a stale row (the held rows are every row of the affected keys,
    and of an SCD2 key on the fast path its open version, where its new versions start after every one it
    holds: paths.sql). So the MERGE takes the missing rows that replace a stale row and the stale rows
    to delete, and the other missing rows are inserted, in one round trip (SCD2, 100,000 events into
    5,000,000 rows: docs/benchmarks.md). With one row a key (SCD type 1) nearly every missing row
    replaces one: the one MERGE. -#}
{% macro postgres__write_changes(args, counts) %}
  {%- if args.cfg.scd == 1 -%}
    {{ return(auto_cdc.default__write_changes(args, counts)) }}
  {%- endif -%}
  {%- set pk = auto_cdc._row_key(args) -%}
  {%- set s, m = auto_cdc._alias('s'), auto_cdc._alias('m') -%}
  {% do auto_cdc._run_statements([
       auto_cdc.merge_changes_sql(args, counts, inserts=false),
       'insert into ' ~ args.rel.target ~ ' (' ~ auto_cdc._cols(args.plan.target_columns) ~ ') select '
         ~ auto_cdc._cols(args.plan.target_columns, m) ~ ' from ' ~ args.rel.temp.missing ~ ' ' ~ m
         ~ ' where not exists (select 1 from ' ~ args.rel.temp.stale ~ ' ' ~ s ~ ' where ' ~ auto_cdc._eq(pk, s, m) ~ ')']) %}
{% endmacro %}

{#- DuckDB: the target's rows with the row key of a stale or a missing row are deleted, then the missing
    rows inserted (one round trip). The same rows as the MERGE, but an UPDATE of rows spread over the
    table makes DuckDB's checkpoint rewrite every row group it touched (a batch's keys touch most of
    them), where a delete only marks rows and an insert appends: 100,000 rows written into a
    10,000,000-row table took 4.7 s with the MERGE and its commit, 0.3 s this way with a checkpoint
    (docs/benchmarks.md). -#}
{% macro duckdb__write_changes(args, counts) %}
  {%- set pk = auto_cdc._row_key(args) -%}
  {%- set x = auto_cdc._alias('x') -%}
  {% do auto_cdc._run_statements([
       'delete from ' ~ args.rel.target ~ ' as t using (select ' ~ auto_cdc._cols(pk) ~ ' from ' ~ args.rel.temp.stale
         ~ ' union select ' ~ auto_cdc._cols(pk) ~ ' from ' ~ args.rel.temp.missing ~ ') as ' ~ x ~ ' where ' ~ auto_cdc._eq(pk, 't', x),
       'insert into ' ~ args.rel.target ~ ' (' ~ auto_cdc._cols(args.plan.target_columns) ~ ') select '
         ~ auto_cdc._cols(args.plan.target_columns) ~ ' from ' ~ args.rel.temp.missing]) %}
{% endmacro %}

{#- Step 5 on parquet: the new contents of every bucket that holds a stale or a missing row (its
    rows that are not stale, plus the missing rows) are staged in a table, then those buckets are
    overwritten from it; a bucket left with no row is dropped. With MERGE (delta, iceberg, hudi): the
    other engines' one MERGE, so that a run is one commit of the target (and one version of its
    change data feed). -#}
{% macro spark__write_changes(args, counts) %}
  {%- set n = auto_cdc._names() -%}
  {%- set cols = args.plan.target_columns -%}
  {%- set keys = args.cfg.key_columns -%}
  {%- if auto_cdc._spark_has_merge() -%}
    {#- a MERGE with nothing to write still costs its jobs: an INSERT returns no rows here, so the run
        counted its changes before the write and skips it; or Delta's MERGE counts them itself
        (merge_returns_counts), and one with an empty source commits nothing there -#}
    {%- set counted = 'upserted' in counts -%}
    {%- if counted and counts.upserted + counts.removed == 0 -%}{{ return(none) }}{%- endif -%}
    {%- if config.get('change_data_feed', false) and auto_cdc._spark_format() == 'delta' -%}
      {%- if not auto_cdc._spark_cdf_enabled(args.rel.target) -%}
        {% do auto_cdc._run_sql('alter table ' ~ args.rel.target ~ " set tblproperties ('delta.enableChangeDataFeed' = 'true')") %}
      {%- endif -%}
    {%- endif -%}
    {%- if counted -%}{{ return(auto_cdc.default__write_changes(args, counts)) }}{%- endif -%}
    {%- set row = auto_cdc._query(auto_cdc.merge_changes_sql(args, counts)).rows[0] -%}
    {%- set updated, deleted, inserted = row[1] | int, row[2] | int, row[3] | int -%}
    {{ return({'upserted': updated + inserted, 'removed': updated + deleted, 'deleted': deleted}) }}
  {%- endif -%}
  {% do auto_cdc._spark_bucket_settings() %}
  {%- set buckets = auto_cdc._spark_bucket_list('select ' ~ auto_cdc._spark_bucket_expr(args) ~ ' from ' ~ args.rel.temp.stale
        ~ ' union select ' ~ auto_cdc._spark_bucket_expr(args) ~ ' from ' ~ args.rel.temp.missing) -%}
  {%- if not buckets -%}{{ return(none) }}{%- endif -%}
  {%- set rewrite = auto_cdc._temp_relation(args.rel.target, n.rewrite_suffix) -%}
  {%- set t, s = auto_cdc._alias('t'), auto_cdc._alias('s') -%}
  {%- set sql -%}
select {{ auto_cdc._cols(cols, t) }}, {{ t }}.{{ auto_cdc._q(n.bucket) }}
from {{ args.rel.target }} {{ t }}
where {{ t }}.{{ auto_cdc._q(n.bucket) }} in ({{ buckets | join(', ') }})
  and not exists (
    select 1 from {{ args.rel.temp.stale }} {{ s }} where {{ auto_cdc._eq(keys, t, s) }} and {{ auto_cdc._same(cols, t, s) }}
  )
union all
select {{ auto_cdc._cols(cols) }}, {{ auto_cdc._spark_bucket_expr(args) }}
from {{ args.rel.temp.missing }}
  {%- endset -%}
  {% do auto_cdc._run_sql(auto_cdc.drop_temp_table_sql(rewrite)) %}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(rewrite, sql)) %}
  {%- set kept = auto_cdc._spark_bucket_list('select distinct ' ~ auto_cdc._q(n.bucket) ~ ' from ' ~ rewrite) -%}
  {%- set emptied = [] -%}
  {%- for b in buckets if b not in kept -%}{%- do emptied.append(b) -%}{%- endfor -%}
  {% do auto_cdc._spark_overwrite_buckets(args.rel.target, cols + [n.bucket],
        'select ' ~ auto_cdc._cols(cols + [n.bucket]) ~ ' from ' ~ rewrite, emptied) %}
  {% do auto_cdc._run_sql(auto_cdc.drop_temp_table_sql(rewrite)) %}
{% endmacro %}


{#- With change_data_feed: record the changes of a run that changed the target (the caller checks);
    returns the run's commit version (the run log keeps it). -#}
{% macro record_changes(args) %}
  {{ return(adapter.dispatch('record_changes', 'auto_cdc')(args)) }}
{% endmacro %}

{#- Into the change feed table beside the target (macros/builders/changes.sql). -#}
{% macro default__record_changes(args) %}
  {{ return(auto_cdc._record_changes(args)) }}
{% endmacro %}

{#- Delta: the table's own change data feed (delta.enableChangeDataFeed) has recorded the run's MERGE
    already; the run's commit version is that commit's table version. A target created before
    change_data_feed was set gets the property first (spark__write_changes). -#}
{% macro spark__record_changes(args) %}
  {%- if not auto_cdc._spark_has_merge() -%}{{ return(auto_cdc._record_changes(args)) }}{%- endif -%}
  {{ return(auto_cdc._query('describe history ' ~ args.rel.target ~ ' limit 1').columns['version'].values()[0] | int) }}
{% endmacro %}


{#- Whether the change data feed is a table beside the target (<target>__auto_cdc_changes), rather
    than the target's own. -#}
{% macro keeps_change_table() %}
  {{ return(adapter.dispatch('keeps_change_table', 'auto_cdc')()) }}
{% endmacro %}

{% macro default__keeps_change_table() %}
  {{ return(true) }}
{% endmacro %}

{#- Delta: the target's own change data feed. -#}
{% macro spark__keeps_change_table() %}
  {{ return(not auto_cdc._spark_has_merge()) }}
{% endmacro %}


{#- Whether the engine's targets can be edited by hand, so that a run must look for edits. -#}
{% macro takes_hand_edits() %}
  {{ return(adapter.dispatch('takes_hand_edits', 'auto_cdc')()) }}
{% endmacro %}

{% macro default__takes_hand_edits() %}
  {{ return(true) }}
{% endmacro %}

{#- Spark on parquet: tables take no UPDATE or DELETE, so hand edits cannot happen (docs/spark.md);
    Delta tables take them. -#}
{% macro spark__takes_hand_edits() %}
  {{ return(auto_cdc._spark_has_merge()) }}
{% endmacro %}


{#- The rows of `rows` (the target's columns) that `other` does not hold, every column compared
    NULL-safely: the stale rows (held, not desired) and the missing ones (desired, not held). Reserved
    aliases (_alias): Spark resolves `h.x` in a correlated subquery against a column named `h` of the
    inner table first. -#}
{% macro unmatched_rows_sql(args, rows, other) %}
  {{ return(adapter.dispatch('unmatched_rows_sql', 'auto_cdc')(args, rows, other)) }}
{% endmacro %}

{% macro default__unmatched_rows_sql(args, rows, other) %}
  {%- set r, o = auto_cdc._alias('r'), auto_cdc._alias('o') -%}
select {{ auto_cdc._cols(args.plan.target_columns, r) }}
from {{ rows }} {{ r }}
where not exists (
  select 1 from {{ other }} {{ o }}
  where {{ auto_cdc._eq(args.cfg.key_columns, o, r) }}
    and {{ auto_cdc._same(args.plan.target_columns, o, r) }}
)
{% endmacro %}

{#- DuckDB: an outer join, kept where nothing matched (a matched row's key is not NULL). DuckDB plans
    the NOT EXISTS with a NULL-safe comparison as a join against the distinct rows of the outer side,
    which took twice as long (0.62 s against 0.33 s for 1,980,000 rows against 990,000). -#}
{% macro duckdb__unmatched_rows_sql(args, rows, other) %}
  {%- set r, o = auto_cdc._alias('r'), auto_cdc._alias('o') -%}
select {{ auto_cdc._cols(args.plan.target_columns, r) }}
from {{ rows }} {{ r }}
left join {{ other }} {{ o }}
  on {{ auto_cdc._eq(args.cfg.key_columns, o, r) }}
  and {{ auto_cdc._same(args.plan.target_columns, o, r) }}
where {{ o }}.{{ auto_cdc._q(args.cfg.key_columns[0]) }} is null
{% endmacro %}
