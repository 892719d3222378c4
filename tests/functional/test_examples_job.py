"""scripts/examples.sh: per documentation example the input, the expected table, the built table and
`matches`; no colour codes when piped; a non-zero exit on a mismatch."""
import os
import subprocess
import sys

import pytest

from auto_cdc_testkit.examples import EXAMPLES
from auto_cdc_testkit.harness import REPO

pytestmark = pytest.mark.skipif("duckdb" not in os.environ.get("AUTO_CDC_ENGINES", "duckdb,postgres"),
                                reason="the examples job runs on DuckDB")


JOB = [sys.executable, "-m", "auto_cdc_testkit.examples"]
JOB_ENV = {"DO_NOT_TRACK": "1", "PATH": "/usr/bin:/bin"}


def run_job(*args):
    return subprocess.run([*JOB, *args], cwd=REPO, capture_output=True, text=True, env=JOB_ENV)


def test_examples_job_shows_input_expected_built_and_matches_per_example():
    proc = run_job()
    out = proc.stdout
    assert proc.returncode == 0, out[-5000:] + proc.stderr[-2000:]
    assert "\x1b[" not in out, "no colour codes when stdout is not a terminal"
    assert len(EXAMPLES) == 9
    for example in EXAMPLES:
        section = out.split(f"({example.model})\n", 1)[1].split("\n== ", 1)[0]
        assert "\n  input " in section and "\n  expected (" in section and f"\n  built ({example.model}):" in section
        assert section.rstrip().splitlines()[-1].strip() in ("matches", "9 of 9 examples match the documentation")
    assert out.count("\n  matches\n") == 9
    assert "9 of 9 examples match the documentation" in out
    assert "userId  name      city         operation  sequenceNum" in out  # E1's input events


def test_examples_job_fails_on_a_mismatch(tmp_path):
    wrong = tmp_path / "wrong_e1_scd1.csv"
    wrong.write_text("userId,name,city\n124,Raul,Oaxaca\n125,Mercedes,Tijuana\n126,Lily,Cancun\n")
    proc = run_job("--expected", f"e1_users_scd1={wrong}")
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "MISMATCH (- expected only, + built only):\n    - userId=125, name=Mercedes, city=Tijuana\n" \
           "    + userId=125, name=Mercedes, city=Guadalajara" in proc.stdout
    assert "8 of 9 examples match the documentation" in proc.stdout


def test_two_jobs_at_once_in_one_checkout_both_match():
    """Both jobs write target/examples.duckdb: the second waits for the first instead of deleting its database."""
    jobs = [subprocess.Popen(JOB, cwd=REPO, env=JOB_ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(2)]
    outputs = [job.communicate()[0] for job in jobs]
    for job, out in zip(jobs, outputs):
        assert job.returncode == 0, out[-3000:]
        assert "9 of 9 examples match the documentation" in out
