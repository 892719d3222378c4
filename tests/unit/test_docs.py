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


# A call that changes the run's state in place: its resolved config, relations, columns or plan, or the dict
# that carries them to the steps (docs/contributing.md "The state of a run").
STATE_MUTATION = re.compile(r"\b(?:args|cfg|rel|cols|plan|facts)(?:\.\w+|\[[^\]]*\])*\.(?:update|setdefault|pop|popitem|clear)\(")


def test_no_macro_changes_the_state_of_a_run_in_place():
    """The state a run hands its steps (args: cfg, rel, cols, plan) is built once with its contents; a step
    that learns more builds a new dict (dict(old, key=value)) instead of updating one."""
    for bad in ("{%- do args.update({'x': 1}) -%}", "{% do args.plan.update(x) %}", "{% do rel.temp.update(x) %}",
                "{% do cols.setdefault('x', 1) %}", "{% do args['plan'].update(x) %}", "{% do cfg.pop('x') %}"):
        assert STATE_MUTATION.search(bad), bad
    for fine in ("{% do metrics.update(x) %}", "{% do types.update(x) %}", "{% do paths.update(x) %}"):
        assert not STATE_MUTATION.search(fine), fine
    found = [f"{path.relative_to(REPO)}:{number}: {line.strip()}"
             for path in sorted((REPO / "macros").rglob("*.sql"))
             for number, line in enumerate(path.read_text().splitlines(), 1) if STATE_MUTATION.search(line)]
    assert found == []


def _section(text: str, heading: str) -> str:
    """The part of a page under `heading` (a `## ` line), up to the next `## ` heading."""
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:] if end < 0 else text[start:end]


def _first_column(table_text: str) -> set[str]:
    """The names a markdown table's first column shows in backticks (several per cell, comma-separated)."""
    return {name for cell in re.findall(r"^\| ([^|]+) \|", table_text, re.MULTILINE) for name in re.findall(r"`([a-z_0-9]+)`", cell)}


def test_contributing_page_lists_every_dispatch_hook():
    dispatched = {name for path in (REPO / "macros").rglob("*.sql")
                  for name in re.findall(r"adapter\.dispatch\(\s*'([a-z_0-9]+)'", path.read_text())}
    hooks = _section((DOCS / "contributing.md").read_text(), "## The dispatch hooks an engine provides")
    listed = set(re.findall(r"^\| `([a-z_0-9]+)` \|", hooks, re.MULTILINE))
    assert dispatched - listed == set(), "hooks missing from docs/contributing.md"
    assert listed - dispatched == set(), "docs/contributing.md lists hooks the macros no longer dispatch"


def _keys_given(path: Path, names: tuple[str, ...]) -> set[str]:
    """The keys the macros of `path` give the dicts named `names`: a literal `set <name> = {'key': ...}` and
    each `dict(<name>, key=...)`."""
    text = path.read_text()
    keys = set()
    for name in names:
        for body in re.findall(r"set " + re.escape(name) + r" = \{(.*?)\} -%\}", text, re.DOTALL):
            keys |= set(re.findall(r"'([a-z_]+)':", body))
        for call in re.finditer(r"dict\(" + re.escape(name) + r",", text):
            depth, i, top = 1, call.end(), []
            while depth:
                depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(text[i], 0)
                top.append(text[i] if depth == 1 else " ")
                i += 1
            keys |= set(re.findall(r"(?:^|,)\s*([a-z_]+)=(?!=)", "".join(top)))
    return keys


def test_contributing_page_names_every_key_of_the_runs_columns_and_plan_and_every_strategy():
    """docs/contributing.md's tables of args.cols and args.plan name exactly the keys the code gives them, and
    its table of strategies the strategies the skeleton runs (with nothing_new, which runs none)."""
    page = _section((DOCS / "contributing.md").read_text(), "## The state of a run")
    cols_table, plan_table = page.split("`args.cols`:", 1)[1].split("`args.plan`:", 1)
    cols_given = _keys_given(REPO / "macros" / "steps" / "schema.sql", ("columns",))
    assert cols_given == _first_column(cols_table)
    plan_given = _keys_given(REPO / "macros" / "plan" / "plan.sql", ("facts", "plan", "args.plan"))
    assert plan_given == _first_column(plan_table)
    skeleton = (REPO / "macros" / "materializations" / "skeleton.sql").read_text()
    run = set(re.findall(r"args\.plan\.strategy == '([a-z_]+)'", skeleton))
    strategies = _first_column(_section((DOCS / "contributing.md").read_text(), "## How a run is organized"))
    assert run | {"nothing_new"} == strategies
    assert {f"_{name}" for name in run} <= {m for path in (REPO / "macros" / "strategies").glob("*.sql")
                                            for m in re.findall(r"macro\s+([a-z_]+)\(", path.read_text())}
