"""lock_timeout read as a duration: the Spark lease lapses that long after it is taken (docs/spark.md,
"Concurrency"). The macro itself, rendered by plain Jinja."""
import re
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest

MACRO = Path(__file__).resolve().parents[2] / "macros" / "dialect" / "locking.sql"


class Returned(Exception):
    pass


class CompilerError(Exception):
    pass


def timeout_seconds(value):
    def ret(v):
        raise Returned(v)

    def fail(message):
        raise CompilerError(message)

    body = MACRO.read_text()
    source = body[body.index("{% macro _timeout_seconds"):]
    source = source[:source.index("{% endmacro %}") + len("{% endmacro %}")]
    env = jinja2.Environment(extensions=["jinja2.ext.do"])
    env.globals.update({"return": ret, "modules": SimpleNamespace(re=re),
                        "exceptions": SimpleNamespace(raise_compiler_error=fail)})
    template = env.from_string(source + "{{ _timeout_seconds(value, 'm') }}")
    try:
        template.render(value=value)
    except Returned as r:
        return r.args[0]
    raise AssertionError("the macro returned nothing")


@pytest.mark.parametrize("value, seconds", [("1h", 3600), ("30s", 30), ("5min", 300), ("2d", 172800), ("100ms", 0.1),
                                            ("1500", 1.5), (1500, 1.5), (" 2H ", 7200), ("0", 0), ("1.5h", 5400)])
def test_lock_timeout_reads_as_seconds(value, seconds):
    assert timeout_seconds(value) == pytest.approx(seconds)


@pytest.mark.parametrize("value", ["soon", "1 hour", "-5s", "1h30min", ""])
def test_a_lock_timeout_that_is_no_duration_fails_naming_the_model(value):
    with pytest.raises(CompilerError, match=r"auto_cdc model 'm': lock_timeout '.*' is not a duration"):
        timeout_seconds(value)
