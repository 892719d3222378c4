{#-
  compact: bound a model's state. Removes the events and tombstones at or below a sequence value
  (the retention horizon) that can no longer change the target, and records the horizon in the run
  log: a writer like a run (writer.sql), in one transaction under the model's lock (locking.sql).

    dbt run-operation auto_cdc.compact --args '{model: customers, older_than: 1000}'

  From then on an event at or below the horizon is ignored by every run (counted among the run's
  ignored events): its key's history before the horizon is gone, so it could not be placed in it.
  What is removed, per shape (docs/operations.md "Bounded state: compaction"):
    - SCD1: per key, every event at or below the horizon but its latest one, and that one too when
      it is a delete (the tombstone: the horizon keeps out the late events it kept out); the
      events a truncate at or below the horizon voids, and those truncates;
    - SCD2: per key, the events that neither open, end nor finish a version: an upsert absorbed
      into its version between two others of it (at or below the horizon), and a delete that
      follows no upsert. The versions, closed or open, replay exactly as before.
  Keys whose hand edits were folded into the log keep their events. Bitemporal targets, partial
  updates and multi-column sequences are refused (their rules need the whole history or a typed
  multi-column horizon).
-#}
{% macro compact(model, older_than=none) %}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._operation_model('compact', model, ['auto_cdc']) -%}
  {%- set head, log_rel, runs_rel = op.head, op.log, op.runs -%}
  {%- for rel in [op.target, log_rel, runs_rel] if not auto_cdc._exists(rel) -%}
    {%- do exceptions.raise_compiler_error(head ~ rel ~ " does not exist; run the model first") -%}
  {%- endfor -%}
  {% do auto_cdc._check_deletes_supported('compact', op.target) %}
  {%- set shape = auto_cdc._compaction_shape(op.node, adapter.get_columns_in_relation(log_rel)) -%}
  {%- set problems = shape.problems -%}
  {%- set horizon = auto_cdc._horizon_sql(older_than, shape, problems) -%}
  {%- if problems -%}
    {%- do exceptions.raise_compiler_error(head ~ "cannot compact:\n  - " ~ (problems | join('\n  - '))) -%}
  {%- endif -%}

  {#- the model's lock (writer.sql): a compaction waits for a run of the model, and a run for it -#}
  {%- set held = auto_cdc.writer_lock(op.target, model, op.lock_timeout, op.statement_timeout) -%}
  {%- set runs_columns = adapter.get_columns_in_relation(runs_rel) | map(attribute='name') | map('lower') | list -%}
  {%- set s = auto_cdc._q(shape.seq) -%}
  {%- set checks = ['(select max(' ~ s ~ ') from ' ~ log_rel ~ " where " ~ auto_cdc._q(n.op) ~ " in ('" ~ n.upsert ~ "', '" ~ n.delete ~ "', '" ~ n.truncate ~ "'))",
                    '(select count(*) from ' ~ log_rel ~ ')',
                    horizon] -%}
  {%- if 'horizon' in runs_columns -%}
    {%- do checks.append('(select max(horizon) from ' ~ runs_rel ~ ')') -%}
  {%- endif -%}
  {%- set facts = auto_cdc._query('select ' ~ (checks | join(', '))).rows[0] -%}
  {%- set current = facts[3] if facts | length > 3 else none -%}
  {%- if facts[0] is none -%}
    {%- do exceptions.raise_compiler_error(head ~ "the log holds no event yet; nothing to compact") -%}
  {%- elif facts[2] > facts[0] -%}
    {%- do exceptions.raise_compiler_error(head ~ "older_than " ~ older_than ~ " is above the greatest sequence value applied ("
          ~ facts[0] ~ "); every later event at or below it would be ignored. Compact older events only") -%}
  {%- endif -%}
  {%- if current is not none and facts[2] < current -%}
    {%- do exceptions.raise_compiler_error(head ~ "older_than " ~ older_than ~ " is below the model's horizon (" ~ current
          ~ "); the horizon only moves forward") -%}
  {%- endif -%}
  {%- set args = {'log': log_rel, 'key_columns': shape.key_columns, 'seq': shape.seq, 'compared': shape.compared, 'horizon': horizon} -%}
  {% do auto_cdc._run_sql(auto_cdc.compact_scd1_sql(args) if shape.scd == 1 else auto_cdc.compact_scd2_sql(args)) %}
  {%- if shape.scd == 1 -%}
    {% do auto_cdc._run_sql('delete from ' ~ log_rel ~ ' where ' ~ auto_cdc._q(n.op) ~ " = '" ~ n.truncate ~ "' and " ~ s ~ ' <= ' ~ horizon) %}
  {%- endif -%}
  {%- set left = auto_cdc._scalar('select count(*) from ' ~ log_rel) | int -%}
  {% do auto_cdc._run_statements(auto_cdc._operation_run_sql(runs_rel, runs_columns, 'compact', extra=[('horizon', shape.seq_type, horizon)])) %}
  {% do auto_cdc.writer_done() %}
  {% do auto_cdc.writer_commit(held) %}
  {% do log("auto_cdc.compact " ~ model ~ ": horizon " ~ older_than ~ ", removed " ~ ((facts[1] | int) - left)
            ~ " of " ~ (facts[1] | int) ~ " log row(s)", info=true) %}
{% endmacro %}


{#- The horizon as SQL, `older_than` cast to the sequence column's type; a problem when it is missing
    or not a value of that type. A number for a numeric sequence may be written as an integer, a decimal
    or with an exponent (`1e3`); for an integer sequence it must be a whole number, which the cast
    then takes exactly (`1.5` is no integer: it is refused, never rounded). -#}
{% macro _horizon_sql(older_than, shape, problems) %}
  {%- set text = (older_than | string | trim) if older_than is not none else '' -%}
  {%- if text == '' -%}
    {%- do problems.append("give `older_than`, a value of the sequence column '" ~ (shape.seq or 'sequence_by') ~ "': events at or below it are compacted") -%}
    {{ return(none) }}
  {%- endif -%}
  {%- if not shape.seq_type -%}{{ return(none) }}{%- endif -%}
  {%- if not auto_cdc._is_numeric_type(shape.seq_type) -%}
    {{ return("cast('" ~ (text | replace("'", "''")) ~ "' as " ~ shape.seq_type ~ ")") }}
  {%- endif -%}
  {%- set m = modules.re.match('^([+-]?)([0-9]*)(?:\\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$', text) -%}
  {%- set whole = auto_cdc._whole_number(m) if m and (m.group(2) or m.group(3)) else none -%}
  {%- if not m or not (m.group(2) or m.group(3)) or (auto_cdc._is_integer_type(shape.seq_type) and whole is none) -%}
    {%- do problems.append("older_than: '" ~ older_than ~ "' is not a value of the sequence column '" ~ shape.seq ~ "' (" ~ shape.seq_type ~ ")") -%}
    {{ return(none) }}
  {%- endif -%}
  {{ return('cast(' ~ (whole if auto_cdc._is_integer_type(shape.seq_type) else text) ~ ' as ' ~ shape.seq_type ~ ')') }}
{% endmacro %}

{#- The whole number a match of (sign)(digits).(digits)e(exponent) writes, in plain digits; none when
    it has a fraction. -#}
{% macro _whole_number(m) %}
  {%- set digits = (m.group(2) or '') ~ (m.group(3) or '') -%}
  {%- set shift = (m.group(4) or '0') | int - (m.group(3) or '') | length -%}
  {%- if shift >= 0 -%}
    {%- set digits = digits ~ ('0' * shift) -%}
  {%- elif digits[shift:] | replace('0', '') != '' -%}
    {{ return(none) }}
  {%- else -%}
    {%- set digits = digits[:shift] -%}
  {%- endif -%}
  {%- set digits = digits.lstrip('0') or '0' -%}
  {{ return(('-' if m.group(1) == '-' and digits != '0' else '') ~ digits) }}
{% endmacro %}


{#- What compaction needs to know of the model, read from its config and its log's columns (a
    run-operation has no model context to resolve the config in): its shape, key and sequence
    columns, and the columns whose change opens an SCD2 version. When the config's lists name
    columns the log no longer holds, more columns count as tracked, never fewer: compaction then
    removes less, never a version's start. -#}
{% macro _compaction_shape(node, log_columns) %}
  {%- set n = auto_cdc._names() -%}
  {%- set cfg = node.config -%}
  {%- set problems = [] -%}
  {%- set types = {} -%}
  {%- set columns = [] -%}
  {%- for c in log_columns if not (c.name | lower).startswith(n.internal_prefix | lower) -%}
    {%- do columns.append(c.name) -%}
    {%- do types.update({c.name: c.data_type}) -%}
  {%- endfor -%}
  {%- set scd = auto_cdc._scd_type(cfg.get('stored_as_scd_type', 1), problems) -%}
  {%- if scd == 'bitemporal' -%}
    {%- do problems.append("bitemporal targets are a record of what was known when: every event stays") -%}
  {%- endif -%}
  {%- for name in ['columns_to_update', 'ignore_null_updates', 'ignore_null_updates_column_list', 'ignore_null_updates_except_column_list']
        if cfg.get(name) -%}
    {%- do problems.append(name ~ ": a partial update's row depends on every event since the key's last delete") -%}
  {%- endfor -%}
  {%- set keys = [] -%}
  {%- for k in auto_cdc._as_list(cfg.get('keys')) or [] -%}{%- do keys.append(auto_cdc._resolve_column(k, columns) or k) -%}{%- endfor -%}
  {%- set seqs = [] -%}
  {%- for s in auto_cdc._as_list(cfg.get('sequence_by')) or [] -%}{%- do seqs.append(auto_cdc._resolve_column(s, columns) or s) -%}{%- endfor -%}
  {%- if seqs | length != 1 -%}
    {%- do problems.append("sequence_by: compaction takes one sequence column (the model has " ~ (seqs | join(', ') or 'none') ~ ")") -%}
  {%- endif -%}
  {%- set excluded = [] -%}
  {%- for c in auto_cdc._as_list(cfg.get('except_column_list')) or [] if auto_cdc._resolve_column(c, columns) -%}
    {%- do excluded.append(auto_cdc._resolve_column(c, columns)) -%}
  {%- endfor -%}
  {%- set output = [] -%}
  {%- for c in columns if c not in excluded -%}{%- do output.append(c) -%}{%- endfor -%}
  {%- set tracked = output -%}
  {%- if cfg.get('track_history_column_list') is not none -%}
    {%- set tracked = [] -%}
    {%- for c in auto_cdc._as_list(cfg.get('track_history_column_list')) if auto_cdc._resolve_column(c, columns) -%}
      {%- do tracked.append(auto_cdc._resolve_column(c, columns)) -%}
    {%- endfor -%}
    {#- columns the model no longer returns are kept in the log: count them as tracked -#}
    {%- for c in columns if c not in output and c not in seqs -%}{%- do tracked.append(c) -%}{%- endfor -%}
  {%- elif cfg.get('track_history_except_column_list') is not none -%}
    {%- set untracked = auto_cdc._as_list(cfg.get('track_history_except_column_list')) | map('lower') | list -%}
    {%- set tracked = [] -%}
    {%- for c in output if (c | lower) not in untracked -%}{%- do tracked.append(c) -%}{%- endfor -%}
  {%- endif -%}
  {%- set compared = [] -%}
  {%- for c in tracked if c not in keys and c not in compared -%}{%- do compared.append(c) -%}{%- endfor -%}
  {%- set seq = seqs[0] if seqs | length == 1 else none -%}
  {{ return({'scd': scd, 'key_columns': keys, 'seq': seq, 'seq_type': types.get(seq) if seq else none,
             'compared': compared, 'problems': problems}) }}
{% endmacro %}


{% macro _is_numeric_type(type_name) %}
  {%- set t = (type_name or '') | lower -%}
  {{ return(t.startswith('int') or t.startswith('bigint') or t.startswith('smallint') or t.startswith('tinyint')
            or t.startswith('hugeint') or t.startswith('numeric') or t.startswith('decimal') or t.startswith('double')
            or t.startswith('real') or t.startswith('float') or t.startswith('ubigint') or t.startswith('uinteger')) }}
{% endmacro %}


{% macro _is_integer_type(type_name) %}
  {%- set t = (type_name or '') | lower -%}
  {{ return(t.startswith('int') or t.startswith('bigint') or t.startswith('smallint') or t.startswith('tinyint')
            or t.startswith('hugeint') or t.startswith('ubigint') or t.startswith('uinteger') or t.startswith('usmallint')
            or t.startswith('utinyint') or t.startswith('uhugeint')) }}
{% endmacro %}


{#- The log rows of keys whose hand edits were folded in (a mask) are kept as they are. -#}
{% macro _unmasked_events_sql(args) -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
select e.* from {{ args.log }} e
where e.{{ op }} in ('{{ n.upsert }}', '{{ n.delete }}')
  and not exists (
    select 1 from {{ args.log }} m where m.{{ op }} = '{{ n.mask }}' and {{ auto_cdc._eq(args.key_columns, 'm', 'e') }}
  )
{%- endmacro %}


{#- Delete the log events listed by `gone` (key and sequence; an upsert or delete at a key and
    sequence is one event). -#}
{% macro _delete_events_sql(args, gone) -%}
  {%- set n = auto_cdc._names() -%}
delete from {{ args.log }} as l
using (
{{ gone }}
) g
where {{ auto_cdc._eq(args.key_columns + [args.seq], 'l', 'g') }}
  and l.{{ auto_cdc._q(n.op) }} in ('{{ n.upsert }}', '{{ n.delete }}')
{%- endmacro %}


{#- SCD1: a key's row is its latest event's (scd1.sql): below it, nothing counts. The latest one at
    or below the horizon stays when it is an upsert (later events may not come); a delete there goes,
    since the horizon now keeps out what it kept out. Events a truncate at or below the horizon
    voids go too (the truncates themselves are deleted next). -#}
{% macro compact_scd1_sql(args) %}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set s = auto_cdc._q(args.seq) -%}
  {%- set rank = auto_cdc._q(n.rank) -%}
  {%- set gone -%}
select {{ auto_cdc._cols(args.key_columns + [args.seq]) }}
from (
  select e.*, row_number() over (partition by {{ auto_cdc._cols(args.key_columns) }} order by {{ s }} desc) as {{ rank }}
  from ({{ auto_cdc._unmasked_events_sql(args) }}) e
  where {{ s }} <= {{ args.horizon }}
) r
where {{ rank }} > 1 or {{ op }} = '{{ n.delete }}'
   or {{ s }} < (select max(t.{{ s }}) from {{ args.log }} t where t.{{ op }} = '{{ n.truncate }}' and t.{{ s }} <= {{ args.horizon }})
  {%- endset -%}
  {{ return(auto_cdc._delete_events_sql(args, gone)) }}
{% endmacro %}


{#- SCD2 (scd2.sql): a version's row is its first upsert's sequence, its last upsert's values and the
    sequence of the event after that. Walking every event of the key in order, an upsert that opens
    no version, whose next event is an upsert at or below the horizon that opens none either, is
    neither of them; a delete after no upsert closes nothing. Removing them leaves every other
    event's neighbours as they were for the builder (same tracked values, or no upsert before). -#}
{% macro compact_scd2_sql(args) %}
  {%- set n = auto_cdc._names() -%}
  {%- set p = n.internal_prefix -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set s = auto_cdc._q(args.seq) -%}
  {%- set keys = auto_cdc._cols(args.key_columns) -%}
  {%- set is_start = auto_cdc._q(p ~ 'is_start') -%}
  {%- set gone -%}
select {{ auto_cdc._cols(args.key_columns + [args.seq]) }}
from (
  select f.*,
    lag({{ op }}) over w as {{ auto_cdc._q(p ~ 'prev_op') }},
    lead({{ op }}) over w as {{ auto_cdc._q(p ~ 'next_op') }},
    lead({{ s }}) over w as {{ auto_cdc._q(p ~ 'next_seq') }},
    lead({{ is_start }}) over w as {{ auto_cdc._q(p ~ 'next_is_start') }}
  from (
    select e.*,
      case
        when {{ op }} <> '{{ n.upsert }}' then 0
        when lag({{ op }}) over w is null or lag({{ op }}) over w <> '{{ n.upsert }}' then 1
        {%- for c in args.compared %}
        when {{ auto_cdc._q(c) }} is distinct from lag({{ auto_cdc._q(c) }}) over w then 1
        {%- endfor %}
        else 0
      end as {{ is_start }}
    from ({{ auto_cdc._unmasked_events_sql(args) }}) e
    window w as (partition by {{ keys }} order by {{ s }})
  ) f
  window w as (partition by {{ keys }} order by {{ s }})
) v
where {{ s }} <= {{ args.horizon }}
  and (
    ({{ op }} = '{{ n.upsert }}' and {{ is_start }} = 0 and {{ auto_cdc._q(p ~ 'next_op') }} = '{{ n.upsert }}'
     and {{ auto_cdc._q(p ~ 'next_is_start') }} = 0 and {{ auto_cdc._q(p ~ 'next_seq') }} <= {{ args.horizon }})
    or ({{ op }} = '{{ n.delete }}' and ({{ auto_cdc._q(p ~ 'prev_op') }} is null or {{ auto_cdc._q(p ~ 'prev_op') }} <> '{{ n.upsert }}'))
  )
  {%- endset -%}
  {{ return(auto_cdc._delete_events_sql(args, gone)) }}
{% endmacro %}


{#- Whether a run's new events are filtered by a horizon (above_horizon_sql). -#}
{% macro horizon_applies(args) %}
  {%- set runs_columns = (args.cols.types.get('runs') or {}).keys() | map('lower') | list -%}
  {{ return(args.plan.incremental and 'horizon' in runs_columns and args.cfg.seq_columns | length == 1) }}
{% endmacro %}


{#- A run's new events keep only those above the model's horizon, once it has one (a compaction
    added the run log's `horizon` column): an event at or below it would land in a history that is
    no longer there. -#}
{% macro above_horizon_sql(args, sql) %}
  {%- if not auto_cdc.horizon_applies(args) -%}
    {{ return(sql) }}
  {%- endif -%}
  {%- set e = auto_cdc._alias('above') -%}
  {%- set r = auto_cdc._alias('horizon') -%}
  {%- set filtered -%}
select * from (
{{ sql }}
) {{ e }}
where not exists (select 1 from {{ args.rel.runs }} {{ r }} where {{ e }}.{{ auto_cdc._q(args.cfg.seq_columns[0]) }} <= {{ r }}.horizon)
  {%- endset -%}
  {{ return(filtered) }}
{% endmacro %}
