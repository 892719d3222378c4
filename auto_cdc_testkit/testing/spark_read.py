"""Reads for the test harness on Spark (harness.Project.read_all): `read` runs statements, then
queries, in a SparkSession and returns each query's rows as dicts; the query "*" means every table of
the schema but the side tables. A project whose dbt runs in the test process reads in that process's
session (the one dbt's `session` method uses). Otherwise `python -m auto_cdc_testkit.testing.spark_read`
takes a pickled job on stdin (the cluster's settings, the statements, the queries) and writes pickled
rows on stdout, from a driver of its own in local mode (a read of a few small tables needs no
executors), on the metastore and warehouse the dbt runs use. A project whose dbt runs go to a Spark
Thrift server reads through it (`read_thrift`, a PyHive connection): the server owns the metastore."""
import pickle
import sys


def _plain(v):
    from pyspark.sql import Row
    if isinstance(v, Row):
        return tuple(_plain(x) for x in v)
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def _read(execute, rows, schema: str, pending: list[str], queries: dict[str, str]) -> dict[str, list[dict]]:
    """The reads, given how to run a statement (`execute`) and how to fetch a query's rows as dicts (`rows`)."""
    execute(f"create database if not exists `{schema}`")
    for sql in pending:
        execute(sql)
    queries = dict(queries)
    if "*" in queries:
        del queries["*"]
        for t in rows(f"show tables in `{schema}`"):
            if "__auto_cdc_" not in t["tableName"] and not t["isTemporary"]:
                queries[t["tableName"]] = f"select * from `{schema}`.`{t['tableName']}`"
    return {name: rows(sql) for name, sql in queries.items()}


def read(spark, schema: str, pending: list[str], queries: dict[str, str]) -> dict[str, list[dict]]:
    def rows(sql: str) -> list[dict]:
        df = spark.sql(sql)
        return [dict(zip(df.columns, (_plain(v) for v in r))) for r in df.collect()]
    return _read(spark.sql, rows, schema, pending, queries)


def read_thrift(connection, schema: str, pending: list[str], queries: dict[str, str]) -> dict[str, list[dict]]:
    """`read` through a PyHive connection to a Spark Thrift server."""
    cursor = connection.cursor()

    def rows(sql: str) -> list[dict]:
        cursor.execute(sql)
        cols = [d[0] for d in cursor.description or []]
        return [dict(zip(cols, r)) for r in cursor.fetchall()] if cols else []
    try:
        return _read(cursor.execute, rows, schema, pending, queries)
    finally:
        cursor.close()


def main() -> None:
    job = pickle.loads(sys.stdin.buffer.read())
    out = sys.stdout.buffer
    sys.stdout = sys.stderr  # Spark's chatter must not reach the pickle
    from auto_cdc_testkit.testing.spark import session
    spark = session(dict(job["conf"], **{"spark.master": "local[1]"}))
    result = read(spark, job["schema"], job["pending"], job["queries"])
    spark.stop()
    out.write(pickle.dumps(result))
    out.flush()


if __name__ == "__main__":
    main()
