"""Reads for the test harness on Spark (harness.Project.read_all): a pickled job on stdin (the
cluster's settings, statements to run first, queries), pickled rows on stdout. It runs in a driver
of its own, in local mode (a read of a few small tables needs no executors), on the metastore and
warehouse the dbt runs use; the query "*" means every table of the schema but the side tables."""
import pickle
import sys


def _plain(v):
    from pyspark.sql import Row
    if isinstance(v, Row):
        return tuple(_plain(x) for x in v)
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def main() -> None:
    job = pickle.loads(sys.stdin.buffer.read())
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # Spark's chatter must not reach the pickle
    from auto_cdc_testkit.testing.spark import session
    conf = dict(job["conf"], **{"spark.master": "local[1]"})
    spark = session(conf)
    spark.sql(f"create database if not exists `{job['schema']}`")
    for sql in job["pending"]:
        spark.sql(sql)
    queries = dict(job["queries"])
    if "*" in queries:
        del queries["*"]
        for t in spark.sql(f"show tables in `{job['schema']}`").collect():
            if "__auto_cdc_" not in t.tableName and not t.isTemporary:
                queries[t.tableName] = f"select * from `{job['schema']}`.`{t.tableName}`"
    result = {}
    for name, sql in queries.items():
        df = spark.sql(sql)
        cols = df.columns
        result[name] = [dict(zip(cols, (_plain(v) for v in r))) for r in df.collect()]
    spark.stop()
    out.write(pickle.dumps(result))
    out.flush()


if __name__ == "__main__":
    main()
