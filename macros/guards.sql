{#-
  Guards that keep a model's history from being rebuilt without the user asking for it
  (docs/operations.md "Bookkeeping relations" and "Full refresh").

  A model's history lives in its target, its event log and its run log together. When some of them
  exist and others do not, a run cannot tell a first run from a lost table: rebuilding would drop
  the target (and, on Postgres, every view on it) and recompute it from whatever the source still
  holds, so events the source no longer holds would be gone without a word. The run fails instead
  and says how to get out: restore what is missing, or rebuild knowingly with --full-refresh.
-#}
{% macro check_bookkeeping(existing_relation, rel) %}
  {% do auto_cdc.check_identifier_length(this) %}
  {%- set full_refresh = should_full_refresh() -%}
  {%- set target_ok = existing_relation is not none and existing_relation.is_table -%}
  {%- set present = [] -%}
  {%- set missing = [] -%}
  {%- set target_what = 'the target' if existing_relation is none or target_ok else 'the target (a table; a view was found)' -%}
  {%- for what, relation, found in [(target_what, this, target_ok), ('its event log', rel.log, rel.existing_log is not none),
                                     ('its run log', rel.runs, rel.existing_runs is not none)] -%}
    {%- do (present if found else missing).append(what ~ ' ' ~ relation) -%}
  {%- endfor -%}
  {%- set changes_found = rel.existing[2] is not none -%}
  {%- if changes_found -%}{%- do present.append('its change feed ' ~ rel.changes) -%}{%- endif -%}

  {%- if full_refresh and present and not auto_cdc._allow_full_refresh() -%}
    {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': --full-refresh is refused because the model sets "
          ~ "allow_full_refresh: false. A full refresh drops " ~ (present | join(', ')) ~ " and rebuilds the history from what the "
          ~ "source still holds: events the source no longer holds are lost. Run without --full-refresh, or set "
          ~ "allow_full_refresh: true for the run that should rebuild it") -%}
  {%- endif -%}

  {#- a run log with no run in it: the first run stopped before its commit on an engine without
      transactions (Spark), and there is no history yet to lose. Where a run's relations commit
      together, such a run log was emptied by hand, which loses the history as dropping it does. -#}
  {%- set no_history = present and missing and rel.existing_runs is not none and auto_cdc._engine().killed_runs
        and (auto_cdc._scalar('select count(*) from ' ~ rel.runs) | int) == 0 -%}
  {%- if not full_refresh and present and missing and not no_history -%}
    {%- set ways = ["restore " ~ (missing | join(' and ')) ~ " (from a backup, or the engine's time travel) and run again"] -%}
    {%- if rel.existing_log is none and rel.existing_runs is none and target_ok -%}
      {#- both logs missing beside an existing target: what a changed bookkeeping_schema looks like -#}
      {%- do ways.append("or, if the model's bookkeeping_schema changed (it names where the logs live; they are looked for in schema "
            ~ rel.log.schema ~ " now), set it back, or move both logs into " ~ rel.log.schema
            ~ " (create each there as a copy of the old one, then drop the old one) and run again") -%}
    {%- endif -%}
    {%- if config.get('full_refresh') is false -%}
      {%- do ways.append("or rebuild knowingly: the model sets full_refresh: false, so set it to true for one run with --full-refresh, which "
            ~ "drops what is left and rebuilds the history from what the source still holds (events it no longer holds are lost)") -%}
    {%- else -%}
      {%- do ways.append("or rebuild knowingly with `dbt run --select " ~ model.name ~ " --full-refresh`, which drops what is left "
            ~ "and rebuilds the history from what the source still holds (events it no longer holds are lost)") -%}
    {%- endif -%}
    {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': " ~ (missing | join(' and ')) ~ " is missing while "
          ~ (present | join(' and ')) ~ " exists. The model's history is kept across them, so this run stops rather than "
          ~ "rebuild it from the source; nothing was changed. Ways out: " ~ (ways | join('; '))) -%}
  {%- endif -%}
{% endmacro %}


{#- A model whose target name passes the engine's identifier limit in bytes fails before anything is
    created: Postgres would cut the name to its limit (63 bytes; `ж` takes two), so the table it
    creates is not the one dbt's relation, the package's lookups and later runs name. dbt-postgres
    checks the name's length in characters only. The package does not derive a shorter name for the
    target: `ref()` and every query of the model name the target as the model does (docs/decisions.md).
    The names beside the target are shortened with a hash to fit (names.sql). -#}
{% macro check_identifier_length(relation) %}
  {%- set limit = auto_cdc.max_identifier_bytes() -%}
  {%- set size = auto_cdc._byte_length(relation.identifier) -%}
  {%- if limit is not none and size > limit -%}
    {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': the target's name '" ~ relation.identifier ~ "' is "
          ~ size ~ " bytes of UTF-8, more than the engine's identifier limit of " ~ limit ~ " bytes: it would be cut, and "
          ~ "later runs would not find the table. Nothing was created. Give the model an alias of at most " ~ limit
          ~ " bytes (config alias='...')") -%}
  {%- endif -%}
{% endmacro %}


{#- A condition of the run's facts query (_run_facts, plan.sql) on an incremental run: 'run log' or 'event log'
    when that relation was emptied (its rows deleted, or the table truncated) while the other still
    shows a history, else NULL. Either is fatal as a dropped one is (check_bookkeeping): without the run
    log a run takes every event for new and starts its commit versions over; without the event log it
    recomputes keys from nothing and writes rows back that deletes had removed. One probe of each log
    (exists), plus, only when the event log is empty, a look at the run log: its latest run that
    appended events is later than its latest erase_keys or compact, which may empty the log with it.
    None where a run's relations do not commit together (the engine's killed_runs trait): on Spark a
    killed first run leaves events beside an empty run log. -#}
{% macro emptied_bookkeeping_sql(args) %}
  {%- if auto_cdc._engine().killed_runs -%}{{ return(none) }}{%- endif -%}
  {%- set runs_columns = (args.cols.types.get('runs') or {}).keys() | map('lower') | list -%}
  {%- set operations = ['operation is not null'] if 'operation' in runs_columns else [] -%}
  {%- if 'horizon' in runs_columns -%}{%- do operations.append('horizon is not null') -%}{%- endif -%}
  {%- set sql -%}
case
  when not exists (select 1 from {{ args.rel.runs }}) then 'run log'
  when exists (select 1 from {{ args.rel.log }}) then null
  when coalesce((select max(run_id) from {{ args.rel.runs }} where events_applied > 0), 0)
       > coalesce((select max(run_id) from {{ args.rel.runs }} where {{ operations | join(' or ') or '1 = 0' }}), 0) then 'event log'
end
  {%- endset -%}
  {{ return(sql) }}
{% endmacro %}

{#- The run stops when its facts query found an emptied run log or event log (emptied_bookkeeping_sql). -#}
{% macro check_emptied_bookkeeping(emptied) %}
  {%- if emptied is none -%}{{ return(none) }}{%- endif -%}
  {%- set other = 'its event log' if emptied == 'run log' else 'its run log' -%}
  {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': its " ~ emptied ~ " is empty while " ~ other
        ~ " shows a history: it was emptied, which loses the model's history as dropping it does. This run stops rather than "
        ~ "rebuild it; nothing was changed. Ways out: restore the " ~ emptied ~ " (from a backup, or the engine's time travel) "
        ~ "and run again; or rebuild knowingly with `dbt run --select " ~ model.name ~ " --full-refresh`, which drops what is "
        ~ "left and rebuilds the history from what the source still holds (events it no longer holds are lost)") -%}
{% endmacro %}


{#- allow_full_refresh (default true, like dbt's own full_refresh and Databricks' pipelines.reset.allowed):
    false turns --full-refresh into an error instead of a rebuild. -#}
{% macro _allow_full_refresh() %}
  {%- set value = config.get('allow_full_refresh', true) -%}
  {%- if value is not boolean -%}
    {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': allow_full_refresh must be true or false, not '" ~ value ~ "'") -%}
  {%- endif -%}
  {{ return(value) }}
{% endmacro %}


{#- A text sequence orders as text ('10' before '9'; ISO timestamps with different offsets out of
    order), which silently gives wrong rows when the column holds numbers or times. on_text_sequence
    says what a run does when a sequence_by column is text: 'fail' (the default: nothing is applied,
    and the message says how to cast), 'warn' (dbt's warning event, JinjaLogWarning: `--warn-error`
    makes it an error), or 'ignore' (text order is what the user means). A model's warning cannot
    enter dbt's `WARN=` count: dbt counts the results whose status is `warn`, which only data tests
    and source freshness have; a model's result is `success` or `error` (dbt-core 1.8 to 1.11,
    ModelRunner._build_run_model_result). -#}
{% macro check_sequence_type(args) %}
  {%- set mode = config.get('on_text_sequence', 'fail') -%}
  {%- if mode not in ['fail', 'warn', 'ignore'] -%}
    {%- do exceptions.raise_compiler_error("auto_cdc model '" ~ model.name ~ "': on_text_sequence: unknown value '" ~ mode
          ~ "' (expected 'fail', 'warn' or 'ignore')") -%}
  {%- endif -%}
  {%- if mode == 'ignore' -%}{{ return(none) }}{%- endif -%}
  {%- set texts = [] -%}
  {#- the staged source's types when the run has read them already (an incremental run) -#}
  {%- set known = {} -%}
  {%- for c, type in (args.cols.types.get('source') or {}).items() -%}{%- do known.update({c | lower: type}) -%}{%- endfor -%}
  {%- set seq_types = {} -%}
  {%- for c in args.cfg.seq_columns if (c | lower) in known -%}{%- do seq_types.update({c: known[c | lower]}) -%}{%- endfor -%}
  {%- if seq_types | length < args.cfg.seq_columns | length -%}
    {%- set seq_types = auto_cdc._column_types('select ' ~ auto_cdc._cols(args.cfg.seq_columns) ~ ' from ' ~ args.rel.temp.batch) -%}
  {%- endif -%}
  {%- for c, type in seq_types.items() if (type | lower).startswith(('text', 'varchar', 'character', 'char', 'string', 'bpchar')) -%}
    {%- do texts.append((c, type)) -%}
  {%- endfor -%}
  {%- if texts -%}{% do auto_cdc._text_sequence_problem(texts, mode) %}{%- endif -%}
{% endmacro %}

{#- A text sequence_by (`texts`: its columns and their types) fails the run, or warns (`mode`), saying how
    to cast it. -#}
{% macro _text_sequence_problem(texts, mode) %}
  {%- set named, casts = [], [] -%}
  {%- for c, type in texts -%}
    {%- do named.append("'" ~ c ~ "' (" ~ type ~ ")") -%}
    {%- do casts.append("`cast(" ~ auto_cdc._q(c) ~ " as bigint) as " ~ auto_cdc._q(c) ~ "`") -%}
  {%- endfor -%}
  {%- set message = "auto_cdc model '" ~ model.name ~ "': the sequence_by column " ~ (named | join(', '))
        ~ " is text, and events are ordered as text: '10' sorts before '9', and ISO timestamps with different UTC "
        ~ "offsets sort out of order. Cast it in the model's select to the type its values have: " ~ (casts | join(', '))
        ~ " for numbers, or `as timestamp` for times. If text order is meant, set on_text_sequence: 'ignore' "
        ~ "('warn' runs on with a dbt warning)" -%}
  {%- if mode == 'fail' -%}
    {%- do exceptions.raise_compiler_error(message ~ "; nothing was applied") -%}
  {%- endif -%}
  {%- do exceptions.warn(message) -%}
{% endmacro %}
