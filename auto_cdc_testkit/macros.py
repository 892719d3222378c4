"""Render one of the package's macros with plain Jinja, for unit tests of its logic without dbt: dbt's
``return`` and ``modules.re`` (of the Python modules dbt gives templates, the one a macro here uses) are
stood in for, and ``globals`` stands in for whatever else the macro calls."""
from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

MACROS = Path(__file__).resolve().parents[1] / "macros"


class _Returned(Exception):
    pass


def _return(value):
    raise _Returned(value)


def render_macro(path: str, start: str, end: str | None, call: str, globals: dict | None = None, **values):
    """What the macro source between the markers `start` and `end` (none: the file's end) of
    macros/`path` returns when `call` (a Jinja expression over `values`) is evaluated."""
    import jinja2

    body = (MACROS / path).read_text()
    first = body.index(start)
    source = body[first:body.index(end, first) if end else len(body)]
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    modules = SimpleNamespace(re=re)
    env.globals.update({"return": _return, "modules": modules, **(globals or {})})
    try:
        env.from_string(source + "{% do " + call + " %}").render(**values)
    except _Returned as returned:
        return returned.args[0]
    raise AssertionError(f"{call} returned nothing")
