"""The names the package reserves live in one macro; Python mirrors them. They must agree."""
import re
from pathlib import Path

from auto_cdc_testkit import names, reference

MACRO = Path(__file__).resolve().parents[2] / "macros" / "names.sql"


def macro_names() -> dict:
    body = MACRO.read_text()
    block = body[body.index("{% macro _names() %}"):body.index("{% endmacro %}")]
    return dict(re.findall(r"'(\w+)':\s*'([^']*)'", block))


def test_python_names_mirror_the_macro():
    assert macro_names() == names.NAMES


def test_reference_model_uses_the_same_reserved_columns():
    assert tuple(reference.RESERVED_COLUMNS) == names.RESERVED_COLUMNS


def test_no_package_macro_shadows_a_dbt_macro():
    """When this package is the root project its macros override dbt's own by name."""
    import dbt.include.global_project as gp
    import dbt.include.postgres as pg
    import dbt.include.duckdb as dd
    pattern = re.compile(r"macro\s+(?:(?:default|postgres|duckdb)__)?(\w+)\s*\(")
    dbt_macros = set()
    for package in (gp, pg, dd):
        for path in Path(package.__file__).parent.rglob("*.sql"):
            dbt_macros.update(pattern.findall(path.read_text()))
    ours = set()
    for path in MACRO.parent.rglob("*.sql"):
        ours.update(pattern.findall(path.read_text()))
    assert not ours & dbt_macros
