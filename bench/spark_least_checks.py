"""The checks of bench/spark_scaling.py's checked and inline materializations, against the cases they exist for.

    .venv/bin/python bench/spark_least_checks.py [checked|inline ...]

For each materialization named (default both): a 100-key SCD2 target on Delta, then one incremental run per
case, each in a project of its own: a late event (key 5 at a sequence before its logged one), a hand edit
(key 6's open version updated by hand, then a new event for it), an event conflicting with the log (key 7's
logged sequence with another value), and an in-order event. The first three must fail the run with the
materialization's message, the last must apply. Prints each case's outcome; exits 1 if one differs.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import spark_scaling  # noqa: E402

from auto_cdc_testkit.testing import spark  # noqa: E402

FEED = """
{{ config(materialized='table') }}
{%- set step = var('step') | int -%}
select k, 1 as seq, 'v0' as val, case when k = 0 then 1 else 0 end as loaded from (select id as k from range(100)) r
{% if step == 1 %} union all select 5 as k, 0 as seq, 'late' as val, 2 as loaded {% endif %}
{% if step == 2 %} union all select 6 as k, 2 as seq, 'v1' as val, 2 as loaded {% endif %}
{% if step == 3 %} union all select 7 as k, 1 as seq, 'other' as val, 2 as loaded {% endif %}
"""
# (case, the feed's step, a statement run on the target before the run, whether the run must fail)
CASES = [("a late event", 1, None, True),
         ("a hand-edited open version", 2, "update {t} set val = 'hand' where k = 6", True),
         ("an event conflicting with the log", 3, None, True),
         ("an in-order event", 2, None, False)]
# the message each materialization fails a run with when its checks find something
REFUSED = ("checks found", "left out keys", "conflicts with the log")


def main(names: list[str]) -> int:
    wrong = 0
    with spark.start() as cluster:
        for name in names:
            for case, step, edit, refused in CASES:
                p = spark_scaling.new_project("spark", cluster.spark_conf(), "delta")
                (p.path / "models" / "feed.sql").write_text(FEED)
                spark_scaling.add_model(p, 100, least=name)
                p.run(extra=["--vars", json.dumps({"step": 0})])
                if edit:
                    p.execute(edit.format(t=p.relation("target_scd2")))
                p.run("feed", extra=["--vars", json.dumps({"step": step})])
                result = p.run("target_scd2", extra=["--vars", json.dumps({"step": step})], check=False)
                failed = any(m in result.output for m in REFUSED)
                ok = failed == refused and (failed or result.ok)
                wrong += not ok
                print(f"{name}: {case}: {'refused' if failed else 'applied'}{'' if ok else '  <- wrong'}", flush=True)
                p.clean()
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["checked", "inline"]))
