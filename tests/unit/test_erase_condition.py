"""erase_keys' `where` (macros/operations/condition.sql): one condition over the model's columns, sent to
the engine as the macro read it; everything else refused before anything runs. The macro itself, rendered
by plain Jinja."""
import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest

SOURCE = Path(__file__).resolve().parents[2] / "macros" / "operations" / "condition.sql"
COLUMNS = ["id", "Name", "email", "__END_AT"]


class Returned(Exception):
    pass


def read_condition(where: str) -> dict:
    """_read_condition(where, COLUMNS), with dbt's `return` and the package's `auto_cdc.` calls stood in for."""
    def ret(value):
        raise Returned(value)

    def returning(macro):
        def call(*args):
            try:
                macro(*args)
            except Returned as returned:
                return returned.args[0]
            raise AssertionError("the macro returned nothing")
        return call

    package = SimpleNamespace(_q=lambda name: '"' + name.replace('"', '""') + '"')
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    env.globals.update({"return": ret, "modules": SimpleNamespace(re=re), "auto_cdc": package})
    text = SOURCE.read_text()
    names = re.findall(r"macro (\w+)\(", text)
    macros = env.from_string(text + "{% set exported = {" + ", ".join(f"'{n}': {n}" for n in names) + "} %}").module.exported
    for name, macro in macros.items():
        setattr(package, name, returning(macro))
    return package._read_condition(where, COLUMNS)


@pytest.mark.parametrize("where, sql, columns", [
    ("id = 2", '"id" = 2', ["id"]),
    ('id = 2 and "__END_AT" is null', '"id" = 2 and "__END_AT" is null', ["id", "__END_AT"]),
    ("ID in (1, 2,3)", '"id" in ( 1 , 2 , 3 )', ["id"]),
    ("lower(name) = 'x'", 'lower ( "Name" ) = \'x\'', ["Name"]),
    ('"Name" = \'it\'\'s\'', '"Name" = \'it\'\'s\'', ["Name"]),
    ("cast(id as varchar(10)) = '1'", 'cast ( "id" as varchar ( 10 ) ) = \'1\'', ["id"]),
    ("id between 1 and 1e3 or id is not distinct from 5", '"id" between 1 and 1e3 or "id" is not distinct from 5', ["id"]),
    ("email like '%@x' escape '!'", '"email" like \'%@x\' escape \'!\'', ["email"]),
    ("date '2024-01-31' < \"__END_AT\"", 'date \'2024-01-31\' < "__END_AT"', ["__END_AT"]),
    ("case when id = 1 then true else false end", 'case when "id" = 1 then true else false end', ["id"]),
    ("id = 1 - -1", '"id" = 1 - - 1', ["id"]),
])
def test_a_condition_over_the_models_columns_is_read_token_by_token(where, sql, columns):
    read = read_condition(where)
    assert read == {"sql": sql, "columns": columns, "problems": []}


@pytest.mark.parametrize("where, problem", [
    ("1=1; drop table victim", "`;`: give one condition, not statements"),
    ("id = 1 -- rest", "a comment (`--`)"),
    ("id = 1 /* c */", "a comment (`/*`)"),
    ("id in (select id from victim)", "a subquery (`select`)"),
    ("pg_sleep(5) is null or id = 1", "`pg_sleep(`: a condition calls only"),
    ("Id = 1 and nosuch = 2", "`nosuch` is none of the model's columns"),
    ('"name" = \'x\'', "`name` is none of the model's columns"),
    ("1 = 1", "it names none of the model's columns"),
    ("name = e'x'", "a prefixed string literal"),
    ("name = E'\\\\'' or 1 = 1 --'", "a backslash"),
    ("name = 'a\\\\b'", "a backslash"),
    ("(id = 1", "a `(` that is not closed"),
    ("id = 1)", "a `)` that closes nothing"),
    ("id = 1 as x", "`as` outside cast(... as <type>)"),
    ("id::text = '1'", "`:` is not part of a condition"),
    ("id = $$x$$", "`$` is not part of a condition"),
    ("id = 1, 2", "a `,` outside parentheses"),
    ("id = 1 from victim", "`from` is none of the model's columns"),
    ("cast(id as int; drop table x)", "`;`: give one condition, not statements"),
])
def test_anything_else_is_refused(where, problem):
    problems = read_condition(where)["problems"]
    assert any(problem in p for p in problems), problems
