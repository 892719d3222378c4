{#-
  The two paths of a key through the apply (apply.sql). A key takes the fast path when its result
  follows from the run's events and its current row alone:
    - every new event of the key sorts after every event already applied to it, and after the last
      truncate (an event at or before one of them lands inside the history: R1);
    - the batch holds no truncate (it touches every key);
    - the log holds no mask for the key (its hand edits were folded in: edits.sql), and its row in
      the target (SCD type 2: its open version) is the row its last applied event left: it has one
      exactly when that event is an upsert, with that event's values (no hand edit since), which
      is checked by the fingerprint the log keeps of each upsert (row_fingerprint_sql). Where the
      engine keeps the target's commit history (Delta) and no one but the model's runs has changed
      its rows since the last run, they are the rows the log yields, and that check is skipped
      (unedited_target_version); when every key then takes the fast path, the rows they hold are
      taken from the log as well, and the run reads no row of the target (held_from_log_applies).
  Every other affected key is replayed from its whole history in the log. The fast path's rows:
    - SCD type 1: the latest new event of each key; a delete leaves no row (the log keeps it as the
      tombstone);
    - SCD type 2: the key's open version, as an upsert at its __START_AT, followed by the new events,
      through the SCD2 builder (scd2.sql): a new event that changes no tracked column is absorbed,
      one that does closes the open version and starts the next, a delete closes it. Closed
      versions are kept as they are. A hand edit of a closed version is folded in when the key is
      next replayed (its rows then differ from the log's), which keeps the same rows.
  Shapes without a fast path (bitemporal, partial updates, SCD2 with an untracked sequence column
  among the output columns) replay every affected key.
-#}

{#- The affected keys (affected_keys_sql), each with __auto_cdc_fast: does it take the fast path? The
    log's events of the touched keys are read from args.logged (touched_log). -#}
{% macro classified_keys_sql(args) %}
  {%- set log = args.logged -%}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set rank = auto_cdc._q(n.rank) -%}
  {%- set keys = cfg.key_columns -%}
  {%- set seqs = cfg.seq_columns -%}
  {%- set k0 = auto_cdc._q(keys[0]) -%}
  {#- the columns the target and the log both hold before this run's schema changes -#}
  {%- set compared = [] -%}
  {%- for c in args.plan.output if c not in args.plan.add_columns -%}{%- do compared.append(c) -%}{%- endfor -%}
  {#- SCD2: the key's open version is the row its last applied upsert left -#}
  {%- set open_only = cfg.scd == 2 -%}
  {%- set masked = auto_cdc._q(n.internal_prefix ~ 'masked') -%}
  {%- set new_seq = auto_cdc._seq_value(args, 'b') -%}
  {#- SCD2: a key's versions are its upserts (_every_upsert_opens), or are counted by comparing each event
      with the one before it: whether it changes a tracked column the log held before this run, by a
      fingerprint of those columns (hashed, as tracked_fp below) -#}
  {%- set every_upsert_opens = auto_cdc._every_upsert_opens(args) -%}
  {%- set hashed = [] if every_upsert_opens else auto_cdc._classified_tracked(args) -%}
  {%- set tracked_fp = auto_cdc._q(n.internal_prefix ~ 'tracked_fp') -%}
  {%- set previous_fp = auto_cdc._q(n.internal_prefix ~ 'previous_fp') -%}
  {%- set changed = tracked_fp ~ ' is distinct from ' ~ previous_fp if hashed else 'false' -%}
  {%- set previous_op = auto_cdc._q(n.internal_prefix ~ 'previous_op') -%}
  {%- set narrow = auto_cdc._classified_log_columns(args) -%}
  {#- SCD2 with a one-column sequence: each touched key's first new sequence, against the greatest start
      and end of its versions (held) -#}
  {%- set by_bounds = open_only and seqs | length == 1 -%}
  {#- SCD1, and SCD2 whose versions are its upserts, with a one-column sequence: each key's last event
      by aggregates where the engine does so (last_event_by), not a window that sorts its events -#}
  {%- set last_by = auto_cdc.last_event_by() -%}
  {%- set by_aggregate = (not open_only or every_upsert_opens) and seqs | length == 1 and seqs[0] not in keys
        and last_by in ('aggregate', 'join') -%}
  {#- arg_max's value: a logged event coded as one value (last_event below) -#}
  {%- set coded = 'case when l.' ~ op ~ " = '" ~ n.delete ~ "' then -1 when l." ~ auto_cdc._q(n.fingerprint) ~ ' >= 0 then l.' ~ auto_cdc._q(n.fingerprint) ~ ' else -2 end' -%}
  {%- set latest = auto_cdc._q(n.internal_prefix ~ 'latest') -%}
  {%- set upserts = auto_cdc._q(n.internal_prefix ~ 'upserts') -%}
  {%- set new_events = auto_cdc._q(n.new_events) -%}
  {%- set first_new = auto_cdc._q(n.internal_prefix ~ 'first_new') -%}
  {%- set last_start = auto_cdc._q(n.internal_prefix ~ 'last_start') -%}
  {%- set last_end = auto_cdc._q(n.internal_prefix ~ 'last_end') -%}
  {#- no one but the model's runs has changed the target's rows since the last run (apply.sql): they are
      the rows the log yields, and no row of the target is compared with the log -#}
  {%- set unedited = args.run.get('unedited', false) -%}
  {#- and where every key then takes the fast path, the rows the keys hold follow from the log (held_at) -#}
  {%- set held_from_log = auto_cdc.held_from_log_applies(args) -%}
  {#- each key's last applied upsert (expected) is joined for either: the comparison, or held_at -#}
  {%- set joins_expected = held_from_log or not unedited -%}
{#- the keys of the new events, each with how many it has (the fast rows take a key with one new event
    by a join) -#}
with touched as (
  select {{ auto_cdc._cols(keys) }}, count(*) as {{ new_events }}
  {%- if by_bounds %}, min({{ auto_cdc._q(seqs[0]) }}) as {{ first_new }}{% endif %}
  from {{ args.rel.temp.new }} where {{ op }} <> '{{ n.truncate }}'
  group by {{ auto_cdc._cols(keys) }}
),
{#- and the keys a killed run touched (affected_keys_sql); a run with a truncate has no fast path -#}
all_keys as (
  {%- if args.run.killed %}
  {{ auto_cdc.affected_keys_sql(args) }}
  {%- else %}
  select {{ auto_cdc._cols(keys) }} from touched
  {%- endif %}
),
last_truncate as (
  select {{ auto_cdc._cols(seqs) }} from {{ log }}
  where {{ op }} = '{{ n.truncate }}'
  order by {{ auto_cdc._seq_order(seqs, desc=true) }}
  limit 1
),
{#- the touched keys' events in the log, read once: the last one first, and whether a mask hides any -#}
{%- if by_aggregate %}
{#- each key's greatest sequence (a mask has no sequence: the aggregates pass it by), whether a mask
    hides any and, for SCD2, how many upserts it holds; of the touched keys, or of the batch's keys where
    the run reads a copy of their events (touched_log: a key without new events is in no join below) -#}
{%- set copied = (log | string) != (args.rel.log | string) -%}
{%- set per_key %}
    select {% if not copied %}{{ auto_cdc.broadcast_hint(['k'], args.run.new_events, keys | length) }}{% endif %}{{ auto_cdc._cols(keys, 'l') }},
      max(l.{{ auto_cdc._q(seqs[0]) }}) as {{ auto_cdc._q(seqs[0]) }},
      {%- if last_by == 'aggregate' %}
      {{ auto_cdc.arg_max_sql(coded, 'l.' ~ auto_cdc._q(seqs[0])) }} as {{ latest }},
      {%- endif %}
      max(case when l.{{ op }} = '{{ n.mask }}' then 1 else 0 end) as {{ masked }}
      {%- if open_only %},
      count(case when l.{{ op }} = '{{ n.upsert }}' then 1 end) as {{ upserts }}
      {%- endif %}
    from {{ log }} l
    {%- if not copied %}
    join touched k on {{ auto_cdc._eq(keys, 'l', 'k') }}
    {%- endif %}
    where l.{{ op }} in ('{{ n.upsert }}', '{{ n.delete }}', '{{ n.mask }}')
    group by {{ auto_cdc._cols(keys, 'l') }}
{%- endset %}
{%- if last_by == 'aggregate' %}
{#- one row a key, with its last event by arg_max, coded as one value (-1 a delete; an upsert its
    fingerprint, which is never negative on DuckDB, or -2 where it has none) -#}
last_event as (
  select {{ auto_cdc._cols(keys) }}, {{ auto_cdc._q(seqs[0]) }},
    case when {{ latest }} = -1 then '{{ n.delete }}' when {{ latest }} is not null then '{{ n.upsert }}' end as {{ op }},
    case when {{ latest }} >= 0 then {{ latest }} end as {{ auto_cdc._q(n.fingerprint) }},
    1 as {{ rank }},
    {{ masked }}{% if open_only %}, {{ upserts }}{% endif %}
  from ({{ per_key }}
  ) l
),
{%- else %}
{#- one row a key, joined back to the event at its greatest sequence. Two events there are an edit event
    beside the source event at its sequence, under a mask that sends the key to the replay: grouped into
    one row. -#}
last_event as (
  select {{ auto_cdc._cols(keys, 'm') }}, m.{{ auto_cdc._q(seqs[0]) }},
    min(l.{{ op }}) as {{ op }}, min(l.{{ auto_cdc._q(n.fingerprint) }}) as {{ auto_cdc._q(n.fingerprint) }},
    1 as {{ rank }},
    m.{{ masked }}
    {%- if open_only %}, m.{{ upserts }}{% endif %}
  from ({{ per_key }}
  ) m
  left join {{ log }} l on {{ auto_cdc._eq(keys, 'l', 'm') }} and l.{{ auto_cdc._q(seqs[0]) }} = m.{{ auto_cdc._q(seqs[0]) }}
    and l.{{ op }} in ('{{ n.upsert }}', '{{ n.delete }}')
  group by {{ auto_cdc._cols(keys, 'm') }}, m.{{ auto_cdc._q(seqs[0]) }}, m.{{ masked }}{% if open_only %}, m.{{ upserts }}{% endif %}
),
{%- endif %}
{%- else %}
last_event as (
  select {{ auto_cdc._cols(narrow, 'l') }},
    row_number() over latest as {{ rank }},
    {%- if open_only and not every_upsert_opens %}
    {#- SCD2: the event before each one (the next in this order, for a key without a mask: opened) -#}
    lead(l.{{ op }}) over latest as {{ previous_op }},
    {%- if hashed %}
    l.{{ tracked_fp }},
    lead(l.{{ tracked_fp }}) over latest as {{ previous_fp }},
    {%- endif %}
    {%- endif %}
    max(case when l.{{ op }} = '{{ n.mask }}' then 1 else 0 end) over (partition by {{ auto_cdc._cols(keys, 'l') }}) as {{ masked }}
  from (
    select {{ auto_cdc.broadcast_hint(['k'], args.run.new_events, keys | length) }}{{ auto_cdc._cols(narrow, 'l') }}
    {%- if open_only and hashed -%}
      {#- a hash, not the values: the window sorts 8 bytes a row in place of every tracked column. Two
          different values that hash alike count one version less than the target holds, which only
          sends the key to the replay. -#}
      , {{ auto_cdc.row_fingerprint_sql(hashed, 'l') }} as {{ tracked_fp }}
    {%- endif %}
    from {{ log }} l
    join touched k on {{ auto_cdc._eq(keys, 'l', 'k') }}
    where l.{{ op }} in ('{{ n.upsert }}', '{{ n.delete }}', '{{ n.mask }}')
  ) l
  window latest as (
    partition by {{ auto_cdc._cols(keys, 'l') }}
    order by case when l.{{ op }} = '{{ n.mask }}' then 1 else 0 end, {{ auto_cdc._seq_order(seqs, 'l', desc=true) }}
  )
),
{%- endif %}
late as (
  select {{ auto_cdc.broadcast_hint(['b'], args.run.new_events, (keys | length) + (seqs | length)) }}distinct {{ auto_cdc._cols(keys, 'b') }}
  from {{ args.rel.temp.new }} b
  join last_event e on {{ auto_cdc._eq(keys, 'e', 'b') }} and e.{{ rank }} = 1
  where b.{{ op }} <> '{{ n.truncate }}'
    and (e.{{ masked }} = 1 or not {{ auto_cdc._seq_lt(seqs, 'e', 'b') }})
  union
  select distinct {{ auto_cdc._cols(keys, 'b') }}
  from {{ args.rel.temp.new }} b
  cross join last_truncate t
  where b.{{ op }} <> '{{ n.truncate }}' and not {{ auto_cdc._seq_lt(seqs, 't', 'b') }}
  {%- if open_only and not by_bounds and not unedited %}
  {#- and a key with a version (hand-inserted, say) that starts or ends after a new event (with a
      one-column sequence: held's bounds, in the select below) -#}
  union
  select {{ auto_cdc.broadcast_hint(['b'], args.run.new_events, (keys | length) + (seqs | length)) }}distinct {{ auto_cdc._cols(keys, 'b') }}
  from {{ args.rel.temp.new }} b
  join {{ args.rel.target }} t on {{ auto_cdc._eq(keys, 't', 'b') }}
  where b.{{ op }} <> '{{ n.truncate }}'
    and (t.{{ auto_cdc._q(n.start_at) }} >= {{ new_seq }} or t.{{ auto_cdc._q(n.end_at) }} > {{ new_seq }})
  {%- endif %}
),
expected as (
  select e.*
  from last_event e
  left join last_truncate t on 1 = 1
  where e.{{ rank }} = 1 and e.{{ op }} = '{{ n.upsert }}'
    and (t.{{ auto_cdc._q(seqs[0]) }} is null or not {{ auto_cdc._seq_lt(seqs, 'e', 't') }})
),
{#- the touched keys' rows in the target, read once (from held where the run read them first): how many
    are current (SCD2: open versions), the least fingerprint among them (a key with one is on the fast
    path only if it is the row the key's last applied event left) and, for SCD2, how many versions
    there are -#}
held as (
  select {% if not args.path.held_first %}{{ auto_cdc.broadcast_hint(['k'], args.run.new_events, keys | length) }}{% endif %}{{ auto_cdc._cols(keys, 't') }},
  {%- if open_only %}
    count(case when t.{{ auto_cdc._q(n.end_at) }} is null then 1 end) as {{ auto_cdc._q(n.internal_prefix ~ 'rows') }},
    count(*) as {{ auto_cdc._q(n.internal_prefix ~ 'versions') }},
    {%- if by_bounds %}
    max(t.{{ auto_cdc._q(n.start_at) }}) as {{ last_start }},
    max(t.{{ auto_cdc._q(n.end_at) }}) as {{ last_end }},
    {%- endif %}
  {%- else %}
    count(*) as {{ auto_cdc._q(n.internal_prefix ~ 'rows') }},
  {%- endif %}
  {#- SCD2: the open version's fingerprint only (closed versions are counted, never hashed) -#}
  {%- set fingerprint = auto_cdc.row_fingerprint_sql(compared, 't') -%}
  {%- if open_only -%}
    {%- set fingerprint = 'case when t.' ~ auto_cdc._q(n.end_at) ~ ' is null then ' ~ fingerprint ~ ' end' -%}
  {%- endif %}
    {#- a key on the fast path has one current row: its fingerprint is the least -#}
    min({{ fingerprint }}) as {{ auto_cdc._q(n.fingerprint) }}
  {%- if args.path.held_first %}
  from {{ args.rel.temp.held }} t
  {%- else %}
  from {{ args.rel.target }} t
  join {{ auto_cdc.in_key_order('touched', keys) }} k on {{ auto_cdc._eq(keys, 't', 'k') }}
  {%- endif %}
  group by {{ auto_cdc._cols(keys, 't') }}
)
{#- SCD2: the versions the key's events make, against those held (not on an unedited target) -#}
{%- if open_only and by_aggregate and not unedited %},
versions as (
  select {{ auto_cdc._cols(keys) }}, {{ upserts }} as {{ auto_cdc._q(n.internal_prefix ~ 'versions') }}
  from last_event
  where {{ masked }} = 0
)
{%- elif open_only and not unedited %},
{#- SCD2: how many versions the key's events make (an upsert opens one after a delete, or when it
    changes a tracked column), against how many the target holds: a closed version deleted or
    inserted by hand sends the key to the replay, which folds the edit in now -#}
opened as (
  {#- a key with a mask is never on the fast path (late): its events are not counted -#}
  select {{ auto_cdc._cols(keys) }},
    {%- if every_upsert_opens %}
    case when {{ op }} = '{{ n.upsert }}' then 1 else 0 end as opens
    {%- else %}
    case when {{ op }} = '{{ n.upsert }}' and ({{ previous_op }} is null or {{ previous_op }} <> '{{ n.upsert }}' or {{ changed }}) then 1 else 0 end as opens
    {%- endif %}
  from last_event
  where {{ masked }} = 0
),
versions as (
  select {{ auto_cdc._cols(keys) }}, sum(opens) as {{ auto_cdc._q(n.internal_prefix ~ 'versions') }}
  from opened
  group by {{ auto_cdc._cols(keys) }}
)
{%- endif %}
{#- every side joined to the affected keys holds a row per key of the batch at most -#}
{%- set small = ['k', 'lt'] + (['x'] if joins_expected else []) + ([] if unedited else ['h'] + (['v'] if open_only else [])) %}
select {{ auto_cdc.broadcast_hint(small, args.get('batch_rows'), (narrow | length) + 6) }}
  {{ auto_cdc._cols(keys, 'a') }},
  case
    when k.{{ k0 }} is null or lt.{{ k0 }} is not null then false
    {%- if not unedited %}
    {%- if by_bounds %}
    {#- a version (hand-inserted, say) that starts or ends after a new event #}
    when h.{{ last_start }} >= k.{{ first_new }} or h.{{ last_end }} > k.{{ first_new }} then false
    {%- endif %}
    when coalesce(h.{{ auto_cdc._q(n.internal_prefix ~ 'rows') }}, 0) <> case when x.{{ k0 }} is null then 0 else 1 end then false
    {%- if open_only %}
    when coalesce(h.{{ auto_cdc._q(n.internal_prefix ~ 'versions') }}, 0) <> coalesce(v.{{ auto_cdc._q(n.internal_prefix ~ 'versions') }}, 0) then false
    {%- endif %}
    when x.{{ k0 }} is not null and h.{{ auto_cdc._q(n.fingerprint) }} is distinct from x.{{ auto_cdc._q(n.fingerprint) }} then false
    {%- endif %}
    else true
  end as {{ auto_cdc._q(n.fast) }},
  k.{{ new_events }}
  {%- if held_from_log %},
  {#- the sequence of the key's last applied event where it left a row in the target (SCD2: the open
      version, which it started where every upsert opens one): on an unedited target, the row the
      key holds (_held_from_log_sql) -#}
  case when x.{{ k0 }} is not null then {{ auto_cdc._seq_value(args, 'x') }} end as {{ auto_cdc._q(n.held_at) }}
  {%- endif %}
from all_keys a
left join touched k on {{ auto_cdc._eq(keys, 'k', 'a') }}
left join (select distinct * from late) lt on {{ auto_cdc._eq(keys, 'lt', 'a') }}
{%- if joins_expected %}
left join expected x on {{ auto_cdc._eq(keys, 'x', 'a') }}
{%- endif %}
{%- if not unedited %}
left join held h on {{ auto_cdc._eq(keys, 'h', 'a') }}
{%- if open_only %}
left join versions v on {{ auto_cdc._eq(keys, 'v', 'a') }}
{%- endif %}
{%- endif %}
{% endmacro %}


{#- Whether a fast-path key's rows after the run all differ from the rows it held (held_rows_sql), so
    that, when every affected key takes the fast path, the held rows are all stale and the desired rows
    all missing without comparing them (apply.sql). The key's new events all sort after its last applied
    event, whose row it holds (SCD type 1: its row; SCD type 2: its open version), so:
      - SCD type 1, with every sequence column in the target: its new row carries a greater sequence;
      - SCD type 2, with every sequence column tracked: each new upsert opens a version with a greater
        __START_AT, and the first new event closes the open version (sets its __END_AT).
    Other shapes compare the rows. -#}
{% macro fast_rows_replace_held(args) %}
  {%- set seqs = args.cfg.seq_columns -%}
  {%- if args.cfg.scd == 1 -%}
    {{ return(seqs | reject('in', args.plan.target_columns) | list | length == 0) }}
  {%- endif -%}
  {{ return(auto_cdc._every_upsert_opens(args)) }}
{% endmacro %}


{#- Whether the rows every fast-path key holds are known without reading the target, so that the run
    reads none of it (its held rows come from the classification, _held_from_log_sql): every affected
    key takes the fast path (args.path.no_replay) on an unedited target (apply.sql), whose rows are the
    ones the log yields, where
      - each key's row after the run replaces the one it held (fast_rows_replace_held): SCD type 1 writes
        the new row whole over it, SCD type 2 closes the open version, which it held as it was, and
        changes nothing else of it (merge_changes_sql then updates its __END_AT alone);
      - the target's write is one MERGE on the row key that returns its counts (merge_returns_counts), and
        no change table beside the target records the rows (keeps_change_table): nothing else reads the
        held rows' values; and
      - this run changes no column (the target's columns and the log's are those the classification read).
    A key holds a row exactly when its last applied event is an upsert after the last truncate (on SCD
    type 2 its open version, started at that event's sequence, since every upsert opens one). -#}
{% macro held_from_log_applies(args) %}
  {%- set plan = args.plan -%}
  {{ return(args.run.get('unedited', false) and args.cfg.scd in (1, 2) and auto_cdc.fast_rows_replace_held(args)
            and not (plan.add_columns or plan.drop_columns or plan.widen_columns)
            and auto_cdc.merge_returns_counts()
            and not (config.get('change_data_feed', false) and auto_cdc.keeps_change_table())) }}
{% endmacro %}

{#- The held rows where the log tells them (held_from_log_applies): each fast-path key that holds a row,
    with its row key (SCD type 2: its open version's __START_AT, at the classification's held_at) and no
    other value: nothing reads them. -#}
{% macro _held_from_log_sql(args) %}
  {%- set n = auto_cdc._names() -%}
  {%- set held_at = 'a.' ~ auto_cdc._q(n.held_at) -%}
  {%- set columns = [] -%}
  {%- for c in args.plan.target_columns -%}
    {%- if c in args.cfg.key_columns -%}
      {%- do columns.append('a.' ~ auto_cdc._q(c)) -%}
    {%- elif c == n.start_at -%}
      {%- do columns.append(held_at ~ ' as ' ~ auto_cdc._q(c)) -%}
    {%- else -%}
      {%- do columns.append('cast(null as ' ~ args.plan.types.target[c] ~ ') as ' ~ auto_cdc._q(c)) -%}
    {%- endif -%}
  {%- endfor -%}
select {{ columns | join(', ') }}, a.{{ auto_cdc._q(n.fast) }}
from {{ args.rel.temp.affected }} a
where a.{{ auto_cdc._q(n.fast) }} and {{ held_at }} is not null
{% endmacro %}


{#- SCD type 2 with every sequence column tracked (the default: every output column is): each upsert opens
    a version, since two events of one key held in the log never share a sequence (a second event at a
    key's sequence is a duplicate, dropped, or a conflict, refused: R7; a key with a mask is not counted).
    A key's versions are then its upserts, counted without comparing an event with the one before it. -#}
{% macro _every_upsert_opens(args) %}
  {%- if args.cfg.scd != 2 -%}{{ return(false) }}{%- endif -%}
  {{ return(args.cfg.seq_columns | reject('in', auto_cdc._classified_tracked(args)) | list | length == 0) }}
{% endmacro %}


{#- The tracked columns the log held before this run, but the keys (an SCD2 key's events all hold its
    key). -#}
{% macro _classified_tracked(args) %}
  {%- set tracked = [] -%}
  {%- for c in args.plan.tracked if c not in args.plan.add_columns and c in args.plan.stored and c not in args.cfg.key_columns -%}{%- do tracked.append(c) -%}{%- endfor -%}
  {{ return(tracked) }}
{% endmacro %}

{#- The log's columns the classification reads: a row is compared by its fingerprint, not its values
    (SCD2 compares an event's tracked columns with the one before it by a fingerprint of them too). -#}
{% macro _classified_log_columns(args) %}
  {%- set n = auto_cdc._names() -%}
  {%- set narrow = [] -%}
  {%- for c in args.cfg.key_columns + args.cfg.seq_columns + [n.op, n.fingerprint] if c not in narrow -%}{%- do narrow.append(c) -%}{%- endfor -%}
  {{ return(narrow) }}
{% endmacro %}

{#- SCD type 1 rows of the fast-path keys: each key's latest new event, unless it is a delete. -#}
{% macro scd1_fast_rows_sql(args) %}
  {%- set cfg = args.cfg -%}
  {%- set n = auto_cdc._names() -%}
  {%- set op = auto_cdc._q(n.op) -%}
  {%- set rank = auto_cdc._q(n.rank) -%}
  {%- set fast_key = 'a.' ~ auto_cdc._q(n.fast) ~ ' and b.' ~ op ~ " <> '" ~ n.truncate ~ "'" -%}
  {%- set columns = auto_cdc._new_event_columns(args.plan.output, args, none) | join(', ') -%}
  {%- set hint = auto_cdc._fast_keys_hint(args, ['a'], (cfg.key_columns | length) + 2) -%}
{#- a key with one new event: that event, by a join; a key with several: the latest #}
select {{ hint }}{{ auto_cdc._new_event_columns(args.plan.output, args, 'b') | join(', ') }}
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
{% macro scd2_fast_rows_sql(args) %}
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
  {%- for c in args.plan.tracked if c not in cfg.key_columns -%}
    {%- do changes.append(auto_cdc._q(c) ~ ' is distinct from ' ~ open_names[c]) -%}
  {%- endfor -%}
  {%- set has_open = auto_cdc._q(p ~ 'has_open') -%}
  {%- set absorbed = auto_cdc._q(p ~ 'absorbed') -%}
  {%- set open_start = auto_cdc._q(p ~ 'open_start') -%}
  {%- set event_seq = auto_cdc._seq_value(args) -%}
  {%- set closed = [] -%}
  {%- for c in args.plan.output -%}{%- do closed.append(open_names[c] ~ ' as ' ~ auto_cdc._q(c)) -%}{%- endfor -%}
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
select {{ auto_cdc._cols(args.plan.output) }},
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
  {{ return(auto_cdc.broadcast_hint(small, args.run.new_events, columns) if small else '') }}
{% endmacro %}

{#- The columns an SCD2 fast-path event carries: the keys, the sequence and the output columns. -#}
{% macro _scd2_event_columns(args) %}
  {%- set columns = [] -%}
  {%- for c in args.cfg.key_columns + args.cfg.seq_columns + args.plan.output if c not in columns -%}{%- do columns.append(c) -%}{%- endfor -%}
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
    {%- if c in args.plan.stored -%}
      {%- do out.append((alias ~ '.' if alias else '') ~ auto_cdc._q(c)) -%}
    {%- else -%}
      {%- do out.append('cast(null as ' ~ args.plan.types.target[c] ~ ') as ' ~ auto_cdc._q(c)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{% endmacro %}
