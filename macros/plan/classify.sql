{#-
  The affected keys sorted into two kinds (plan/plan.sql): a key is in order when its rows follow from
  the run's events and its current row alone (shapes/in_order.sql):
    - every new event of the key sorts after every event already applied to it, and after the last
      truncate (an event at or before one of them lands inside the history: R1);
    - the log holds no mask for the key (its hand edits were folded in: edits.sql);
    - its row in the target (SCD type 2: its open version) is the row its last applied event left: it
      has one exactly when that event is an upsert, with that event's values (no hand edit since), which
      the fingerprint the log keeps of each upsert tells (row_fingerprint_sql); SCD type 2 also holds as
      many versions as its events make, none starting or ending after its first new event. Where the
      engine keeps the target's commit history (Delta) and no one but the model's runs has changed its
      rows since the last run, they are the rows the log yields, and the target is not read.
  Every other affected key is replayed. The result: the affected keys, each with __auto_cdc_fast, its
  number of new events and (held_from_log_applies) the sequence of the row it holds.
-#}
{% macro classified_keys_sql(args) %}
  {%- set c = auto_cdc._classify_names(args) -%}
  {%- set keys, seqs, op, t = args.cfg.key_columns, args.cfg.seq_columns, c.op, auto_cdc._names().truncate -%}
with touched as (
  select {{ auto_cdc._cols(keys) }}, count(*) as {{ c.new_events }}{% if c.by_bounds %}, min({{ auto_cdc._q(seqs[0]) }}) as {{ c.first_new }}{% endif %}
  from {{ args.rel.temp.new }} where {{ op }} <> '{{ t }}'
  group by {{ auto_cdc._cols(keys) }}
),
all_keys as (
  {{ auto_cdc.affected_keys_sql(args) if args.plan.killed else 'select ' ~ auto_cdc._cols(keys) ~ ' from touched' }}
),
last_truncate as (
  select {{ auto_cdc._cols(seqs) }} from {{ c.log }} where {{ op }} = '{{ t }}' order by {{ auto_cdc._seq_order(seqs, desc=true) }} limit 1
),
last_event as (
  {{ auto_cdc._classify_last_event_sql(args, c) if c.by_aggregate else auto_cdc._classify_ranked_events_sql(args, c) }}
),
late as (
  {{ auto_cdc._classify_late_sql(args, c) }}
),
expected as (
  select e.* from last_event e left join last_truncate t on 1 = 1
  where e.{{ c.rank }} = 1 and e.{{ op }} = '{{ auto_cdc._names().upsert }}'
    and (t.{{ auto_cdc._q(seqs[0]) }} is null or not {{ auto_cdc._seq_lt(seqs, 'e', 't') }})
)
{%- if not c.unedited %},
held as (
  {{ auto_cdc._classify_held_sql(args, c) }}
)
{%- if c.open_only %},
versions as (
  {{ auto_cdc._classify_versions_sql(args, c) }}
)
{%- endif %}
{%- endif %}
{{ auto_cdc._classify_select_sql(args, c) }}
{% endmacro %}


{#- The names and choices of the classification:
    - compared: the columns the target and the log both hold before this run's schema changes;
    - open_only: SCD2, whose open version is the row its last applied upsert left;
    - every_upsert_opens / hashed: SCD2's versions are its upserts (_every_upsert_opens), or are counted by
      comparing each event's tracked columns with the one before it, by a fingerprint of them;
    - by_bounds: SCD2 with a one-column sequence compares each key's first new sequence with the greatest
      start and end of its versions;
    - by_aggregate: each key's last event by aggregates where the engine does so (last_event_by: SCD1, and
      SCD2 whose versions are its upserts, with a one-column sequence), else by a window over its events;
    - unedited: no row of the target is compared with the log (unedited_target_version), and held_from_log:
      the rows the keys hold follow from the log (held_at). -#}
{% macro _classify_names(args) %}
  {%- set n, cfg, p = auto_cdc._names(), args.cfg, auto_cdc._names().internal_prefix -%}
  {%- set scd2 = cfg.scd == 2 -%}
  {%- set every = scd2 and auto_cdc._every_upsert_opens(args) -%}
  {%- set last_by = auto_cdc._engine().last_event_by -%}
  {%- set c = {'op': auto_cdc._q(n.op), 'rank': auto_cdc._q(n.rank), 'fp': auto_cdc._q(n.fingerprint), 'log': args.plan.logged,
               'open_only': scd2, 'every_upsert_opens': every, 'last_by': last_by,
               'hashed': auto_cdc._classified_tracked(args) if scd2 and not every else [],
               'compared': args.cols.output | reject('in', args.cols.add_columns) | list,
               'by_bounds': scd2 and cfg.seq_columns | length == 1,
               'by_aggregate': (not scd2 or every) and cfg.seq_columns | length == 1
                               and cfg.seq_columns[0] not in cfg.key_columns and last_by in ('aggregate', 'join'),
               'unedited': args.plan.get('unedited', false),
               'held_from_log': args.plan.get('unedited', false) and auto_cdc.held_from_log_applies(args),
               'narrow': (cfg.key_columns + cfg.seq_columns + [n.op, n.fingerprint]) | unique | list,
               'k0': auto_cdc._q(cfg.key_columns[0])} -%}
  {%- for name in ['masked', 'latest', 'upserts', 'first_new', 'last_start', 'last_end', 'tracked_fp', 'previous_fp', 'previous_op', 'rows', 'versions'] -%}
    {%- do c.update({name: auto_cdc._q(p ~ name)}) -%}
  {%- endfor -%}
  {{ return(dict(c, new_events=auto_cdc._q(n.new_events))) }}
{% endmacro %}


{#- One row a key with its last logged event, by aggregates: each key's greatest sequence (a mask has none:
    the aggregates pass it by), whether a mask hides any and, for SCD2, how many upserts it holds; of the
    touched keys, or of the batch's keys where the run reads a copy of their events (touched_log: a key
    without new events is in no join after). DuckDB takes the event by arg_max, coded as one value (-1 a
    delete; an upsert its fingerprint, never negative on DuckDB, or -2 where it has none); elsewhere it is
    joined back at its greatest sequence (an edit event beside the source event there, under a mask that
    sends the key to the replay, makes two: grouped into one row). -#}
{% macro _classify_last_event_sql(args, c) %}
  {%- set n, keys, s = auto_cdc._names(), args.cfg.key_columns, auto_cdc._q(args.cfg.seq_columns[0]) -%}
  {%- set copied = (c.log | string) != (args.rel.log | string) -%}
  {%- set coded = 'case when l.' ~ c.op ~ " = '" ~ n.delete ~ "' then -1 when l." ~ c.fp ~ ' >= 0 then l.' ~ c.fp ~ ' else -2 end' -%}
  {%- set extra = (', ' ~ c.upserts) if c.open_only else '' -%}
  {%- set per_key -%}
