{#-
  The in-order rows of a key (plan/plan.sql: every new event of the key sorts after everything applied
  to it, and its current row is the one its events left): its rows follow from its new events and its
  current row, never from its history:
    - SCD type 1: the latest new event of each key; a delete leaves no row (the log keeps it as the
      tombstone);
    - SCD type 2: the key's open version, as an upsert at its __START_AT, followed by the new events,
      through the SCD2 builder (scd2.sql): a new event that changes no tracked column is absorbed, one
      that does closes the open version and starts the next, a delete closes it. Closed versions are
      kept as they are.
-#}

{#- Whether a fast-path key's rows after the run all differ from the rows it held (held_rows_sql), so
    that, when every affected key takes the fast path, the held rows are all stale and the desired rows
    all missing without comparing them (apply.sql). The key's new events all sort after its last applied
    event, whose row it holds (SCD type 1: its row; SCD type 2: its open version), so:
      - SCD type 1, with every sequence column in the target: its new row carries a greater sequence;
      - SCD type 2, with every sequence column tracked: each new upsert opens a version with a greater
        __START_AT, and the first new event closes the open version (sets its __END_AT).
    Other shapes compare the rows. -#}
{% macro in_order_replaces_held(args) %}
  {%- set seqs = args.cfg.seq_columns -%}
  {%- if args.cfg.scd == 1 -%}
    {{ return(seqs | reject('in', args.cols.target_columns) | list | length == 0) }}
  {%- endif -%}
  {{ return(auto_cdc._every_upsert_opens(args)) }}
{% endmacro %}


{#- Whether the rows every fast-path key holds are known without reading the target, so that the run
    reads none of it (its held rows come from the classification, _held_from_log_sql): every affected
    key takes the fast path ((args.plan.strategy == 'in_order')) on an unedited target (apply.sql), whose rows are the
    ones the log yields, where
      - each key's row after the run replaces the one it held (in_order_replaces_held): SCD type 1 writes
        the new row whole over it, SCD type 2 closes the open version, which it held as it was, and
        changes nothing else of it (merge_changes_sql then updates its __END_AT alone);
      - the target's write is one MERGE on the row key that returns its counts (merge_returns_counts), and
        no change table beside the target records the rows (keeps_change_table): nothing else reads the
        held rows' values; and
      - this run changes no column (the target's columns and the log's are those the classification read).
    A key holds a row exactly when its last applied event is an upsert after the last truncate (on SCD
    type 2 its open version, started at that event's sequence, since every upsert opens one). -#}
{% macro held_from_log_applies(args) %}
  {%- set cols = args.cols -%}
  {{ return(args.plan.get('unedited', false) and args.cfg.scd in (1, 2) and auto_cdc.in_order_replaces_held(args)
            and not (cols.add_columns or cols.drop_columns or cols.widen_columns)
            and auto_cdc._engine().merge_counts
            and not (config.get('change_data_feed', false) and auto_cdc._engine().change_table)) }}
{% endmacro %}


{#- The held rows where the log tells them (held_from_log_applies): each fast-path key that holds a row,
    with its row key (SCD type 2: its open version's __START_AT, at the classification's held_at) and no
    other value: nothing reads them. -#}
{% macro _held_from_log_sql(args) %}
  {%- set n = auto_cdc._names() -%}
  {%- set held_at = 'a.' ~ auto_cdc._q(n.held_at) -%}
  {%- set columns = [] -%}
  {%- for c in args.cols.target_columns -%}
    {%- if c in args.cfg.key_columns -%}
      {%- do columns.append('a.' ~ auto_cdc._q(c)) -%}
    {%- elif c == n.start_at -%}
      {%- do columns.append(held_at ~ ' as ' ~ auto_cdc._q(c)) -%}
    {%- else -%}
      {%- do columns.append('cast(null as ' ~ args.cols.types.target[c] ~ ') as ' ~ auto_cdc._q(c)) -%}
    {%- endif -%}
  {%- endfor -%}
select {{ columns | join(', ') }}, a.{{ auto_cdc._q(n.fast) }}
from {{ args.rel.temp.affected }} a
where a.{{ auto_cdc._q(n.fast) }} and {{ held_at }} is not null
{% endmacro %}


{#- SCD type 2 with every sequence column tracked (the default: every output column is): each upsert opens
    a version, since two events of one key held in the log never share a sequence (a second event at a
    key's sequence is a duplicate, dropped, or a conflict, refused: R7; a key with a mask is not counted).
    A key's versions are then its upserts, counted without comparing an event with the one before it. So
    are a snapshot's with every output column tracked: its diff makes an upsert only where a column changed
    (or the key comes back). -#}
{% macro _every_upsert_opens(args) %}
  {%- if args.cfg.scd != 2 -%}{{ return(false) }}{%- endif -%}
  {%- set tracked = auto_cdc._classified_tracked(args) -%}
  {%- if args.cfg.shape == 'snapshot' -%}{{ return(args.cols.output | reject('in', args.cfg.key_columns) | reject('in', tracked) | list | length == 0) }}{%- endif -%}
  {{ return(args.cfg.seq_columns | reject('in', tracked) | list | length == 0) }}
{% endmacro %}


{#- The tracked columns the log held before this run, but the keys (an SCD2 key's events all hold its
    key). -#}
{% macro _classified_tracked(args) %}
  {%- set tracked = [] -%}
  {%- for c in args.cols.tracked if c not in args.cols.add_columns and c in args.cols.stored and c not in args.cfg.key_columns -%}{%- do tracked.append(c) -%}{%- endfor -%}
  {{ return(tracked) }}
{% endmacro %}




{#- SCD type 1 rows of the in-order keys: each key's latest new event, unless it is a delete; where every key
    has one new event (single_events), the new upserts themselves. -#}
{% macro scd1_in_order_rows_sql(args) %}
  {%- if args.plan.get('single_events') -%}
    {{ return('select ' ~ (auto_cdc._new_event_columns(args.cols.output, args, none) | join(', ')) ~ ' from ' ~ args.rel.temp.new
              ~ ' where ' ~ auto_cdc._q(auto_cdc._names().op) ~ " = '" ~ auto_cdc._names().upsert ~ "'") }}
  {%- endif -%}
  {{ return(auto_cdc._scd1_latest_new_rows_sql(args)) }}
{% endmacro %}

{#- The latest new event of each in-order key, by a join where it has one, by a window where it has several. -#}
{% macro _scd1_latest_new_rows_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set rank = auto_cdc._q(n.rank) -%}
  {%- set fast_key = 'a.' ~ auto_cdc._q(n.fast) ~ ' and b.' ~ op ~ " <> '" ~ n.truncate ~ "'" -%}
  {%- set columns = auto_cdc._new_event_columns(args.cols.output, args, none) | join(', ') -%}
  {%- set hint = auto_cdc._fast_keys_hint(args, ['a'], (cfg.key_columns | length) + 2) -%}
{#- a key with one new event: that event, by a join; a key with several: the latest #}
select {{ hint }}{{ auto_cdc._new_event_columns(args.cols.output, args, 'b') | join(', ') }}
from {{ args.rel.temp.new }} b
join {{ args.rel.temp.affected }} a on {{ auto_cdc._eq(cfg.key_columns, 'a', 'b') }}
where {{ fast_key }} and a.{{ auto_cdc._q(n.new_events) }} = 1 and b.{{ op }} = '{{ n.upsert }}'
union all
select {{ columns }}
from (
  select {{ hint }}b.*, row_number() over (
    partition by {{ auto_cdc._cols(cfg.key_columns, 'b') }} order by {{ auto_cdc._seq_order(cfg.seq_columns, 'b', desc=true) }}
  ) as {{ rank }}
  from {{ args.rel.temp.new }} b
  join {{ args.rel.temp.affected }} a on {{ auto_cdc._eq(cfg.key_columns, 'a', 'b') }}
  where {{ fast_key }} and a.{{ auto_cdc._q(n.new_events) }} > 1
) latest
where {{ rank }} = 1 and {{ op }} = '{{ n.upsert }}'
{% endmacro %}


{#- SCD type 2 rows of the fast-path keys: the open version continued by the new events. Their closed
    versions stay as they are: held does not read them (held_rows_sql), so neither stale nor missing
    holds them and the write leaves them alone. A key with one new event (the usual case) needs no walk
    of its events (_scd2_one_event_rows_sql); a key with several goes through the SCD2 builder. -#}
{% macro scd2_in_order_rows_sql(args) %}
  {%- if args.plan.get('single_events') -%}{{ return(auto_cdc._scd2_one_event_rows_sql(args)) }}{%- endif -%}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set fast = auto_cdc._q(n.fast) -%}
  {%- set columns = auto_cdc._scd2_event_columns(args) -%}
  {%- set from_open = [] -%}
  {%- for c, expr in auto_cdc._scd2_open_values(args, 'h') -%}
    {%- do from_open.append(expr ~ ' as ' ~ auto_cdc._q(c)) -%}
  {%- endfor -%}
  {%- set several = 'a.' ~ fast ~ ' and a.' ~ auto_cdc._q(n.new_events) ~ ' > 1' -%}
  {%- set hint = auto_cdc._fast_keys_hint(args, ['a'], (cfg.key_columns | length) + 2) -%}
  {%- set events_sql -%}
    select {{ hint }}{{ from_open | join(', ') }}, '{{ n.upsert }}' as {{ op }}
    from {{ args.rel.temp.held }} h
    join {{ args.rel.temp.affected }} a on {{ auto_cdc._eq(cfg.key_columns, 'a', 'h') }}
    where {{ several }} and h.{{ auto_cdc._q(n.end_at) }} is null
    union all
    select {{ hint }}{{ auto_cdc._new_event_columns(columns, args, 'b') | join(', ') }}, b.{{ op }}
    from {{ args.rel.temp.new }} b
    join {{ args.rel.temp.affected }} a on {{ auto_cdc._eq(cfg.key_columns, 'a', 'b') }}
    where {{ several }} and b.{{ op }} <> '{{ n.truncate }}'
  {%- endset -%}
{{ auto_cdc._union_all([auto_cdc._scd2_one_event_rows_sql(args), auto_cdc.scd2_rows_sql(args, events_sql)]) }}
{% endmacro %}


{#- The rows of the fast-path keys with exactly one new event, as the SCD2 builder (scd2.sql) would walk
    it after the key's open version (h, when the key has one): a delete closes the open version at its
    sequence; an upsert that changes no tracked column is absorbed (the open version takes its values and
    keeps its __START_AT); any other upsert closes the open version and starts the next. -#}
{% macro _scd2_one_event_rows_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set p = n.internal_prefix -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set fast = auto_cdc._q(n.fast) -%}
  {%- set k0 = auto_cdc._q(cfg.key_columns[0]) -%}
  {%- set columns = auto_cdc._scd2_event_columns(args) -%}
  {%- set open = auto_cdc._scd2_open_values(args, 'h') -%}
  {%- set open_names = {} -%}
  {%- set open_cols = [] -%}
  {%- for c, expr in open -%}
    {%- do open_names.update({c: auto_cdc._q(p ~ 'open_' ~ loop.index0)}) -%}
    {%- do open_cols.append(expr ~ ' as ' ~ open_names[c]) -%}
  {%- endfor -%}
  {%- set changes = [] -%}
  {%- for c in args.cols.tracked if c not in cfg.key_columns -%}
    {%- do changes.append(auto_cdc._q(c) ~ ' is distinct from ' ~ open_names[c]) -%}
  {%- endfor -%}
  {%- set has_open = auto_cdc._q(p ~ 'has_open') -%}
  {%- set absorbed = auto_cdc._q(p ~ 'absorbed') -%}
  {%- set open_start = auto_cdc._q(p ~ 'open_start') -%}
  {%- set event_seq = auto_cdc._seq_value(args) -%}
  {%- set closed = [] -%}
  {%- for c in args.cols.output -%}{%- do closed.append(open_names[c] ~ ' as ' ~ auto_cdc._q(c)) -%}{%- endfor -%}
with one_event as (
  select e.*,
    case when e.{{ has_open }} = 1 and e.{{ op }} = '{{ n.upsert }}'
         and not ({{ (changes | join(' or ')) if changes else 'false' }}) then 1 else 0 end as {{ absorbed }}
  from (
    select {{ auto_cdc._fast_keys_hint(args, ['a', 'h'], (columns | length) + 3) }}{{ auto_cdc._new_event_columns(columns, args, 'b') | join(', ') }}, b.{{ op }},
      case when h.{{ k0 }} is null then 0 else 1 end as {{ has_open }},
      h.{{ auto_cdc._q(n.start_at) }} as {{ open_start }},
      {{ open_cols | join(', ') }}
    from {{ args.rel.temp.new }} b
    join {{ args.rel.temp.affected }} a on {{ auto_cdc._eq(cfg.key_columns, 'a', 'b') }}
    left join {{ args.rel.temp.held }} h
      on {{ auto_cdc._eq(cfg.key_columns, 'h', 'b') }} and h.{{ fast }} and h.{{ auto_cdc._q(n.end_at) }} is null
    where a.{{ fast }} and a.{{ auto_cdc._q(n.new_events) }} = 1 and b.{{ op }} <> '{{ n.truncate }}'
  ) e
)
{#- the open version, closed by the event #}
select {{ closed | join(', ') }},
  {{ open_start }} as {{ auto_cdc._q(n.start_at) }},
  {{ event_seq }} as {{ auto_cdc._q(n.end_at) }}
from one_event
where {{ has_open }} = 1 and {{ absorbed }} = 0
union all
{#- the version the upsert starts, or the open version that absorbs it #}
select {{ auto_cdc._cols(args.cols.output) }},
  case when {{ absorbed }} = 1 then {{ open_start }} else {{ event_seq }} end as {{ auto_cdc._q(n.start_at) }},
  null as {{ auto_cdc._q(n.end_at) }}
from one_event
where {{ op }} = '{{ n.upsert }}'
{% endmacro %}


{#- The join hint of the fast rows' small sides (broadcast_hint): the affected keys (a), where their number
    is bounded (_affected_keys_at_most; a killed run's keys are not), and the held rows the fast rows join
    (h: each fast key's open version), one per fast key, so at most one per new event. `columns`: how many
    of their columns the join reads. -#}
{% macro _fast_keys_hint(args, aliases, columns) %}
  {%- set small = aliases if auto_cdc._affected_keys_at_most(args) is not none else aliases | reject('equalto', 'a') | list -%}
  {{ return(auto_cdc.broadcast_hint(small, args.plan.new_events, columns) if small else '') }}
{% endmacro %}


{#- The columns an SCD2 fast-path event carries: the keys, the sequence and the output columns. -#}
{% macro _scd2_event_columns(args) %}
  {%- set columns = [] -%}
  {%- for c in args.cfg.key_columns + args.cfg.seq_columns + args.cols.output if c not in columns -%}{%- do columns.append(c) -%}{%- endfor -%}
  {{ return(columns) }}
{% endmacro %}


{#- The open version's values as an event's (column, expression) pairs: a sequence column (not a key)
    holds the version's start (its __START_AT's field). -#}
{% macro _scd2_open_values(args, alias) %}
  {%- set start = alias ~ '.' ~ auto_cdc._q(auto_cdc._names().start_at) -%}
  {%- set out = [] -%}
  {%- for c in auto_cdc._scd2_event_columns(args) -%}
    {%- if c in args.cfg.seq_columns and c not in args.cfg.key_columns -%}
      {%- do out.append((c, auto_cdc.seq_field_sql(start, c, args))) -%}
    {%- else -%}
      {%- do out.append((c, alias ~ '.' ~ auto_cdc._q(c))) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}


{#- The given columns of this run's new events: a column the target keeps but the model no longer
    returns (on_schema_change 'ignore') is NULL in them, as in the log. -#}
{% macro _new_event_columns(columns, args, alias) %}
  {%- set out = [] -%}
  {%- for c in columns -%}
    {%- if c in args.cols.stored -%}
      {%- do out.append((alias ~ '.' if alias else '') ~ auto_cdc._q(c)) -%}
    {%- else -%}
      {%- do out.append('cast(null as ' ~ args.cols.types.target[c] ~ ') as ' ~ auto_cdc._q(c)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}
