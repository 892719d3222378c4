"""The names the package reserves live in one macro; Python mirrors them. They must agree."""
import re
from pathlib import Path

from dbt_auto_cdc import names, reference

MACRO = Path(__file__).resolve().parents[2] / "macros" / "names.sql"


def macro_names() -> dict:
    body = MACRO.read_text()
    block = body[body.index("{% macro _names() %}"):body.index("{% endmacro %}")]
    return dict(re.findall(r"'(\w+)':\s*'([^']*)'", block))


def test_python_names_mirror_the_macro():
    assert macro_names() == names.NAMES


def test_reference_model_uses_the_same_reserved_columns():
    assert tuple(reference.RESERVED_COLUMNS) == names.RESERVED_COLUMNS
