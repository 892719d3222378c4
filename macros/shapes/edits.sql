{#-
  DML on targets. The target is an ordinary table: users may insert, update or
  delete its rows by hand. A run recomputes the keys its new events touch from the event log, so
  before it does, it folds the hand edits of those keys into the log:
    1. `recorded`: the affected keys' rows as the log alone yields them (before this run's events);
    2. `edited`: the affected keys whose rows in the target differ from those;
    3. for each edited key, a mask row (op 'mask', this run's id) hides every event logged before
       this run, and edit events (flagged __auto_cdc_edit) that reproduce the target's rows of the
       key are logged in their place:
       - SCD1: an upsert of the row at its sequence (the row's own when the sequence is an output
         column, else the key's last applied one); a key deleted by hand gets a delete at its last
         applied sequence, a tombstone like any delete (R3);
       - SCD2: an upsert at each row's __START_AT (and at its sequence value when that is an output
         column inside the version), a delete at each __END_AT that no other row starts at, and for
         a key whose rows were all deleted a delete at its last applied sequence; and a copy of each
         masked event that the rows agree with but carry no trace of (a delete where no row is, an
         upsert inside a row with all of its values), so that a later late event still meets it.
  Replayed with the run's new events, edited keys then keep their hand rows, and later events split
  them by sequence like any other version.
  Masked events stay in the log: re-read, they are still recognised as duplicates. A source event
  at the same key and sequence as an edit event replaces it (the feed wins over the placeholder).
  Keys no run touches keep their hand rows untouched. Bitemporal targets are a record of what was
  known when; they take no hand edits (README).
-#}
{% macro fold_target_edits(args, run_id) %}
  {%- if args.cfg.scd == 'bitemporal' or not auto_cdc._engine().hand_edits -%}{{ return(0) }}{%- endif -%}
  {%- set cfg, temp = args.cfg, args.rel.temp -%}
  {%- set n = auto_cdc._names() -%}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(temp.recorded, auto_cdc.replayed_rows_sql(args))) %}
  {%- set edited_sql = auto_cdc.edited_keys_sql(args) -%}
  {%- if args.plan.killed -%}
    {#- keys a killed run logged events for (killed_run_events_sql): their rows are the killed run's to
        write, not hand edits -#}
    {%- set killed = 'select distinct ' ~ auto_cdc._cols(cfg.key_columns) ~ ' from ' ~ args.rel.log ~ ' where ' ~ auto_cdc._q(n.run) ~ ' = ' ~ run_id -%}
    {%- set k, r = auto_cdc._alias('k'), auto_cdc._alias('r') -%}
    {%- set edited_sql = 'select * from (' ~ edited_sql ~ ') ' ~ k ~ ' where not exists (select 1 from (' ~ killed ~ ') ' ~ r ~ ' where '
          ~ auto_cdc._eq(args.cfg.key_columns, r, k) ~ ')' -%}
  {%- endif -%}
  {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(temp.edited, edited_sql)) %}
  {%- set edited = auto_cdc._scalar('select count(*) from ' ~ temp.edited) | int -%}
  {%- if edited > 0 -%}
    {% do auto_cdc._check_edited_rows(args) %}
    {% do auto_cdc._run_sql(auto_cdc.create_temp_table_sql(temp.edits, auto_cdc.edit_events_sql(args))) %}
    {%- set cols = auto_cdc._cols(args.cols.stored) ~ ', ' ~ auto_cdc._q(n.op) -%}
    {%- set insert_edits = ' (' ~ cols ~ ', ' ~ auto_cdc._q(n.run) ~ ', ' ~ auto_cdc._q(n.edit) ~ ') select ' ~ cols ~ ', ' ~ run_id ~ ', true from ' ~ temp.edits -%}
    {% do auto_cdc._run_sql('insert into ' ~ args.rel.log ~ insert_edits) %}
    {% do auto_cdc._run_sql('insert into ' ~ args.rel.log ~ ' (' ~ auto_cdc._cols(cfg.key_columns) ~ ', ' ~ auto_cdc._q(n.op) ~ ', '
          ~ auto_cdc._q(n.run) ~ ') select ' ~ auto_cdc._cols(cfg.key_columns) ~ ", '" ~ n.mask ~ "', " ~ run_id ~ ' from ' ~ temp.edited) %}
    {#- the run's history of the edited keys: the edit events in place of the masked ones -#}
    {% do auto_cdc._run_sql(auto_cdc.delete_matching_sql(args.rel.temp.history, args.rel.temp.edited, auto_cdc._eq(cfg.key_columns, 'l', 'b'))) %}
    {% do auto_cdc._run_sql('insert into ' ~ args.rel.temp.history ~ insert_edits) %}
  {%- endif -%}
  {{ return(edited) }}
{% endmacro %}


{#- A source event replaces an edit event at the same key and sequence (in the log or the run's history;
    only for logs that hold edits). -#}
{% macro drop_replaced_edits_sql(args, relation) %}
  {%- set n = auto_cdc._names() -%}
  {{ return(auto_cdc.delete_matching_sql(relation, args.rel.temp.new,
        'l.' ~ auto_cdc._q(n.edit) ~ ' and ' ~ auto_cdc._eq(args.cfg.key_columns + args.cfg.seq_columns, 'l', 'b'))) }}
{% endmacro %}


{#- Affected keys whose target rows are not the rows the log yields: the keys of the rows whose count
    differs between the two, found by one grouping over both (GROUP BY treats NULLs as equal), which is
    cheaper than anti-joining each side with the other on every column. -#}
{% macro edited_keys_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set cols = auto_cdc._cols(args.cols.target_columns) -%}
  {%- set side = auto_cdc._q(auto_cdc._names().internal_prefix ~ 'side') -%}
select distinct {{ auto_cdc._cols(cfg.key_columns) }} from (
  select {{ cols }}
  from (
    {#- keys on the fast path were checked when they were classified (paths.sql): the replayed keys'
        rows only, by the path the affected keys record (held carries none where it was read first) #}
    {%- if args.plan.classified %}
    select {{ auto_cdc._cols(args.cols.target_columns, 'h') }}, 1 as {{ side }} from {{ args.rel.temp.held }} h
    join {{ args.rel.temp.affected }} a on {{ auto_cdc._eq(cfg.key_columns, 'h', 'a') }}
    where not a.{{ auto_cdc._q(auto_cdc._names().fast) }}
    {%- else %}
    select {{ cols }}, 1 as {{ side }} from {{ args.rel.temp.held }}
    {%- endif %}
    union all
    select {{ cols }}, -1 as {{ side }} from {{ args.rel.temp.recorded }}
  ) both_sides
  group by {{ cols }}
  having sum({{ side }}) <> 0
) differing
{% endmacro %}


{#- Hand rows that cannot be history: two rows of an SCD1 key, two SCD2 versions of a key that start
    at the same sequence, or a version that ends where it starts or before. -#}
{% macro _check_edited_rows(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set start = 't.' ~ auto_cdc._q(n.start_at) -%}
  {%- set end = 't.' ~ auto_cdc._q(n.end_at) -%}
  {%- set sql -%}
    select {{ auto_cdc._cols(cfg.key_columns, 't') }}
    from {{ args.rel.temp.held }} t
    join {{ args.rel.temp.edited }} e on {{ auto_cdc._eq(cfg.key_columns, 't', 'e') }}
    {%- if cfg.scd == 1 %}
    group by {{ auto_cdc._cols(cfg.key_columns, 't') }}
    having count(*) > 1
    {%- else %}
    where {{ start }} is null or ({{ end }} is not null and {{ end }} <= {{ start }})
    {#- versions of a key starting at one sequence: a grouping (hashed), not a correlated subquery, which
        an OR keeps the planner from turning into a join and so rescans held once per edited row -#}
    union
    select {{ auto_cdc._cols(cfg.key_columns) }}
    from (
      select distinct {{ auto_cdc._cols(args.cols.target_columns, 't') }}
      from {{ args.rel.temp.held }} t
      join {{ args.rel.temp.edited }} e on {{ auto_cdc._eq(cfg.key_columns, 't', 'e') }}
    ) versions
    group by {{ auto_cdc._cols(cfg.key_columns + [n.start_at]) }}
    having count(*) > 1
    {%- endif %}
  {%- endset -%}
  {%- set bad = auto_cdc._query(sql) -%}
  {%- if bad.rows | length > 0 -%}
    {%- set shown = [] -%}
    {%- for row in bad.rows[:5] -%}{%- do shown.append(auto_cdc._describe_row(row, cfg.key_columns)) -%}{%- endfor -%}
    {%- do exceptions.raise_database_error("auto_cdc model '" ~ model.name ~ "': rows edited by hand in " ~ args.rel.target
          ~ (" hold two rows for one key" if cfg.scd == 1 else " are not a valid history (a version without __START_AT, ending where it starts or before, or two versions starting at the same sequence)")
          ~ ", for " ~ (bad.rows | length) ~ " key(s): " ~ (shown | join(', ')) ~ "; fix them, then run again") -%}
  {%- endif -%}
{% endmacro %}


{#- The edit events of the edited keys (see the top of this file). -#}
{% macro edit_events_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set rank = auto_cdc._q(n.rank) -%}
  {%- set seq_in_output = [] -%}
  {%- for c in cfg.seq_columns if c in args.cols.output -%}{%- do seq_in_output.append(c) -%}{%- endfor -%}
  {%- set seq_in_output = (seq_in_output | length) == (cfg.seq_columns | length) -%}
  {%- set last_seq = [] -%}
  {%- for c in cfg.seq_columns -%}{%- do last_seq.append('lt.' ~ auto_cdc._q(c)) -%}{%- endfor -%}
  {%- set visible_sql -%}
    select {{ auto_cdc._cols(cfg.key_columns + cfg.seq_columns) }},
      row_number() over (partition by {{ auto_cdc._cols(cfg.key_columns) }} order by {{ auto_cdc._seq_order(cfg.seq_columns, desc=true) }}) as {{ rank }}
    from ({{ auto_cdc._affected_events_sql(args, args.rel.temp.edited) }}) v
  {%- endset -%}
with last_applied as (
  select * from ({{ visible_sql }}) v where {{ rank }} = 1
),
edit_events as (
  {%- if cfg.scd == 1 %}
  {{ auto_cdc._scd1_edit_events_sql(args, seq_in_output) }}
  {%- else %}
  {{ auto_cdc._history_edit_events_sql(args, seq_in_output, last_seq) }}
  union all
  {{ auto_cdc._agreed_edit_events_sql(args, seq_in_output) }}
  {%- endif %}
)
select distinct {{ auto_cdc._cols(args.cols.stored) }}, {{ op }}
from edit_events x
{# the run's own events win over edit events at the same key and sequence #}
where not exists (
  select 1 from {{ args.rel.temp.new }} b
  where {{ auto_cdc._eq(cfg.key_columns + cfg.seq_columns, 'b', 'x') }}
)
{% endmacro %}


{#- Edit events of SCD1 rows: at the row's own sequence, else the key's last applied one; a deleted key: a
    tombstone there. -#}
{% macro _scd1_edit_events_sql(args, seq_in_output) %}
  {%- set cfg, n = args.cfg, auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  select * from (
    select
    {%- for c in args.cols.stored %}
      {%- if c in cfg.key_columns %} e.{{ auto_cdc._q(c) }}
      {%- elif c in cfg.seq_columns %}
        {%- if seq_in_output %} case when t.{{ auto_cdc._q(cfg.key_columns[0]) }} is not null
          {%- for s in cfg.seq_columns %} and t.{{ auto_cdc._q(s) }} is not null{% endfor %}
          then t.{{ auto_cdc._q(c) }} else lt.{{ auto_cdc._q(c) }} end
        {%- else %} lt.{{ auto_cdc._q(c) }}
        {%- endif %}
      {%- elif c in args.cols.output %} t.{{ auto_cdc._q(c) }}
      {%- else %} {{ auto_cdc._log_typed_null(args, c) }}
      {%- endif %} as {{ auto_cdc._q(c) }},
    {%- endfor %}
      case when t.{{ auto_cdc._q(cfg.key_columns[0]) }} is null then '{{ n.delete }}' else '{{ n.upsert }}' end as {{ op }}
    from {{ args.rel.temp.edited }} e
    left join {{ args.rel.temp.held }} t on {{ auto_cdc._eq(cfg.key_columns, 't', 'e') }}
    left join last_applied lt on {{ auto_cdc._eq(cfg.key_columns, 'lt', 'e') }}
  ) x
  {# a hand row of a key with no history and no sequence of its own sorts before every event #}
  where {{ auto_cdc._q(cfg.seq_columns[0]) }} is not null
{% endmacro %}


{#- Edit events of a history's rows: each version's start (and, where the sequence is shown, its last
    absorbed event), a delete at each end no version follows, and a delete where a key lost every row. -#}
{% macro _history_edit_events_sql(args, seq_in_output, last_seq) %}
  {%- set cfg, n = args.cfg, auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set start, end = 't.' ~ auto_cdc._q(n.start_at), 't.' ~ auto_cdc._q(n.end_at) -%}
  {%- set start_seq = [] -%}{%- set end_seq = [] -%}{%- set own_seq = [] -%}
  {%- for c in cfg.seq_columns -%}
    {%- do start_seq.append(auto_cdc.seq_field_sql(start, c, args)) -%}
    {%- do end_seq.append(auto_cdc.seq_field_sql(end, c, args)) -%}
    {%- do own_seq.append('t.' ~ auto_cdc._q(c)) -%}
  {%- endfor -%}
  {%- set own = auto_cdc.seq_value_sql(own_seq, args) -%}
  {{ auto_cdc._edit_event_sql(args, start_seq, 't', n.upsert) }}
  from {{ args.rel.temp.held }} t join {{ args.rel.temp.edited }} e on {{ auto_cdc._eq(cfg.key_columns, 't', 'e') }}
  {%- if seq_in_output %}
  union all
  {# the version's sequence column shows its last absorbed event: log that event too #}
  {{ auto_cdc._edit_event_sql(args, own_seq, 't', n.upsert) }}
  from {{ args.rel.temp.held }} t join {{ args.rel.temp.edited }} e on {{ auto_cdc._eq(cfg.key_columns, 't', 'e') }}
  where {{ own }} > {{ start }} and ({{ end }} is null or {{ own }} < {{ end }})
  {%- endif %}
  union all
  {{ auto_cdc._edit_event_sql(args, end_seq, none, n.delete) }}
  from {{ args.rel.temp.held }} t join {{ args.rel.temp.edited }} e on {{ auto_cdc._eq(cfg.key_columns, 't', 'e') }}
  where {{ end }} is not null
    and not exists (
      select 1 from {{ args.rel.temp.held }} o
      where {{ auto_cdc._eq(cfg.key_columns, 'o', 't') }} and o.{{ auto_cdc._q(n.start_at) }} = {{ end }}
    )
  union all
  {{ auto_cdc._edit_event_sql(args, last_seq, none, n.delete) }}
  from {{ args.rel.temp.edited }} e join last_applied lt on {{ auto_cdc._eq(cfg.key_columns, 'lt', 'e') }}
  where not exists (select 1 from {{ args.rel.temp.held }} t where {{ auto_cdc._eq(cfg.key_columns, 't', 'e') }})
{% endmacro %}


{#- The key's logged events that its rows agree with but carry no trace of: a delete where no row is
    (after another delete, or before the first version), and an upsert inside a row with all of its
    values (absorbed). Kept, a late event that lands between them still sees them. One branch per kind:
    an OR of the two subqueries would keep the planner from joining them, and rescan held once per event
    (quadratic in the edited keys on Postgres). -#}
{% macro _agreed_edit_events_sql(args, seq_in_output) %}
  {%- set cfg, n = args.cfg, auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set l, h = auto_cdc._alias('l'), auto_cdc._alias('h') -%}
  {%- set at = auto_cdc._seq_value(args, l) -%}
  {%- set h_start, h_end = h ~ '.' ~ auto_cdc._q(n.start_at), h ~ '.' ~ auto_cdc._q(n.end_at) -%}
  {%- set valued = [] -%}
  {%- for c in args.cols.output if c in args.cols.stored and c not in cfg.key_columns -%}{%- do valued.append(c) -%}{%- endfor %}
  select {{ auto_cdc._cols(args.cols.stored, l) }}, {{ l }}.{{ op }}
  from ({{ auto_cdc._affected_events_sql(args, args.rel.temp.edited) }}) {{ l }}
  where {{ l }}.{{ op }} = '{{ n.delete }}' and not exists (
      select 1 from {{ args.rel.temp.held }} {{ h }}
      where {{ auto_cdc._eq(cfg.key_columns, h, l) }} and {{ h_start }} <= {{ at }} and ({{ h_end }} is null or {{ at }} <= {{ h_end }})
    )
  {%- if not seq_in_output %}
  union all
  select {{ auto_cdc._cols(args.cols.stored, l) }}, {{ l }}.{{ op }}
  from ({{ auto_cdc._affected_events_sql(args, args.rel.temp.edited) }}) {{ l }}
  where {{ l }}.{{ op }} = '{{ n.upsert }}' and exists (
      select 1 from {{ args.rel.temp.held }} {{ h }}
      where {{ auto_cdc._eq(cfg.key_columns, h, l) }} and {{ h_start }} < {{ at }} and ({{ h_end }} is null or {{ at }} < {{ h_end }})
        and {{ auto_cdc._same(valued, h, l) }}
    )
  {%- endif %}
{% endmacro %}


{#- One edit event per target row: key columns from the edited key, the sequence from seq_exprs,
    output columns from the relation alias values_from (none: NULL), the rest NULL. -#}
{#- A NULL of a log column's type (a bare NULL has no type on Spark, and parquet cannot store one). -#}
{% macro _log_typed_null(args, column) -%}
  {%- set type = ((args.cols.types or {}).get('log') or {}).get(column) -%}
  {{- 'cast(null as ' ~ type ~ ')' if type else 'null' -}}
{%- endmacro %}

{% macro _edit_event_sql(args, seq_exprs, values_from, kind) -%}
  {%- set cfg = args.cfg -%}
    select
    {%- for c in args.cols.stored %}
      {%- if c in cfg.key_columns %} e.{{ auto_cdc._q(c) }}
      {%- elif c in cfg.seq_columns %} {{ seq_exprs[cfg.seq_columns.index(c)] }}
      {%- elif values_from and c in args.cols.output %} {{ values_from }}.{{ auto_cdc._q(c) }}
      {%- else %} {{ auto_cdc._log_typed_null(args, c) }}
      {%- endif %} as {{ auto_cdc._q(c) }},
    {%- endfor %}
      '{{ kind }}' as {{ auto_cdc._q(auto_cdc._names().op) }}
{%- endmacro %}
