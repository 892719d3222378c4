{#-
  erase_keys: remove every trace of some keys of an auto_cdc or auto_cdc_snapshot model, for
  data-protection requests (docs/operations.md "Erasing keys").

    dbt run-operation auto_cdc.erase_keys --args '{model: customers, where: "customer_id = 42"}'

  `where` is one condition over the model's columns (condition.sql), refused with every problem
  before anything runs. It selects keys: those of every row of the target, event of the log and row
  of the change feed that meets it (each where the relation holds the columns it names). The erase
  removes those keys whole, whatever columns the condition names: their rows from the target, every
  event of theirs from the log (tombstones, masks and edit events included) and their rows from the
  change feed, which then records the erasure as a `delete` of each target row erased, carrying only
  the row's key (the keys; SCD2 with __START_AT), so consumers of table_changes can follow. It is a writer like a run (writer.sql): one transaction
  under the model's lock, with lock_timeout and statement_timeout. `vacuum: true` (Postgres) rewrites
  the three relations after the commit (vacuum_sql), so no file of the database keeps the erased
  rows' bytes. Erase the keys from the source as well: a later run that reads their events
  again applies them as new ones.
-#}
{% macro erase_keys(model, where=none, vacuum=false) %}
  {%- set op = auto_cdc._operation_model('erase_keys', model, ['auto_cdc', 'auto_cdc_snapshot']) -%}
  {%- if not auto_cdc._exists(op.target) -%}
    {%- do exceptions.raise_compiler_error(op.head ~ "the model has not been built yet") -%}
  {%- endif -%}
  {% do auto_cdc._check_deletes_supported('erase_keys', op.target) %}
  {%- set plan = auto_cdc._erasure_plan(op, where, vacuum) -%}
  {%- set held = auto_cdc.writer_lock(op.target, model, op.lock_timeout, op.statement_timeout) -%}
  {%- set erased = auto_cdc._erase(op, plan) -%}
  {% do auto_cdc._keep_target_unedited(op, erased.rows[0] > 0) %}
  {% do auto_cdc.writer_done() %}
  {% do auto_cdc.writer_commit(held) %}
  {%- if vacuum and erased.erased > 0 -%}
    {#- outside any transaction (VACUUM cannot run in one): after the commit, with no BEGIN -#}
    {%- for sql in auto_cdc.vacuum_sql(plan.relations) -%}
      {% call statement('auto_cdc_vacuum', auto_begin=False) %}{{ sql }}{% endcall %}
    {%- endfor -%}
  {%- endif -%}
  {%- set counts = [] -%}
  {%- for rel in plan.relations -%}{%- do counts.append(rel.identifier ~ ': ' ~ erased.rows[loop.index0] ~ ' row(s)') -%}{%- endfor -%}
  {% do log("auto_cdc.erase_keys " ~ model ~ " where " ~ plan.condition ~ ": " ~ erased.erased ~ " key(s) erased from "
            ~ (counts | join(', ')) ~ ('; vacuumed' if vacuum and erased.erased > 0 else ''), info=true) %}
{% endmacro %}


{#- What the erase reads before it takes the lock, and every problem with its arguments at once:
    {relations: the target, the log and the change feed that exist, sources: those holding every
    column the condition names, condition: its SQL, key_columns, changes, runs, runs_columns}. -#}
{% macro _erasure_plan(op, where, vacuum) %}
  {%- set n = auto_cdc._names() -%}
  {%- set found = {'target': op.target} -%}
  {%- for name in ['log', 'runs', 'changes'] if auto_cdc._exists(op[name]) -%}{%- do found.update({name: op[name]}) -%}{%- endfor -%}
  {%- set types = auto_cdc._relation_types(found) -%}
  {%- set columns = types.target.keys() | list -%}
  {%- for c in (types.get('log') or {}).keys() if c not in columns and not (c | lower).startswith(n.internal_prefix | lower) -%}
    {%- do columns.append(c) -%}
  {%- endfor -%}
  {%- set keys = [] -%}
  {%- for k in auto_cdc._as_list(op.node.config.get('keys')) or [] -%}{%- do keys.append(auto_cdc._resolve_column(k, columns) or k) -%}{%- endfor -%}
  {%- set problems = [] -%}
  {%- if where is none or not (where | string | trim) -%}
    {%- do problems.append("give `where`, a condition over the model's columns: " ~ (columns | join(', '))) -%}
    {%- set condition = {'sql': '', 'columns': []} -%}
  {%- else -%}
    {%- set condition = auto_cdc._read_condition(where | string, columns) -%}
    {%- for p in condition.problems -%}{%- do problems.append("where: " ~ p) -%}{%- endfor -%}
  {%- endif -%}
  {%- if vacuum is not boolean -%}
    {%- do problems.append("vacuum: true or false, not '" ~ vacuum ~ "'") -%}
  {%- elif vacuum and auto_cdc.vacuum_sql([op.target]) is none -%}
    {%- do problems.append("vacuum: only Postgres rewrites the relations after an erase (docs/operations.md \"Erasing keys\")") -%}
  {%- endif -%}
  {%- if problems -%}
    {%- do exceptions.raise_compiler_error(op.head ~ "cannot erase; nothing was changed:\n  - " ~ (problems | join('\n  - '))) -%}
  {%- endif -%}
  {%- set relations, sources = [], [] -%}
  {%- for name in ['target', 'log', 'changes'] if name in found -%}
    {%- do relations.append(found[name]) -%}
    {%- set held = types[name].keys() | list -%}
    {%- if condition.columns | reject('in', held) | list | length == 0 -%}{%- do sources.append(found[name]) -%}{%- endif -%}
  {%- endfor -%}
  {%- set row_key = keys + [n.start_at, n.system_start_at] | select('in', columns) | list -%}
  {{ return({'relations': relations, 'sources': sources, 'condition': condition.sql, 'key_columns': keys, 'row_key': row_key,
             'changes': found.get('changes'), 'runs': found.get('runs'), 'runs_columns': (types.get('runs') or {}).keys() | list}) }}
{% endmacro %}


{#- The erase itself, under the lock: the keys the condition selects into a table of their own (the
    erasure's keys: erasure_keys_relation), then the rows of those keys deleted from the change feed,
    the erasure's rows added to it, the keys' rows deleted from the log and the target, and the
    erasure's row in the run log. Returns
    {erased: how many keys, rows: the rows deleted from each of plan.relations}. -#}
{% macro _erase(op, plan) %}
  {%- set keys = auto_cdc._cols(plan.key_columns) -%}
  {%- set selected = [] -%}
  {%- for rel in plan.sources -%}
    {%- do selected.append('select ' ~ keys ~ ' from ' ~ rel ~ ' where ' ~ plan.condition) -%}
  {%- endfor -%}
  {%- set not_null = [] -%}
  {%- for k in plan.key_columns -%}{%- do not_null.append(auto_cdc._q(k) ~ ' is not null') -%}{%- endfor -%}
  {%- set erased = auto_cdc.erasure_keys_relation(op.target) -%}
  {%- set create = auto_cdc.create_temp_table_sql(erased, 'select distinct ' ~ keys ~ ' from (\n' ~ (selected | join('\nunion all\n'))
        ~ '\n) ' ~ auto_cdc._alias('selected') ~ ' where ' ~ (not_null | join(' and '))) -%}
  {#- the next commit version after every one the run log and the change feed hold (changes.sql) -#}
  {%- set versions = ['(select coalesce(max(commit_version), 0) from ' ~ plan.runs ~ ')' if plan.runs else '0'] -%}
  {%- if plan.changes -%}{%- do versions.append('(select coalesce(max(_commit_version), 0) from ' ~ plan.changes ~ ')') -%}{%- endif -%}
  {%- set next_version = (versions[0] if versions | length == 1 else 'greatest(' ~ (versions | join(', ')) ~ ')') ~ ' + 1' -%}
  {%- set row = auto_cdc._run_then_query(create, 'select count(*), ' ~ next_version ~ ' from ' ~ erased).rows[0] -%}
  {%- set found = {'erased': row[0] | int, 'rows': []} -%}
  {%- if found.erased == 0 -%}
    {%- for rel in plan.relations -%}{%- do found.rows.append(0) -%}{%- endfor -%}
    {{ return(found) }}
  {%- endif -%}
  {%- set in_erased = '(' ~ keys ~ ') in (select ' ~ keys ~ ' from ' ~ erased ~ ')' -%}
  {%- set version = row[1] | int -%}
  {%- for rel in plan.relations | reverse -%}
    {%- if rel == op.target and plan.changes and auto_cdc._engine().change_table -%}
      {#- the erasure in the change feed: a delete of each target row it erases, carrying only the row's
          key (SCD2 and bitemporal: with the version's __START_AT and __SYSTEM_START_AT) -#}
      {%- set row_key = auto_cdc._cols(plan.row_key) -%}
      {% do auto_cdc._run_sql('insert into ' ~ plan.changes ~ ' (' ~ row_key ~ ', _change_type, _commit_version, _commit_timestamp) select '
            ~ row_key ~ ", 'delete', " ~ version ~ ", cast('" ~ run_started_at.strftime("%Y-%m-%d %H:%M:%S.%f") ~ "' as "
            ~ dbt.type_timestamp() ~ ") from " ~ op.target ~ ' where ' ~ in_erased) %}
    {%- endif -%}
    {%- do found.rows.insert(0, auto_cdc.delete_keys(rel, erased, plan.key_columns)) -%}
  {%- endfor -%}
  {%- if plan.runs and auto_cdc.operations_take_run_ids() -%}
    {% do auto_cdc._run_statements(auto_cdc._operation_run_sql(plan.runs, plan.runs_columns, 'erase_keys', found.rows[0],
          version if plan.changes else none)) %}
  {%- endif -%}
  {% do auto_cdc.drop_erasure_keys(op.target, erased) %}
  {{ return(found) }}
{% endmacro %}


{#- A target (of `op`, the erased model: _operation_model) no one but the model's runs had changed since
    the last run's version (unedited_target_version, on an engine that keeps a history of the table's
    commits) still holds, after the erase, what its log
    yields: the erase took the keys from both. Where the erase's delete (`deleted`: it removed rows, by
    the count delete_keys returns, on Delta the MERGE's own) is the only commit since that changes
    rows, the last run's row in the run log takes the target's new version, and the next run still skips
    comparing the target with the log. Otherwise the row is left as it is, and the next run finds the
    erase's commit, or anyone else's, and compares. -#}
{% macro _keep_target_unedited(op, deleted) %}
  {%- set target = op.target -%}
  {%- set runs = op.runs -%}
  {#- the last run's target_version, as a run reads it (prior_runs: none on the engines that read the run
      log as they go, which keep no history of the target's commits either) -#}
  {%- set prior = auto_cdc.prior_runs({'runs': runs}) if adapter.get_relation(runs.database, runs.schema, runs.identifier) is not none else none -%}
  {%- if prior is none or prior.target_version is none -%}{{ return(none) }}{%- endif -%}
  {%- set version = auto_cdc.unedited_target_version({'rel': {'target': target}}, prior.target_version, 1 if deleted else 0) -%}
  {%- if version is not none and version != prior.target_version -%}
    {% do auto_cdc._run_sql('update ' ~ runs ~ ' set target_version = ' ~ version ~ ' where run_id = ' ~ (prior.next_run - 1)) %}
  {%- endif -%}
{% endmacro %}
