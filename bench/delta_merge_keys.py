"""Delta's MERGE of an in-order SCD2 batch, with and without a condition on the batch's keys on the target's
side of its ON clause (macros/dialect/apply.sql, target_key_filter_sql), in one local Spark driver.

    .venv/bin/python bench/delta_merge_keys.py N B [plain|listed|bitmap[-nodv] ...]

A Delta table of N rows (deletion vectors on, off for a mode ending in `-nodv`: the MERGE then rewrites every
file it touches), then for each mode listed (default: plain listed plain listed)
the same MERGE into a fresh copy: B keys spread over the key space each get their open version closed and a
new version inserted, as a run's MERGE writes them (an update clause, a delete clause that matches nothing, an
insert clause, the source broadcast). `listed` adds `and t.k in (...)` with the B keys, `bitmap` the bitmap
of their values modulo a prime of at least 8 B bits, each read first with the package's own select item and
condition (rendered from macros/dialect/apply.sql; that read's time is printed apart). Prints each MERGE's
time and its counts. The first MERGE of a driver is its slowest: compare the later ones. Runs in `local[2]`
with a warehouse in a temp directory.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auto_cdc_testkit.macros import render_macro  # noqa: E402
from auto_cdc_testkit.testing import delta  # noqa: E402


def key_filter(mode: str, b: int, call: str, **values):
    """The package's select item (target_key_filter_sql) or condition (target_key_filter) for `mode`, over
    the table `aff` of the batch's keys."""
    start, end = "{% macro _spark_key_filter", "{#- The target's rows of the affected keys"
    q = SimpleNamespace(_affected_keys_at_most=lambda args: b, _spark_has_merge=lambda: True,
                        _resolve_column=lambda name, columns: name, _q=lambda name: f"`{name}`")
    args = {"cfg": {"key_columns": ["k"]}, "plan": {"types": {"target": {"k": "bigint"}}}, "rel": {"temp": {"affected": "aff"}}}
    slots = (render_macro("dialect/apply.sql", start, end, "_spark_key_filter(args)", globals={"auto_cdc": q},
                          args=args) or {}).get("slots")
    chosen = {"key": "`k`", "list": True} if mode == "listed" else {"key": "`k`", "slots": slots or 131071}
    q._spark_key_filter = lambda args: chosen
    return render_macro("dialect/apply.sql", start, end, call, globals={"auto_cdc": q}, args=args, **values)


def main() -> None:
    from pyspark.sql import SparkSession

    if len(sys.argv) < 3:
        sys.exit(__doc__)
    n, b = int(sys.argv[1]), int(sys.argv[2])
    modes = sys.argv[3:] or ["plain", "listed", "plain", "listed"]
    home = Path(tempfile.mkdtemp(prefix="delta_merge_keys_"))
    builder = (SparkSession.builder.master("local[2]").config("spark.driver.memory", "6g")
               .config("spark.sql.autoBroadcastJoinThreshold", "-1")
               .config("spark.sql.warehouse.dir", str(home / "warehouse"))
               .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={home}"))
    for k, v in delta.spark_conf(delta.jars()).items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    step = n // b
    spark.sql(f"""create table src using parquet as
        select id * {step} as k, 1 as seq, 'v0' as val, 1 as `__START_AT`, 2 as `__END_AT`, 1 as up from range({b})
        union all
        select id * {step} as k, 2 as seq, 'v1' as val, 2 as `__START_AT`, cast(null as int) as `__END_AT`, 1 as up from range({b})""")
    spark.sql("create table aff using parquet as select distinct k from src")
    for i, mode in enumerate(modes):
        mode, vectors = mode.removesuffix("-nodv"), "false" if mode.endswith("-nodv") else "true"
        spark.sql("drop table if exists t")
        spark.sql(f"""create table t using delta tblproperties ('delta.enableDeletionVectors' = '{vectors}') as
            select id as k, 1 as seq, 'v0' as val, 1 as `__START_AT`, cast(null as int) as `__END_AT` from range({n})""")
        listed, read = "", 0.0
        if mode != "plain":
            t = time.time()
            # as the run reads it: with the count of each path, one row
            value = spark.sql(f"select count(*), {key_filter(mode, b, 'spark__target_key_filter_sql(args)')} from aff").collect()[0][1]
            read, listed = time.time() - t, " and " + key_filter(mode, b, "spark__target_key_filter(args, value)", value=value)
        t = time.time()
        row = spark.sql(f"""merge into t using (select /*+ BROADCAST(c) */ * from src c) c
            on t.k = c.k and t.`__START_AT` = c.`__START_AT`{listed}
            when matched and c.up = 1 then update set `__END_AT` = c.`__END_AT`
            when matched and c.up = 0 then delete
            when not matched and c.up = 1 then insert (k, seq, val, `__START_AT`, `__END_AT`)
              values (c.k, c.seq, c.val, c.`__START_AT`, c.`__END_AT`)""").collect()[0]
        took = time.time() - t
        print(f"{i + 1}. {mode}" + ("" if vectors == "true" else " (no deletion vectors)") + f": MERGE {took:.2f} s" + (f" (the keys read in {read:.2f} s)" if mode != "plain" else "")
              + f"; updated {row['num_updated_rows']}, inserted {row['num_inserted_rows']}", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
