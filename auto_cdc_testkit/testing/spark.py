"""A throwaway Spark standalone cluster on loopback for the Spark tier of the tests.

Usage::

    from auto_cdc_testkit.testing import spark

    with spark.start() as cluster:
        cluster.master_url           # spark://127.0.0.1:<port>, or local[2] in the fallback
        cluster.profile_output()     # a dbt-spark `session` output for profiles.yml

A master and two workers (one core each) are started with the scripts' own entry point
(``bin/spark-class org.apache.spark.deploy.master.Master`` / ``...worker.Worker``) from the
pyspark package, so every dbt invocation (a new driver, through dbt-spark's ``session`` method)
runs its tasks in executor processes on both workers. When the cluster cannot start (no Java,
ports refused, ...) ``start()`` falls back to ``local[2]`` mode, and says so in ``mode`` and on
stderr; ``AUTO_CDC_SPARK_MASTER`` forces a master URL (``local[2]``, or an existing cluster).

The catalog must outlive each driver: Hive support with an embedded Derby metastore at a fixed
path under the cluster's temp dir, and a warehouse dir there too (a local path every process on
this machine shares). Derby embedded admits one JVM at a time, so only one driver may run at once
(the tests run dbt sequentially and read tables with `read_tables`, in a driver of its own).

Two dbt processes on one catalog at once need a server that owns it: ``thrift_server()`` starts a
Spark Thrift server (HiveServer2, ``org.apache.spark.sql.hive.thriftserver.HiveThriftServer2`` from
pyspark's jars, through ``spark-submit``) with the same settings, in a temp dir of its own (its own
Derby metastore and warehouse, so it never contends with the test process's driver for the cluster's
metastore), on a free loopback port without authentication (NOSASL). It runs in ``local[2]``: the test
process's driver keeps every core of the loopback cluster for the session (a standalone application
takes all free cores), so a second application there would wait for executors. Each client connection
(dbt-spark's ``thrift`` method) is a session of its own in that one driver::

    with spark.thrift_server() as server:
        server.profile_output("my_schema")   # a dbt-spark `thrift` output for profiles.yml

``python -m auto_cdc_testkit.testing.spark`` starts a cluster, prints its settings and waits.
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from auto_cdc_testkit.testing import delta

HOST = "127.0.0.1"
START_TIMEOUT = 90.0


def spark_home() -> Path:
    import pyspark
    return Path(pyspark.__file__).resolve().parent


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _java_ok() -> bool:
    java = shutil.which("java") or (os.environ.get("JAVA_HOME") and str(Path(os.environ["JAVA_HOME"]) / "bin" / "java"))
    if not java:
        return False
    return subprocess.run([java, "-version"], capture_output=True).returncode == 0


def ensure_java() -> None:
    """Java 17 from apt when no java is found (root with apt-get only)."""
    if _java_ok():
        return
    if shutil.which("apt-get") and hasattr(os, "geteuid") and os.geteuid() == 0:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        print("[auto_cdc_testkit.testing.spark] installing openjdk-17-jre-headless with apt-get", file=sys.stderr)
        subprocess.run(["apt-get", "update", "-qq"], env=env, capture_output=True)
        subprocess.run(["apt-get", "install", "-y", "-qq", "openjdk-17-jre-headless"], env=env, capture_output=True)


@dataclass
class SparkCluster:
    tmp_dir: Path
    master_url: str
    mode: str                                    # "standalone cluster (1 master, 2 workers)" or "local"
    procs: list = field(default_factory=list)
    conf: dict = field(default_factory=dict)

    @property
    def warehouse(self) -> Path:
        return self.tmp_dir / "warehouse"

    @property
    def metastore(self) -> Path:
        return self.tmp_dir / "metastore_db"

    @property
    def has_delta(self) -> bool:
        return "spark.sql.extensions" in self.spark_conf()

    def spark_conf(self) -> dict[str, str]:
        """The driver settings: the master, a shared warehouse, a persistent Derby metastore, and Delta
        Lake's catalog when its jars are there."""
        conf = {
            "spark.master": self.master_url,
            "spark.sql.warehouse.dir": str(self.warehouse),
            "spark.hadoop.javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={self.metastore};create=true",
            "spark.driver.host": HOST,
            "spark.driver.bindAddress": HOST,
            "spark.driver.memory": "1g",
            "spark.executor.memory": "768m",
            "spark.sql.shuffle.partitions": "4",
            "spark.default.parallelism": "4",
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.sources.partitionOverwriteMode": "dynamic",
            "spark.sql.session.timeZone": "UTC",
            "spark.driver.extraJavaOptions": f"-Dderby.system.home={self.tmp_dir} -Dderby.stream.error.file={self.tmp_dir}/derby.log",
        }
        jars = delta.jars()
        if jars:  # Delta Lake's catalog (fetched by scripts/bootstrap.sh): new targets are Delta tables
            conf.update(delta.spark_conf(jars))
        conf.update(self.conf)
        return conf

    def profile_output(self, schema: str) -> str:
        """A dbt-spark `session` output (YAML, indented for profiles.yml's `outputs:`)."""
        lines = ["type: spark", "method: session", "host: localhost", f"schema: {schema}", "threads: 1",
                 "server_side_parameters:"]
        for k, v in self.spark_conf().items():
            lines.append(f"  {json.dumps(k)}: {json.dumps(v)}")
        return "\n      ".join(lines)

    def env(self) -> dict[str, str]:
        return {"AUTO_CDC_SPARK_CONF": json.dumps(self.spark_conf()), "AUTO_CDC_SPARK_MODE": self.mode}

    def stop(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for p in reversed(self.procs):
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
        self.procs.clear()
        shutil.rmtree(self.tmp_dir, ignore_errors=True)

    def __enter__(self) -> "SparkCluster":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def _wait_for_port(port: int, proc, timeout: float) -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            return False
        with socket.socket() as s:
            s.settimeout(0.5)
            if s.connect_ex((HOST, port)) == 0:
                return True
        time.sleep(0.5)
    return False


def _registered_workers(ui_port: int) -> int:
    import urllib.request
    try:
        with urllib.request.urlopen(f"http://{HOST}:{ui_port}/json/", timeout=2) as r:
            return len([w for w in json.load(r).get("workers", []) if w.get("state") == "ALIVE"])
    except Exception:  # noqa: BLE001
        return 0


def start(workers: int = 2) -> SparkCluster:
    tmp = Path(tempfile.mkdtemp(prefix="auto_cdc_spark_"))
    forced = os.environ.get("AUTO_CDC_SPARK_MASTER")
    if forced:
        return SparkCluster(tmp, forced, "local" if forced.startswith("local") else f"existing master {forced}")
    ensure_java()
    home = spark_home()
    env = dict(os.environ, SPARK_HOME=str(home), SPARK_LOCAL_IP=HOST, SPARK_LOCAL_DIRS=str(tmp / "local"),
               SPARK_WORKER_DIR=str(tmp / "work"), SPARK_LOG_DIR=str(tmp / "logs"), SPARK_DAEMON_MEMORY="256m",
               SPARK_NO_DAEMONIZE="1")
    spark_class = str(home / "bin" / "spark-class")
    port, ui = _free_port(), _free_port()
    cluster = SparkCluster(tmp, f"spark://{HOST}:{port}", f"standalone cluster (1 master, {workers} workers)")
    logs = tmp / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    try:
        master = subprocess.Popen(
            [spark_class, "org.apache.spark.deploy.master.Master", "--host", HOST, "--port", str(port),
             "--webui-port", str(ui)], env=env, stdout=open(logs / "master.log", "w"), stderr=subprocess.STDOUT,
            start_new_session=True)
        cluster.procs.append(master)
        if not _wait_for_port(port, master, START_TIMEOUT):
            raise RuntimeError("master did not start")
        for i in range(workers):
            w = subprocess.Popen(
                [spark_class, "org.apache.spark.deploy.worker.Worker", "--host", HOST, "--cores", "1",
                 "--memory", os.environ.get("AUTO_CDC_SPARK_WORKER_MEMORY", "1g"), "--webui-port", str(_free_port()),
                 "--work-dir", str(tmp / f"work{i}"),
                 cluster.master_url], env=env, stdout=open(logs / f"worker{i}.log", "w"),
                stderr=subprocess.STDOUT, start_new_session=True)
            cluster.procs.append(w)
        deadline = time.time() + START_TIMEOUT
        while _registered_workers(ui) < workers:
            if time.time() > deadline or any(p.poll() is not None for p in cluster.procs):
                raise RuntimeError("workers did not register")
            time.sleep(0.5)
    except Exception as exc:  # noqa: BLE001 - fall back to local mode, and say so
        print(f"[auto_cdc_testkit.testing.spark] standalone cluster could not start ({exc}); "
              f"falling back to local[2] mode. Logs: {logs}", file=sys.stderr)
        for p in cluster.procs:
            if p.poll() is None:
                p.kill()
        cluster.procs.clear()
        cluster.master_url, cluster.mode = "local[2]", "local"
        # executors and the driver are one process in local mode: give it the memory
        cluster.conf["spark.driver.memory"] = "2g"
    return cluster


THRIFT_START_TIMEOUT = 120.0


@dataclass
class ThriftServer:
    """A Spark Thrift server on loopback (see the module's docstring); ``catalog`` holds its settings and
    its temp dir (metastore, warehouse, log)."""
    catalog: SparkCluster
    port: int
    proc: subprocess.Popen | None = None
    host: str = HOST

    @property
    def log(self) -> Path:
        return self.catalog.tmp_dir / "thrift_server.log"

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def profile_output(self, schema: str, threads: int = 1) -> str:
        """A dbt-spark `thrift` output (YAML, indented for profiles.yml's `outputs:`). dbt-spark polls a
        running statement every poll_interval seconds (default 5): 1 keeps short statements short."""
        lines = ["type: spark", "method: thrift", f"host: {self.host}", f"port: {self.port}", "user: dbt",
                 "auth: NOSASL", f"schema: '{schema}'", f"threads: {threads}", "poll_interval: 1",
                 "connect_retries: 3", "connect_timeout: 5"]
        return "\n      ".join(lines)

    def connect(self):
        """A PyHive connection to the server (a session of its own)."""
        from pyhive import hive
        return hive.connect(host=self.host, port=self.port, username="dbt", auth="NOSASL")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        shutil.rmtree(self.catalog.tmp_dir, ignore_errors=True)

    def __enter__(self) -> "ThriftServer":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def thrift_server(master: str = "local[2]", timeout: float = THRIFT_START_TIMEOUT) -> ThriftServer:
    """Start a Spark Thrift server with the tier's settings (Delta's catalog when its jars are there) on a
    metastore and warehouse of its own; returns once its port accepts connections, or raises with the
    tail of its log."""
    ensure_java()
    tmp = Path(tempfile.mkdtemp(prefix="auto_cdc_thrift_"))
    # the process's driver and executors in one JVM: give it the memory, as start()'s local fallback does
    catalog = SparkCluster(tmp, master, "thrift server", conf={"spark.driver.memory": "2g"})
    jars = delta.jars()
    if jars:
        # Delta's classes on the JVM's own class path too: the server runs statements on threads whose
        # class loader does not see spark.jars (a DROP TABLE there fails on a Delta class not found)
        catalog.conf["spark.driver.extraClassPath"] = os.pathsep.join(str(j) for j in jars)
    server = ThriftServer(catalog, _free_port())
    home = spark_home()
    argv = [str(home / "bin" / "spark-submit"), "--class", "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
            "--name", "auto_cdc_thrift_server"]
    for k, v in catalog.spark_conf().items():
        argv += ["--conf", f"{k}={v}"]
    for k, v in {"hive.server2.thrift.bind.host": HOST, "hive.server2.thrift.port": str(server.port),
                 "hive.server2.authentication": "NOSASL", "hive.server2.transport.mode": "binary"}.items():
        argv += ["--hiveconf", f"{k}={v}"]
    argv.append("spark-internal")  # no application jar: the class ships with Spark (as sbin/start-thriftserver.sh does)
    env = dict(os.environ, SPARK_HOME=str(home), SPARK_LOCAL_IP=HOST, SPARK_LOCAL_DIRS=str(tmp / "local"))
    server.proc = subprocess.Popen(argv, cwd=tmp, env=env, stdout=open(server.log, "w"), stderr=subprocess.STDOUT,
                                   start_new_session=True)
    if not _wait_for_port(server.port, server.proc, timeout):
        tail = server.log_tail()
        code = server.proc.poll()
        server.stop()
        raise RuntimeError(f"the Spark Thrift server did not come up on {HOST}:{server.port} within {timeout:.0f}s"
                           f" ({'exited with ' + str(code) if code is not None else 'still starting'}); its log ends:\n{tail}")
    return server


def session(conf: dict[str, str]):
    """A SparkSession with the cluster's settings (the catalog the dbt runs use)."""
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName("auto_cdc_tests").enableHiveSupport()
    for k, v in conf.items():
        builder = builder.config(k, v)
    return builder.getOrCreate()


if __name__ == "__main__":
    import signal
    c = start()
    print(json.dumps({"master": c.master_url, "mode": c.mode, "conf": c.spark_conf()}, indent=2), flush=True)

    def _stop(*_):
        c.stop()
        sys.exit(0)
    # SIGTERM too: a background job's SIGINT may be ignored; the daemons run in sessions of their own
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    while True:
        time.sleep(3600)