def test_contributing_page_names_the_engines_that_override_each_hook():
    """The hook table's "overridden by" column names exactly the engines whose `<engine>__<hook>` macro exists."""
    defined = {name for path in (REPO / "macros").rglob("*.sql")
               for name in re.findall(r"macro\s+([A-Za-z_0-9]+)\s*\(", path.read_text())}
    rows = re.findall(r"^\| `([a-z_0-9]+)` \| [^|]* \| ([^|]*) \|$", (DOCS / "contributing.md").read_text(), re.MULTILINE)
    assert len(rows) > 40
    engines = ("duckdb", "postgres", "spark")
    wrong = {hook: (sorted(e for e in engines if re.search(rf"\b{e}\b", cell)),
                    sorted(e for e in engines if f"{e}__{hook}" in defined))
             for hook, cell in rows
             if {e for e in engines if re.search(rf"\b{e}\b", cell)} != {e for e in engines if f"{e}__{hook}" in defined}}
    assert wrong == {}, "hook: (engines the table names, engines that override it)"


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


# A section named in prose or a comment: `README "Metrics"`, `docs/spark.md, "Concurrency"`, `spark.md's "The
# write path on Delta"` (a shell string's `\"` too). The CHANGELOG is left out: its entries name the sections
# that held a change when it was made.
SECTION_REFERENCE = re.compile(r"\b(README|(?:docs/)?[\w-]+\.md)(?:['’]s)?,? \(?\\?\"([^\"\n\\]{2,100})\\?\"")


def headings(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.DOTALL)
    return {line.lstrip("#").strip() for line in text.splitlines() if re.match(r"#{1,6} ", line)}


def section_references(path: Path) -> list[tuple[Path | None, str, str]]:
    """(the file named, the section, the reference as written) for each section reference in `path`."""
    found = []
    for match in SECTION_REFERENCE.finditer(path.read_text()):
        name, section = match.groups()
        if name == "README":
            target = REPO / "README.md"
        elif "/" in name:
            target = REPO / name
        else:
            target = next((p for p in (DOCS / name, REPO / name, path.parent / name) if p.exists()), None)
        found.append((target, section, match.group(0)))
    return found


def referencing_files() -> list[Path]:
    own = Path(__file__).resolve()
    folders = ("macros", "models", "seeds", "auto_cdc_testkit", "tests", "bench", "scripts", "integration_tests", "docs")
    return [REPO / "README.md", REPO / "dbt_project.yml", REPO / "mkdocs.yml", REPO / "pyproject.toml",
            *(path for folder in folders for path in sorted((REPO / folder).rglob("*"))
              if path.suffix in (".py", ".sh", ".sql", ".yml", ".md", ".toml") and path.resolve() != own
              and "dbt_packages" not in path.parts and "target" not in path.parts)]


def test_the_section_reference_pattern_reads_the_forms_in_use():
    forms = ['see README "Metrics".', '(docs/spark.md, "Concurrency")', "spark.md's \"The write path on Delta\"",
             'echo "test.sh: (README \\"Running the Spark tier\\")"']
    assert [m.group(2) for form in forms for m in SECTION_REFERENCE.finditer(form)] == [
        "Metrics", "Concurrency", "The write path on Delta", "Running the Spark tier"]


def test_every_section_that_comments_and_docs_name_exists():
    """A reference to a section of the README or of a page names a heading that page has: comments in the macros,
    the tooling, the tests and the scripts, and the docs themselves."""
    references = [(path, target, section, written) for path in referencing_files()
                  for target, section, written in section_references(path)]
    assert len(references) > 10
    broken = [f"{path.relative_to(REPO)}: {written}" for path, target, section, written in references
              if target is None or section not in headings(target)]
    assert broken == []


# A list that Python-Markdown did not see: a line of a paragraph that starts with a list marker (a list needs a
# blank line before it, and a list item's later blocks four spaces of indentation).
LIST_MARKER_IN_PARAGRAPH = re.compile(r"<p>(?:(?!</p>).)*?\n\s*(?:[-*+]|\d+\.) (?:(?!</p>).)*</p>", re.DOTALL)


