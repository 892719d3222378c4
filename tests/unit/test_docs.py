"""The documentation: the site builds strictly (a broken link or anchor fails), its pictures are drawn from the
reference model and embedded, and nothing points to a document the repository does not hold."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"
FIGURES = ("scd2-late-event.svg", "bitemporal.svg")

# References a reader of the repository cannot follow: a specification, pages or issues kept elsewhere.
OUTSIDE_REFERENCES = re.compile(r"\bSPEC\b|SPEC\.md|\bseed page|\bthe seed's\b|\bissue #\d+|#\d+ of the issue|\bthis session\b|\bseed \d{3}\b",
                                re.IGNORECASE)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)], cwd=REPO,
                          capture_output=True, text=True, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}\n{proc.stderr}"
    return out


def embedded_images(site: Path, page: str) -> list[Path]:
    """The files the built page's <img> tags point to."""
    html = (site / page / "index.html").read_text()
    return [(site / page / src).resolve() for src in re.findall(r'<img[^>]*\bsrc="([^"]+)"', html)]


def test_site_builds_strictly_with_every_page_in_the_nav(site):
    for page in ["getting-started", "semantics", "configuration", "sources", "how-it-works", "guarantees", "spark",
                 "benchmarks", "decisions", "contributing", "testing", "operations"]:
        assert (site / page / "index.html").exists(), page


def test_getting_started_includes_the_readme_walkthrough(site):
    html = (site / "getting-started" / "index.html").read_text()
    assert "users_history" in html and "dbt build" in html and "__auto_cdc_runs" in html


def test_semantics_page_embeds_the_late_event_and_bitemporal_pictures(site):
    images = embedded_images(site, "semantics")
    assert {p.name for p in images} >= set(FIGURES)
    assert all(p.exists() for p in images)


def test_benchmarks_page_embeds_the_benchmark_plots(site):
    images = embedded_images(site, "benchmarks")
    assert images, "docs/benchmarks.md embeds no picture"
    assert all(p.exists() for p in images)


def svg_texts(path: Path) -> list[str]:
    return re.findall(r"<text[^>]*>([^<]*)</text>", path.read_text())


def test_committed_pictures_are_what_the_reference_model_draws(tmp_path):
    subprocess.run([sys.executable, str(DOCS / "figures.py"), str(tmp_path)], check=True, cwd=REPO,
                   capture_output=True)
    for name in FIGURES:
        drawn = svg_texts(tmp_path / name)
        assert "NULL" in " ".join(drawn) or "today" in " ".join(drawn)
        assert drawn == svg_texts(DOCS / "img" / name), f"docs/img/{name} is stale: run .venv/bin/python docs/figures.py"


def test_readme_is_a_user_guide_of_at_most_300_lines():
    assert len((REPO / "README.md").read_text().splitlines()) <= 300


def offending_lines(paths, text_of=lambda p: p.read_text()):
    return [f"{p.relative_to(REPO)}: {line.strip()}" for p in paths for line in text_of(p).splitlines()
            if OUTSIDE_REFERENCES.search(line)]


def test_readme_and_docs_cite_no_document_the_repository_does_not_hold():
    paths = [REPO / "README.md", REPO / "mkdocs.yml", *sorted(DOCS.rglob("*.md")), *sorted(DOCS.rglob("*.py"))]
    assert offending_lines(paths) == []


def macro_comments(path: Path) -> str:
    """The comments of a macro file: Jinja `{# #}` blocks and SQL `--` lines."""
    text = path.read_text()
    return "\n".join(re.findall(r"\{#-?(.*?)-?#\}", text, re.DOTALL) + re.findall(r"--(.*)", text))


def test_macro_comments_cite_no_document_the_repository_does_not_hold():
    assert offending_lines(sorted((REPO / "macros").rglob("*.sql")), macro_comments) == []


def test_tooling_tests_and_scripts_cite_no_document_the_repository_does_not_hold():
    own = Path(__file__).resolve()  # this file holds the pattern itself
    paths = [REPO / "CHANGELOG.md", *(path for folder in ("auto_cdc_testkit", "tests", "bench", "scripts", "integration_tests")
                                    for path in sorted((REPO / folder).rglob("*"))
                                    if path.suffix in (".py", ".sh", ".sql", ".yml", ".md") and path.resolve() != own
                                    and "dbt_packages" not in path.parts and "target" not in path.parts)]
    assert len(paths) > 20
    assert offending_lines(paths) == []


