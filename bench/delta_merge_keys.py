"""Delta's MERGE of an in-order SCD2 batch, with and without the batch's keys listed on the target's side of
its ON clause (macros/dialect/apply.sql, target_key_list_sql), in one local Spark driver.

    .venv/bin/python bench/delta_merge_keys.py N B [plain|listed ...]

A Delta table of N rows (deletion vectors on), then for each mode listed (default: plain listed plain listed)
the same MERGE into a fresh copy: B keys spread over the key space each get their open version closed and a
new version inserted, as a run's MERGE writes them (an update clause, a delete clause that matches nothing, an
insert clause, the source broadcast). `listed` adds `and t.k in (...)` with the B keys, read as one string
first (that read's time is printed apart). Prints each MERGE's time and its counts. The first MERGE of a
driver is its slowest: compare the later ones. Runs in `local[2]` with a warehouse in a temp directory.
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from auto_cdc_testkit.testing import delta  # noqa: E402


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
    for i, mode in enumerate(modes):
        spark.sql("drop table if exists t")
        spark.sql(f"""create table t using delta tblproperties ('delta.enableDeletionVectors' = 'true') as
            select id as k, 1 as seq, 'v0' as val, 1 as `__START_AT`, cast(null as int) as `__END_AT` from range({n})""")
        listed, read = "", 0.0
        if mode == "listed":
            t = time.time()
            keys = spark.sql("select concat_ws(',', collect_list(cast(k as string))) from (select distinct k from src)").collect()[0][0]
            read, listed = time.time() - t, f" and t.k in ({keys})"
        t = time.time()
        row = spark.sql(f"""merge into t using (select /*+ BROADCAST(c) */ * from src c) c
            on t.k = c.k and t.`__START_AT` = c.`__START_AT`{listed}
            when matched and c.up = 1 then update set `__END_AT` = c.`__END_AT`
            when matched and c.up = 0 then delete
            when not matched and c.up = 1 then insert (k, seq, val, `__START_AT`, `__END_AT`)
              values (c.k, c.seq, c.val, c.`__START_AT`, c.`__END_AT`)""").collect()[0]
        took = time.time() - t
        print(f"{i + 1}. {mode}: MERGE {took:.2f} s" + (f" (the keys read in {read:.2f} s)" if mode == "listed" else "")
              + f"; updated {row['num_updated_rows']}, inserted {row['num_inserted_rows']}", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
