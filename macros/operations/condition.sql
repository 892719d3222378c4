{#-
  erase_keys' `where`: one boolean condition over the model's columns, read token by token before
  anything runs, and sent to the engine as it was read (the tokens joined by spaces), never as the
  text given. Accepted: the model's columns (unquoted, in any case, or double-quoted, exactly),
  numbers, string literals (without backslashes, which engines read differently), typed literals
  (`date '2024-01-31'`, `timestamp '...'`, `interval '...'`), comparisons and arithmetic, `and`, `or`,
  `not`, `is [not] null`, `is [not] distinct from`, `[not] in (...)`, `between`, `[i]like ... [escape
  ...]`, `case ... end`, `cast(... as <type>)` and a few pure functions (_condition_functions).
  Anything else is refused: several statements (`;`), comments, subqueries (`select`), other
  functions, other words, a condition that names none of the model's columns.
-#}

{#- The functions a condition may call: pure functions of their arguments, on DuckDB and Postgres. -#}
{% macro _condition_functions() %}
  {{ return(['lower', 'upper', 'trim', 'ltrim', 'rtrim', 'length', 'substr', 'replace', 'coalesce', 'nullif',
             'abs', 'round', 'floor', 'ceil', 'greatest', 'least', 'date_trunc', 'cast']) }}
{% endmacro %}

{#- `where` read against `columns` (the model's column names). Returns {sql: the condition as the engine
    gets it, columns: the columns it names, problems: what is refused, each said once}. -#}
{% macro _read_condition(where, columns) %}
  {%- set keywords = ['and', 'or', 'not', 'is', 'null', 'true', 'false', 'in', 'between', 'like', 'ilike', 'escape',
                      'distinct', 'from', 'case', 'when', 'then', 'else', 'end', 'as'] -%}
  {%- set functions = auto_cdc._condition_functions() -%}
  {%- set toks = auto_cdc._condition_tokens(where) -%}
  {%- set st = namespace(depth=0, casts=[], type_at=none, problems=[], named=[], out=[]) -%}
  {%- for t in toks -%}
    {%- set prev = toks[loop.index0 - 1] if not loop.first else {'kind': '', 'text': ''} -%}
    {%- set next = toks[loop.index] if not loop.last else {'kind': '', 'text': ''} -%}
    {%- set word = t.text | lower if t.kind == 'word' else none -%}
    {%- if t.kind == 'other' -%}
      {%- do st.problems.append({';': "`;`: give one condition, not statements",
                                 '\\': "a backslash: engines read it differently in a string literal"}.get(t.text,
                                 "`" ~ t.text ~ "` is not part of a condition")) -%}
    {%- elif t.text in ['-', '*'] and not t.spaced and prev.text in ['-', '/'] and (prev.text ~ t.text) in ['--', '/*'] -%}
      {%- do st.problems.append("a comment (`" ~ prev.text ~ t.text ~ "`)") -%}
    {%- elif t.kind == 'string' and not t.spaced and prev.kind in ['word', 'number'] -%}
      {%- do st.problems.append("`" ~ prev.text ~ "'...'`: a prefixed string literal") -%}
    {%- elif t.text in ['(', ')'] -%}
      {%- set st.depth = st.depth + (1 if t.text == '(' else -1) -%}
      {%- if st.depth < 0 -%}{%- do st.problems.append("a `)` that closes nothing") -%}{%- endif -%}
      {%- if t.text == ')' and st.casts and st.casts[-1] > st.depth -%}
        {%- do st.casts.pop() -%}
        {%- set st.type_at = none -%}
      {%- endif -%}
      {%- do st.out.append(t.text) -%}
    {%- elif st.type_at is not none -%}
      {#- the type of a cast, up to the cast's closing parenthesis: words, and a precision -#}
      {%- if t.kind in ['word', 'number'] or t.text == ',' -%}{%- do st.out.append(word or t.text) -%}
      {%- else -%}{%- do st.problems.append("`" ~ t.text ~ "` in the type of a cast") -%}
      {%- endif -%}
    {%- elif word == 'select' -%}{%- do st.problems.append("a subquery (`select`)") -%}
    {%- elif word == 'as' and not (st.casts and st.casts[-1] == st.depth) -%}
      {%- do st.problems.append("`as` outside cast(... as <type>)") -%}
    {%- elif word in keywords and (word != 'from' or (prev.text | lower) == 'distinct') -%}
      {%- if word == 'as' -%}{%- set st.type_at = st.depth -%}{%- endif -%}
      {%- do st.out.append(word) -%}
    {%- elif word and next.text == '(' -%}
      {%- if word in functions -%}
        {%- if word == 'cast' -%}{%- do st.casts.append(st.depth + 1) -%}{%- endif -%}
        {%- do st.out.append(word) -%}
      {%- else -%}
        {%- do st.problems.append("`" ~ t.text ~ "(`: a condition calls only " ~ (functions | join(', '))) -%}
      {%- endif -%}
    {%- elif word in ['date', 'time', 'timestamp', 'interval'] and next.kind == 'string' -%}
      {%- do st.out.append(word) -%}
    {%- elif t.kind in ['word', 'quoted'] -%}
      {%- set name = t.text[1:-1] | replace('""', '"') if t.kind == 'quoted' else t.text -%}
      {%- set found = [] -%}
      {%- for c in columns if c == name or (word and (c | lower) == word) -%}{%- do found.append(c) -%}{%- endfor -%}
      {%- if found -%}
        {%- do st.out.append(auto_cdc._q(found[0])) -%}
        {%- if found[0] not in st.named -%}{%- do st.named.append(found[0]) -%}{%- endif -%}
      {%- else -%}
        {%- do st.problems.append("`" ~ name ~ "` is none of the model's columns") -%}
      {%- endif -%}
    {%- else -%}
      {%- if t.text == ',' and st.depth == 0 -%}{%- do st.problems.append("a `,` outside parentheses") -%}{%- endif -%}
      {%- do st.out.append(t.text) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if st.depth > 0 -%}{%- do st.problems.append("a `(` that is not closed") -%}{%- endif -%}
  {%- if not st.problems and not st.named -%}{%- do st.problems.append("it names none of the model's columns") -%}{%- endif -%}
  {{ return({'sql': st.out | join(' '), 'columns': st.named, 'problems': st.problems | unique | list}) }}
{% endmacro %}

{#- The condition's tokens, each {kind: string, number, quoted, word, op or other (a character no
    token starts with), text, spaced: whitespace before it}. -#}
{% macro _condition_tokens(where) %}
  {%- set pattern = "(\\s+)|('(?:[^'\\\\]|'')*')|((?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)|(\"(?:[^\"]|\"\")+\")"
        ~ "|([^\\W\\d]\\w*)|(<>|!=|<=|>=|\\|\\||[=<>+*/%(),-])|(.)" -%}
  {%- set kinds = ['string', 'number', 'quoted', 'word', 'op', 'other'] -%}
  {%- set toks = [] -%}
  {%- set ws = namespace(before=true) -%}
  {%- for groups in modules.re.findall(pattern, where | string, modules.re.S) -%}
    {%- if groups[0] -%}
      {%- set ws.before = true -%}
    {%- else -%}
      {%- for text in groups[1:] -%}
        {%- if text -%}{%- do toks.append({'kind': kinds[loop.index0], 'text': text, 'spaced': ws.before}) -%}{%- endif -%}
      {%- endfor -%}
      {%- set ws.before = false -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(toks) }}
{% endmacro %}