def test_the_list_check_finds_a_list_rendered_as_a_paragraph():
    assert LIST_MARKER_IN_PARAGRAPH.search("<p>Three checks:\n- <strong>By name.</strong> one</p>")
    assert LIST_MARKER_IN_PARAGRAPH.search("<p>Steps\n1. stage</p>")
    assert not LIST_MARKER_IN_PARAGRAPH.search("<p>Three checks:</p>\n<ul>\n<li>one</li>\n</ul>")
    assert not LIST_MARKER_IN_PARAGRAPH.search("<p>a - b, and\nc - d</p>")


def test_built_pages_render_every_list_as_a_list(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 10
    text = lambda html: re.sub(r"<[^>]+>|\s+", " ", html)[:160]  # noqa: E731
    broken = [f"{page.relative_to(site)}: {text(m.group(0))}" for page in pages
              for m in LIST_MARKER_IN_PARAGRAPH.finditer(page.read_text())]
    assert broken == []


def test_code_in_a_table_never_breaks_inside_a_name(site):
    """The theme breaks code anywhere (`word-break: break-word`), so a config name in a table column wrapped
    mid-word: every page with a table loads the stylesheet that stops it."""
    css = (site / "stylesheets" / "extra.css").read_text()
    rules = dict(re.findall(r"([^{}]+)\{([^}]*)\}", re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)))
    rules = {selector.strip(): body for selector, body in rules.items()}
    first_column = rules[".md-typeset table:not([class]) td code"]
    assert "white-space: nowrap" in first_column and "word-break: normal" in first_column
    for page in sorted(site.rglob("*.html")):
        if "<table>" in page.read_text():
            assert "stylesheets/extra.css" in page.read_text(), page.relative_to(site)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout


@pytest.mark.skipif(not (REPO / ".git").exists(), reason="not a git checkout")
def test_no_tracked_file_is_ignored_and_every_kept_result_is_shown():
    """.gitignore and the tree agree (a rule that ignores tracked files hides their changes), and the benchmark results
    kept in the tree are the ones the benchmark page renders (bench/report.py: bench/results/<size>.json)."""
    assert git("ls-files", "--cached", "--ignored", "--exclude-standard").split() == []
    sys.path.insert(0, str(REPO / "bench"))
    import report
    kept = git("ls-files", "bench/results").split()
    assert set(kept) <= {f"bench/results/{size}.json" for size in report.SIZES}
    page = (DOCS / "benchmarks.md").read_text()
    for path in kept:
        size = Path(path).stem
        assert f"<!-- bench-report:{size} start -->" in page, f"{path} is kept but docs/benchmarks.md does not show it"


def test_the_benchmark_page_shows_what_its_results_give():
    """docs/benchmarks.md's headline tables are bench/report.py's rendering of the kept results: a rerun of the
    benchmark and of bench/report.py refreshes them, and nobody edits them by hand."""
    proc = subprocess.run([sys.executable, str(REPO / "bench" / "report.py"), "--check"], cwd=REPO,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_benchmark_page_is_short_and_its_charts_read_one_way(site):
    assert len((DOCS / "benchmarks.md").read_text().splitlines()) <= 300
    images = embedded_images(site, "benchmarks")
    assert len(images) >= 3
    for image in images:
        labels = " ".join(svg_texts(image)) if image.suffix == ".svg" else ""
        assert "lower is better" in labels or "lower is better" in image.read_text(), image.name


def test_readme_install_names_the_tested_dbt_versions_and_the_offline_pin():
    """The README states the oldest dbt-core CI tests (requirements-oldest.txt) and the pin of the development
    environment (requirements-dev.txt), which is what installs where dbt-core 1.12's parser cannot be downloaded."""
    def spec(path: str, name: str) -> str:
        return next(line.split("#")[0].strip() for line in (REPO / path).read_text().splitlines()
                    if line.startswith(name + ">") or line.startswith(name + "="))
    readme = (REPO / "README.md").read_text()
    oldest = spec("requirements-oldest.txt", "dbt-core")          # dbt-core>=1.8.0,<1.9
    lower = oldest.split(">=")[1].split(",")[0].removesuffix(".0")
    assert f"tests run on dbt-core {lower} with dbt-duckdb {lower} (the oldest)" in readme
    pin = spec("requirements-dev.txt", "dbt-core").split(",")[1]  # <1.12
    assert f'"dbt-core>={lower},{pin}"' in readme
    assert f"dbt-core {pin.removeprefix('<')}'s installer downloads a parser" in readme
