"""The names the package reserves live in one macro; Python mirrors them. They must agree."""
import re
from pathlib import Path

from auto_cdc_testkit import names, reference
from auto_cdc_testkit.macros import MACROS, render_macro

MACRO = MACROS / "names.sql"


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


SIDE_NAMES = ["t", "x" * 47, "x" * 60, "é" * 25, "ü" * 26, "ü" * 40, "a" + "ü" * 30, "日本語" * 10, "é" * 24 + "x"]
SUFFIXES = [v for k, v in names.NAMES.items() if k.endswith("_suffix")]


def render_side_identifier(identifier: str, suffix: str) -> str:
    """The macro itself, rendered by plain Jinja (dbt's `local_md5` and the macro `_byte_length` stood in
    for)."""
    import hashlib

    return render_macro("names.sql", "{% macro _side_identifier", "{% macro _side_relation",
                        "_side_identifier(identifier, suffix)",
                        {"local_md5": lambda s: hashlib.md5(s.encode("utf-8")).hexdigest(),
                         "auto_cdc": {"_byte_length": lambda s: len(s.encode("utf-8"))}},
                        identifier=identifier, suffix=suffix)


def test_side_identifiers_fit_the_limit_in_bytes_and_stay_unique():
    made = set()
    for identifier in SIDE_NAMES:
        for suffix in SUFFIXES:
            name = names.side_identifier(identifier, suffix)
            assert len(name.encode("utf-8")) <= names.IDENTIFIER_BYTES, name
            assert name.endswith(suffix)
            made.add(name)
    assert len(made) == len(SIDE_NAMES) * len(SUFFIXES)


def test_side_identifier_macro_matches_its_python_mirror():
    for identifier in SIDE_NAMES:
        for suffix in SUFFIXES:
            assert render_side_identifier(identifier, suffix) == names.side_identifier(identifier, suffix)