def test_every_engine_override_sits_beside_its_default_in_macros_dialect():
    """A hook an engine overrides is read in one place: its dispatcher, default__ and every override in
    one file of macros/dialect/."""
    where: dict[str, list[str]] = {}
    for path in (REPO / "macros").rglob("*.sql"):
        for name in re.findall(r"macro\s+([A-Za-z_0-9]+)\s*\(", path.read_text()):
            where.setdefault(name, []).append(str(path.relative_to(REPO)))
    overridden = {name.split("__", 1)[1] for name in where if name.split("__", 1)[0] in ("duckdb", "postgres", "spark")}
    assert overridden, "no engine override found"
    misplaced = {}
    for hook in overridden:
        names = [n for n in where if n in (f"default__{hook}", f"duckdb__{hook}", f"postgres__{hook}", f"spark__{hook}")]
        files = {f for n in names for f in where[n]}
        if len(files) != 1 or not next(iter(files)).startswith("macros/dialect/"):
            misplaced[hook] = sorted(files)
    assert misplaced == {}, "overrides not side by side with their default in macros/dialect/"


# A call that changes the run's state in place: its resolved config, relations, plan or the batch's path,
# or the dict that carries them to the builders (docs/contributing.md "The state of a run").
STATE_MUTATION = re.compile(r"\b(?:args|cfg|rel|plan|path)(?:\.\w+|\[[^\]]*\])*\.(?:update|setdefault|pop|popitem|clear)\(")


def test_no_macro_changes_the_state_of_a_run_in_place():
    """The state a run hands its builders (args: cfg, rel, plan, path) is built once with its contents; a step
    that learns more builds a new dict (_with) instead of updating one."""
    for bad in ("{%- do args.update({'x': 1}) -%}", "{% do args.plan.update(x) %}", "{% do rel.temp.update(x) %}",
                "{% do path.setdefault('x', 1) %}", "{% do args['path'].update(x) %}", "{% do cfg.pop('x') %}"):
        assert STATE_MUTATION.search(bad), bad
    for fine in ("{% do metrics.update(x) %}", "{% do types.update(x) %}", "{% do paths.update(x) %}"):
        assert not STATE_MUTATION.search(fine), fine
    found = [f"{path.relative_to(REPO)}:{number}: {line.strip()}"
             for path in sorted((REPO / "macros").rglob("*.sql"))
             for number, line in enumerate(path.read_text().splitlines(), 1) if STATE_MUTATION.search(line)]
    assert found == []


def test_contributing_page_lists_every_dispatch_hook():
    dispatched = {name for path in (REPO / "macros").rglob("*.sql")
                  for name in re.findall(r"adapter\.dispatch\(\s*'([a-z_0-9]+)'", path.read_text())}
    listed = set(re.findall(r"^\| `([a-z_0-9]+)` \|", (DOCS / "contributing.md").read_text(), re.MULTILINE))
    assert dispatched - listed == set(), "hooks missing from docs/contributing.md"
    assert listed - dispatched == set(), "docs/contributing.md lists hooks the macros no longer dispatch"


def test_readme_links_point_to_files_the_repository_holds():
    links = re.findall(r"\]\(([^)\s]+)\)", (REPO / "README.md").read_text())
    assert links
    missing = [link for link in links if "://" not in link and not (REPO / link.split("#")[0]).exists()]
    assert missing == []


def test_readme_install_names_the_dbt_versions_the_package_requires():
    import yaml
    required = yaml.safe_load((REPO / "dbt_project.yml").read_text())["require-dbt-version"]
    lower = next(v for v in required if v.startswith(">=")).removeprefix(">=").removesuffix(".0")
    upper = next(v for v in required if v.startswith("<")).removeprefix("<").removesuffix(".0").removesuffix(".0")
    readme = (REPO / "README.md").read_text()
    assert f'"dbt-core>={lower},<{upper}"' in readme
    assert f"dbt-core {lower} up to, not including, {upper}.0" in readme