select {% if not copied %}{{ auto_cdc.broadcast_hint(['k'], args.plan.new_events, keys | length) }}{% endif %}{{ auto_cdc._cols(keys, 'l') }}, max(l.{{ s }}) as {{ s }},
  {%- if c.last_by == 'aggregate' %} {{ auto_cdc.arg_max_sql(coded, 'l.' ~ s) }} as {{ c.latest }},{% endif %}
  max(case when l.{{ c.op }} = '{{ n.mask }}' then 1 else 0 end) as {{ c.masked }}
  {%- if c.open_only %}, count(case when l.{{ c.op }} = '{{ n.upsert }}' then 1 end) as {{ c.upserts }}{% endif %}
from {{ c.log }} l
{%- if not copied %} join touched k on {{ auto_cdc._eq(keys, 'l', 'k') }}{% endif %}
where l.{{ c.op }} in ('{{ n.upsert }}', '{{ n.delete }}', '{{ n.mask }}')
group by {{ auto_cdc._cols(keys, 'l') }}
  {%- endset -%}
  {%- if c.last_by == 'aggregate' -%}
select {{ auto_cdc._cols(keys) }}, {{ s }},
  case when {{ c.latest }} = -1 then '{{ n.delete }}' when {{ c.latest }} is not null then '{{ n.upsert }}' end as {{ c.op }},
  case when {{ c.latest }} >= 0 then {{ c.latest }} end as {{ c.fp }}, 1 as {{ c.rank }}, {{ c.masked }}{{ extra }}
