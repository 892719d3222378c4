"""What a model's node spends compiling templates: dbt compiles each macro a run calls once per process
(`dbt_common`'s `TemplateCache`), so every `dbt` invocation of one model pays for the templates its run calls.
Runs the model twice in this process (`dbtRunner`), times each template compiled at that cache, and prints the
node times, the templates compiled (the package's and the others), and the costliest.

    .venv/bin/python bench/profile_compile.py /tmp/auto_cdc_lower_bound_XXXX/project snap_auto_cdc \
        --before "update snap_src set v = v + 1, c1 = case when id % 100 = 7 then c1 || 'x' else c1 end"

The project is one kept by `bench/lower_bound.py` (DuckDB); `--before` is run on its database before each run
(here: a new snapshot version with 1% of the rows changed), so that both runs apply something.
"""
from __future__ import annotations

import argparse
import os
import time
from collections import defaultdict
from pathlib import Path

os.environ.setdefault("DO_NOT_TRACK", "1")

import dbt_common.clients.jinja as jinja  # noqa: E402
import duckdb  # noqa: E402
from dbt.cli.main import dbtRunner  # noqa: E402

compiled: list[tuple[str, int, float]] = []
_get_node_template = jinja.TemplateCache.get_node_template


def _timed_get_node_template(self, node):
    if node.macro_sql in self.file_cache:
        return self.file_cache[node.macro_sql]
    start = time.perf_counter()
    template = _get_node_template(self, node)
    compiled.append((node.unique_id, len(node.macro_sql), time.perf_counter() - start))
    return template


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("project", type=Path)
    parser.add_argument("model")
    parser.add_argument("--before", help="SQL run on the project's it.duckdb before each run")
    args = parser.parse_args()
    jinja.TemplateCache.get_node_template = _timed_get_node_template
    project = str(args.project.resolve())
    for run in (1, 2):
        compiled.clear()
        if args.before:
            with duckdb.connect(os.path.join(project, "it.duckdb")) as con:
                con.execute(args.before)
        result = dbtRunner().invoke(["run", "-s", args.model, "--project-dir", project, "--profiles-dir", project, "-q"])
        nodes = [round(r.execution_time, 3) for r in result.result.results] if result.result else []
        totals = defaultdict(lambda: [0, 0, 0.0])
        for unique_id, chars, seconds in compiled:
            total = totals["auto_cdc" if unique_id.split(".")[1] == "auto_cdc" else "other"]
            total[0] += 1
            total[1] += chars
            total[2] += seconds
        print(f"run {run}: node {nodes}; compiled: "
              + (", ".join(f"{k} {n} templates, {c} characters, {s:.3f} s" for k, (n, c, s) in totals.items()) or "nothing"))
        if run == 1:
            for unique_id, chars, seconds in sorted(compiled, key=lambda t: -t[2])[:10]:
                print(f"  {seconds * 1000:6.1f} ms {chars:6d} characters  {unique_id}")


if __name__ == "__main__":
    main()
