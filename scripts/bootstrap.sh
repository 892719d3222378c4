#!/usr/bin/env bash
# Idempotent environment setup: creates .venv in the repo root and installs the
# development requirements (pip install -r requirements-dev.txt: the test tooling
# with its test extra, dbt-core and the DuckDB and Postgres adapters; the `spark`
# extra too when AUTO_CDC_ENGINES names spark).
#
#   bash scripts/bootstrap.sh
#   AUTO_CDC_DBT=oldest bash scripts/bootstrap.sh   # .venv-oldest: the oldest supported dbt-core (1.8)
#
# Needs only python3 (and apt-get, when python3's venv module is missing). As root (or with sudo) and apt-get,
# it also installs Debian's PostgreSQL and its wal2json plugin for the live-source test (ensure_wal2json).
# Quiet on success. The install is skipped when .venv/.bootstrap-<sha256 of
# pyproject.toml and requirements-dev.txt> exists, i.e. pyproject.toml has not changed since the last
# successful run (nor requirements-dev.txt). Delete that stamp (or .venv) to force a reinstall.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

PYTHON="${PYTHON:-python3}"
VENV="$ROOT/.venv"
REQUIREMENTS=requirements-dev.txt
# AUTO_CDC_DBT=oldest: a venv of its own, .venv-oldest, with the oldest dbt-core and adapters the package
# supports (requirements-oldest.txt), where scripts/test.sh runs the DuckDB quick tier.
if [ "${AUTO_CDC_DBT:-}" = oldest ]; then
    VENV="$ROOT/.venv-oldest"
    REQUIREMENTS=requirements-oldest.txt
fi

say() { printf 'bootstrap: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Two callers at once (e.g. parallel scripts) must not both build the venv.
if command -v flock >/dev/null 2>&1; then
    lock_id="$(printf '%s' "$ROOT" | cksum | cut -d' ' -f1)"
    exec 9>"${TMPDIR:-/tmp}/dbt-auto-cdc-bootstrap-${lock_id}.lock"
    flock 9
fi

[ -f pyproject.toml ] || die "no pyproject.toml in $ROOT"
[ -f "$REQUIREMENTS" ] || die "no $REQUIREMENTS in $ROOT"

hash_file() {
    if command -v sha256sum >/dev/null 2>&1; then
        sha256sum "$1" | cut -d' ' -f1
    else
        "$PYTHON" -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' "$1"
    fi
}

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo -n "$@"
    else
        die "need root to run: $*"
    fi
}

ensure_venv_module() {
    if "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
        return
    fi
    command -v apt-get >/dev/null 2>&1 || die "$PYTHON has no venv/ensurepip module and apt-get is missing"
    say "installing python3-venv with apt-get"
    local ver
    ver="$("$PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    # python3-venv matches Debian's default python3; python3.X-venv the running one.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        python3-venv >/dev/null
    if ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
            "python${ver}-venv" >/dev/null || true
    fi
    "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1 \
        || die "$PYTHON still has no working venv module after apt-get install python3-venv"
}

# The live-source test (tests/functional/test_live_source.py) decodes a Postgres server's changes with
# wal2json: Debian's PostgreSQL (what the test kit starts: the highest version >= 15) and its
# postgresql-<version>-wal2json. Installed with apt-get as root (or with sudo), once per machine; elsewhere
# the test says what to install.
ensure_wal2json() {
    case "${AUTO_CDC_ENGINES:-postgres}" in *postgres*) ;; *) return 0 ;; esac
    command -v apt-get >/dev/null 2>&1 || return 0
    [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1 || return 0
    local version=""
    for dir in /usr/lib/postgresql/*/bin/initdb; do
        [ -e "$dir" ] || continue
        local v; v="$(basename "$(dirname "$(dirname "$dir")")")"
        if [ "$v" -ge 15 ] 2>/dev/null && { [ -z "$version" ] || [ "$v" -gt "$version" ]; }; then version="$v"; fi
    done
    if [ -n "$version" ] && [ -e "/usr/lib/postgresql/$version/lib/wal2json.so" ]; then return 0; fi
    say "installing PostgreSQL's wal2json with apt-get"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || true
    if [ -z "$version" ]; then
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null 2>&1 \
            || { say "warning: apt-get install postgresql failed"; return 0; }
        version="$(ls /usr/lib/postgresql | sort -n | tail -1)"
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "postgresql-$version-wal2json" >/dev/null 2>&1 \
        || say "warning: apt-get install postgresql-$version-wal2json failed (the live-source test needs it)"
}
ensure_wal2json

# A venv whose interpreter is gone (moved machine, deleted Python) is useless.
if [ -e "$VENV" ] && ! "$VENV/bin/python" -c 'import sys' >/dev/null 2>&1; then
    say "removing broken $VENV"
    rm -rf "$VENV"
fi

if [ ! -x "$VENV/bin/python" ]; then
    command -v "$PYTHON" >/dev/null 2>&1 || die "$PYTHON not found"
    ensure_venv_module
    say "creating $VENV"
    if ! "$PYTHON" -m venv "$VENV" >/dev/null; then
        rm -rf "$VENV"
        die "$PYTHON -m venv failed"
    fi
fi

# The Spark tier (AUTO_CDC_ENGINES containing spark) needs the `spark` extra: pyspark and dbt-spark
# (its session method, and PyHive for its thrift method).
extras="test"
case "${AUTO_CDC_ENGINES:-}" in *spark*) extras="test,spark" ;; esac

hash="$(hash_file pyproject.toml)$(hash_file "$REQUIREMENTS" | cut -c1-16)"
stamp="$VENV/.bootstrap-$hash-${extras/,/-}"

# The Spark tier's Delta Lake jars, from Maven Central into a cache every clone shares (a no-op once
# there): auto_cdc_testkit/testing/delta.py pins the version that matches the pinned pyspark.
fetch_delta_jars() {
    [ "$extras" = "test,spark" ] || return 0
    if ! "$VENV/bin/python" -m auto_cdc_testkit.testing.delta >/dev/null; then
        die "fetching the Delta Lake jars from Maven Central failed (python -m auto_cdc_testkit.testing.delta)"
    fi
}

# an install with the spark extra has the test extra too
if [ -f "$stamp" ] || { [ "$extras" = test ] && [ -f "$VENV/.bootstrap-$hash-test-spark" ]; }; then
    fetch_delta_jars
    exit 0
fi

# pip's output goes to a log, shown only on failure (some machines' pip config
# makes even -q print a warning per package).
pip_log="$(mktemp "${TMPDIR:-/tmp}/bootstrap-pip.XXXXXX")"
trap 'rm -f "$pip_log"' EXIT
pip_quiet() {
    if ! "$VENV/bin/python" -m pip "$@" >"$pip_log" 2>&1; then
        grep -v "^WARNING: Location '.*' is ignored" "$pip_log" | tail -n 60 >&2
        die "pip $* failed (last lines of its output above)"
    fi
}

say "installing the development requirements into $VENV (pip install -r $REQUIREMENTS, extras $extras)"
export PIP_DISABLE_PIP_VERSION_CHECK=1
pip_quiet install -q --upgrade pip
pip_quiet install -q -r "$REQUIREMENTS" -e ".[$extras]"

fetch_delta_jars
rm -f "$VENV"/.bootstrap-*
touch "$stamp"