from ({{ per_key }}) l
  {%- else -%}
select {{ auto_cdc._cols(keys, 'm') }}, m.{{ s }}, min(l.{{ c.op }}) as {{ c.op }}, min(l.{{ c.fp }}) as {{ c.fp }}, 1 as {{ c.rank }},
  m.{{ c.masked }}{{ (', m.' ~ c.upserts) if c.open_only else '' }}
from ({{ per_key }}) m
left join {{ c.log }} l on {{ auto_cdc._eq(keys, 'l', 'm') }} and l.{{ s }} = m.{{ s }} and l.{{ c.op }} in ('{{ n.upsert }}', '{{ n.delete }}')
group by {{ auto_cdc._cols(keys, 'm') }}, m.{{ s }}, m.{{ c.masked }}{{ (', m.' ~ c.upserts) if c.open_only else '' }}
  {%- endif -%}
{% endmacro %}


{#- The touched keys' logged events ranked, the last one first (masks after every event), with whether a
    mask hides any; for SCD2 whose versions are counted, the event before each one and, by a hash of its
    tracked values (the window sorts 8 bytes a row, not every tracked column; two values that hash alike
    count one version less than the target holds, which only sends the key to the replay), whether it
    changed them. -#}
{% macro _classify_ranked_events_sql(args, c) %}
  {%- set n, keys = auto_cdc._names(), args.cfg.key_columns -%}
  {%- set counted = c.open_only and not c.every_upsert_opens -%}
select {{ auto_cdc._cols(c.narrow, 'l') }}, row_number() over latest as {{ c.rank }},
  {%- if counted %}
  lead(l.{{ c.op }}) over latest as {{ c.previous_op }},
  {%- if c.hashed %} l.{{ c.tracked_fp }}, lead(l.{{ c.tracked_fp }}) over latest as {{ c.previous_fp }},{% endif %}
  {%- endif %}
  max(case when l.{{ c.op }} = '{{ n.mask }}' then 1 else 0 end) over (partition by {{ auto_cdc._cols(keys, 'l') }}) as {{ c.masked }}
from (
  select {{ auto_cdc.broadcast_hint(['k'], args.plan.new_events, keys | length) }}{{ auto_cdc._cols(c.narrow, 'l') }}
  {%- if counted and c.hashed %}, {{ auto_cdc.row_fingerprint_sql(c.hashed, 'l') }} as {{ c.tracked_fp }}{% endif %}
  from {{ c.log }} l join touched k on {{ auto_cdc._eq(keys, 'l', 'k') }}
  where l.{{ c.op }} in ('{{ n.upsert }}', '{{ n.delete }}', '{{ n.mask }}')
) l
window latest as (partition by {{ auto_cdc._cols(keys, 'l') }}
                  order by case when l.{{ c.op }} = '{{ n.mask }}' then 1 else 0 end, {{ auto_cdc._seq_order(args.cfg.seq_columns, 'l', desc=true) }})
{% endmacro %}


{#- The keys with a new event at or before their last applied event or the last truncate, or under a mask;
    SCD2 with a several-column sequence, also a key with a version (hand-inserted, say) that starts or
    ends after a new event (with one column: held's bounds, in the final select). -#}
{% macro _classify_late_sql(args, c) %}
  {%- set keys, seqs, t = args.cfg.key_columns, args.cfg.seq_columns, auto_cdc._names().truncate -%}
  {%- set hint = auto_cdc.broadcast_hint(['b'], args.plan.new_events, (keys | length) + (seqs | length)) -%}
select {{ hint }}distinct {{ auto_cdc._cols(keys, 'b') }}
from {{ args.rel.temp.new }} b join last_event e on {{ auto_cdc._eq(keys, 'e', 'b') }} and e.{{ c.rank }} = 1
where b.{{ c.op }} <> '{{ t }}' and (e.{{ c.masked }} = 1 or not {{ auto_cdc._seq_lt(seqs, 'e', 'b') }})
union
select distinct {{ auto_cdc._cols(keys, 'b') }}
from {{ args.rel.temp.new }} b cross join last_truncate t
where b.{{ c.op }} <> '{{ t }}' and not {{ auto_cdc._seq_lt(seqs, 't', 'b') }}
{%- if c.open_only and not c.by_bounds and not c.unedited %}
{%- set n, new_seq = auto_cdc._names(), auto_cdc._seq_value(args, 'b') %}
union
select {{ hint }}distinct {{ auto_cdc._cols(keys, 'b') }}
from {{ args.rel.temp.new }} b join {{ args.rel.target }} t on {{ auto_cdc._eq(keys, 't', 'b') }}
where b.{{ c.op }} <> '{{ t }}' and (t.{{ auto_cdc._q(n.start_at) }} >= {{ new_seq }} or t.{{ auto_cdc._q(n.end_at) }} > {{ new_seq }})
{%- endif %}
{% endmacro %}


{#- The touched keys' rows in the target, read once (from held where the run read them first): how many are
    current (SCD2: open versions), the least fingerprint among them (a key with one is in order only if it
    is the row the key's last applied event left; SCD2: the open version's, closed versions are counted,
    never hashed) and, for SCD2, how many versions there are and their greatest start and end. -#}
{% macro _classify_held_sql(args, c) %}
  {%- set n, keys = auto_cdc._names(), args.cfg.key_columns -%}
  {%- set end_at = 't.' ~ auto_cdc._q(n.end_at) -%}
  {%- set fingerprint = auto_cdc.row_fingerprint_sql(c.compared, 't') -%}
select {% if not args.plan.held_first %}{{ auto_cdc.broadcast_hint(['k'], args.plan.new_events, keys | length) }}{% endif %}{{ auto_cdc._cols(keys, 't') }},
{%- if c.open_only %}
  count(case when {{ end_at }} is null then 1 end) as {{ c.rows }}, count(*) as {{ c.versions }},
  {%- if c.by_bounds %} max(t.{{ auto_cdc._q(n.start_at) }}) as {{ c.last_start }}, max({{ end_at }}) as {{ c.last_end }},{% endif %}
  min(case when {{ end_at }} is null then {{ fingerprint }} end) as {{ c.fp }}
{%- else %}
  count(*) as {{ c.rows }}, min({{ fingerprint }}) as {{ c.fp }}
{%- endif %}
{%- if args.plan.held_first %}
from {{ args.rel.temp.held }} t
{%- else %}
from {{ args.rel.target }} t join {{ auto_cdc.in_key_order('touched', keys) }} k on {{ auto_cdc._eq(keys, 't', 'k') }}
{%- endif %}
group by {{ auto_cdc._cols(keys, 't') }}
{% endmacro %}


{#- SCD2: how many versions the key's events make, against how many the target holds (a closed version
    deleted or inserted by hand sends the key to the replay, which folds the edit in now): its upserts
    (every upsert opens one), else each upsert after a delete or that changes a tracked column. A key
    with a mask is never in order (late): its events are not counted. -#}
{% macro _classify_versions_sql(args, c) %}
  {%- set n, keys = auto_cdc._names(), args.cfg.key_columns -%}
  {%- if c.by_aggregate -%}
select {{ auto_cdc._cols(keys) }}, {{ c.upserts }} as {{ c.versions }} from last_event where {{ c.masked }} = 0
  {%- else -%}
  {%- set upsert = c.op ~ " = '" ~ n.upsert ~ "'" -%}
  {%- set changed = c.tracked_fp ~ ' is distinct from ' ~ c.previous_fp if c.hashed else 'false' -%}
select {{ auto_cdc._cols(keys) }}, sum(case when {{ upsert }}
  {%- if not c.every_upsert_opens %} and ({{ c.previous_op }} is null or {{ c.previous_op }} <> '{{ n.upsert }}' or {{ changed }}){% endif %}
  then 1 else 0 end) as {{ c.versions }}
from last_event where {{ c.masked }} = 0
group by {{ auto_cdc._cols(keys) }}
  {%- endif -%}
{% endmacro %}


{#- Each affected key with its kind (__auto_cdc_fast), its number of new events and, where the rows the keys
    hold follow from the log (held_from_log_applies), the sequence of its last applied event where it left
    a row in the target (SCD2: the open version, which it started where every upsert opens one). Every
    side joined to the affected keys holds a row per key of the batch at most. -#}
{% macro _classify_select_sql(args, c) %}
  {%- set n, keys, k0 = auto_cdc._names(), args.cfg.key_columns, c.k0 -%}
  {%- set small = ['k', 'lt'] + (['x'] if c.held_from_log or not c.unedited else []) + ([] if c.unedited else ['h'] + (['v'] if c.open_only else [])) -%}
select {{ auto_cdc.broadcast_hint(small, args.plan.get('batch_rows'), (c.narrow | length) + 6) }}{{ auto_cdc._cols(keys, 'a') }},
  case
    when k.{{ k0 }} is null or lt.{{ k0 }} is not null then false
    {%- if not c.unedited %}
    {%- if c.by_bounds %}
    when h.{{ c.last_start }} >= k.{{ c.first_new }} or h.{{ c.last_end }} > k.{{ c.first_new }} then false
    {%- endif %}
    when coalesce(h.{{ c.rows }}, 0) <> case when x.{{ k0 }} is null then 0 else 1 end then false
    {%- if c.open_only %}
    when coalesce(h.{{ c.versions }}, 0) <> coalesce(v.{{ c.versions }}, 0) then false
    {%- endif %}
    when x.{{ k0 }} is not null and h.{{ c.fp }} is distinct from x.{{ c.fp }} then false
    {%- endif %}
    else true
  end as {{ auto_cdc._q(n.fast) }},
  k.{{ c.new_events }}
  {%- if c.held_from_log %}, case when x.{{ k0 }} is not null then {{ auto_cdc._seq_value(args, 'x') }} end as {{ auto_cdc._q(n.held_at) }}{% endif %}
from all_keys a
left join touched k on {{ auto_cdc._eq(keys, 'k', 'a') }}
left join (select distinct * from late) lt on {{ auto_cdc._eq(keys, 'lt', 'a') }}
{%- if c.held_from_log or not c.unedited %}
left join expected x on {{ auto_cdc._eq(keys, 'x', 'a') }}
{%- endif %}
{%- if not c.unedited %}
left join held h on {{ auto_cdc._eq(keys, 'h', 'a') }}
{%- if c.open_only %}
left join versions v on {{ auto_cdc._eq(keys, 'v', 'a') }}
{%- endif %}
{%- endif %}
{% endmacro %}


{#- Whether the shape has in-order rows: SCD1 and SCD2 without partial updates; SCD2 continues the open
    version from its row, with the sequence of its __START_AT, so a sequence column shown in the row must
    be tracked (a tracked column's value is the same in every event of a version; an untracked one shows
    the version's last event's). Bitemporal targets and partial updates replay every key. -#}
{% macro _in_order_applies(args) %}
  {%- set cfg = args.cfg -%}
  {%- if cfg.scd not in [1, 2] or cfg.columns_to_update or cfg.ignore_null -%}{{ return(false) }}{%- endif -%}
  {{ return(cfg.scd == 1 or cfg.seq_columns | select('in', args.cols.output) | reject('in', args.cols.tracked) | list | length == 0) }}
{% endmacro %}
