#!/usr/bin/env bash
# Make `CREATE EXTENSION vector` work on the local PostgreSQL 15 (Debian 12).
#
# Debian 12 ships no pgvector for PostgreSQL 15, so this builds Debian 13's (trixie) pgvector
# source package against the local server:
#   1. temporarily add a deb-src entry for suite "trixie" (same URI as the existing Debian
#      source in /etc/apt/sources.list.d/debian.sources), apt-get update;
#   2. install postgresql-server-dev-15, build-essential, dpkg-dev if missing;
#   3. apt-get source --download-only pgvector, dpkg-source -x, make, make install;
#   4. remove the extra entry (always, via trap) and apt-get update again;
#   5. restart the cluster if the server package was upgraded (or if it is not answering);
#   6. verify CREATE EXTENSION vector in a throwaway database.
# Idempotent: if the extension's control file and library are already installed, it only
# runs the verification (step 6).
set -euo pipefail

PG_MAJOR=15
PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config"
CONTROL="/usr/share/postgresql/$PG_MAJOR/extension/vector.control"
LIBRARY="/usr/lib/postgresql/$PG_MAJOR/lib/vector.so"
DEBIAN_SOURCES=/etc/apt/sources.list.d/debian.sources
EXTRA_SOURCES=/etc/apt/sources.list.d/bizmemory-pgvector-trixie-src.sources
SRC_SUITE=trixie

log() { printf '[install-pgvector] %s\n' "$*"; }
die() { printf '[install-pgvector] FAILED: %s\n' "$*" >&2; exit 1; }

export DEBIAN_FRONTEND=noninteractive
APT_OPTS=(-o DPkg::Lock::Timeout=300)

WORKDIR=""
STEP_LOG=""
ADDED_SOURCE=0

cleanup() {
    local rc=$?
    set +e
    if [ "$ADDED_SOURCE" = 1 ]; then
        rm -f "$EXTRA_SOURCES"
        log "removed temporary deb-src entry; apt-get update"
        apt-get "${APT_OPTS[@]}" update -qq >/dev/null 2>&1 ||
            log "WARNING: apt-get update after removing $EXTRA_SOURCES failed"
    fi
    [ -n "$WORKDIR" ] && rm -rf "$WORKDIR"
    if [ "$rc" -ne 0 ] && [ -n "$STEP_LOG" ] && [ -s "$STEP_LOG" ]; then
        log "full output of the failed run kept in $STEP_LOG"
    elif [ -n "$STEP_LOG" ]; then
        rm -f "$STEP_LOG"
    fi
    exit "$rc"
}
trap cleanup EXIT

# run LABEL CMD... : run a step with its output to the log; on failure show the log's tail.
run() {
    local label="$1"; shift
    log "$label"
    printf '\n===== %s: %s\n' "$label" "$*" >>"$STEP_LOG"
    if ! "$@" >>"$STEP_LOG" 2>&1; then
        printf '[install-pgvector] FAILED: %s\n  command: %s\n  last lines of output:\n' \
            "$label" "$*" >&2
        tail -n 25 "$STEP_LOG" | sed 's/^/    /' >&2
        exit 1
    fi
}

installed_pkg() { dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'; }
pkg_version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 >/dev/null 2>&1; }

restart_cluster() {  # restart_cluster REASON
    log "restarting PostgreSQL $PG_MAJOR ($1)"
    pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" main restart ||
        die "pg_ctlcluster $PG_MAJOR main restart failed (see /var/log/postgresql/postgresql-$PG_MAJOR-main.log)"
    local waited=0
    until pg_up; do
        [ "$waited" -lt 60 ] ||
            die "PostgreSQL not answering 60 s after restart (see /var/log/postgresql/postgresql-$PG_MAJOR-main.log)"
        sleep 1; waited=$((waited + 1))
    done
}

verify() {
    pg_up || restart_cluster "it is not answering on 127.0.0.1:5432"
    local db="pgvector_check_$$"
    local psql=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -U postgres)
    "${psql[@]}" -d postgres -c "CREATE DATABASE $db" >/dev/null ||
        die "could not create throwaway database $db"
    local out rc=0
    out=$("${psql[@]}" -d "$db" -tA \
        -c "CREATE EXTENSION IF NOT EXISTS vector" \
        -c "SELECT extversion FROM pg_extension WHERE extname = 'vector'" \
        -c "SELECT '[1,0,0]'::vector <=> '[0,1,0]'::vector" 2>&1) || rc=$?
    "${psql[@]}" -d postgres -c "DROP DATABASE IF EXISTS $db" >/dev/null ||
        log "WARNING: could not drop throwaway database $db"
    [ "$rc" -eq 0 ] || die "CREATE EXTENSION vector failed: $out"
    log "verified: CREATE EXTENSION vector works (pgvector $(printf '%s\n' "$out" | sed -n 1p))"
}

# ---- already installed? -----------------------------------------------------------------------
if [ -f "$CONTROL" ] && [ -f "$LIBRARY" ]; then
    log "pgvector already installed ($CONTROL, $LIBRARY)"
    verify
    exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root (apt-get and make install)"
[ -d "/etc/postgresql/$PG_MAJOR/main" ] ||
    die "no PostgreSQL $PG_MAJOR cluster 'main' under /etc/postgresql (install postgresql-$PG_MAJOR)"

STEP_LOG=$(mktemp /tmp/install-pgvector.XXXXXX.log)
START=$(date +%s)

# ---- 1. temporary deb-src entry for trixie ---------------------------------------------------
[ -r "$DEBIAN_SOURCES" ] || die "$DEBIAN_SOURCES not found: cannot tell which Debian mirror to use"
# From the deb822 stanza that lists the main "bookworm" suite, take its first URI and Signed-By.
read -r MIRROR_URI SIGNED_BY < <(awk '
    function flush() {
        if (!done && suites ~ /(^| )bookworm( |$)/ && uris != "") {
            split(uris, u, " "); print u[1], (signed == "" ? "-" : signed); done = 1
        }
        suites = ""; uris = ""; signed = ""
    }
    /^[[:space:]]*#/ { next }
    /^[[:space:]]*$/ { flush(); next }
    tolower($1) == "suites:"    { $1 = ""; suites = $0; sub(/^ +/, "", suites); next }
    tolower($1) == "uris:"      { $1 = ""; uris = $0; sub(/^ +/, "", uris); next }
    tolower($1) == "signed-by:" { signed = $2; next }
    END { flush() }
' "$DEBIAN_SOURCES") || true
[ -n "${MIRROR_URI:-}" ] ||
    die "no stanza with suite 'bookworm' and a URIs: line in $DEBIAN_SOURCES"

{
    echo "# Temporary entry added by BizMemory scripts/install-pgvector.sh; removed when it exits."
    echo "Types: deb-src"
    echo "URIs: $MIRROR_URI"
    echo "Suites: $SRC_SUITE"
    echo "Components: main"
    if [ "$SIGNED_BY" != "-" ] && [ -e "$SIGNED_BY" ]; then echo "Signed-By: $SIGNED_BY"; fi
} >"$EXTRA_SOURCES"
ADDED_SOURCE=1
log "added temporary deb-src entry for $SRC_SUITE ($EXTRA_SOURCES)"
run "apt-get update" apt-get "${APT_OPTS[@]}" update

# ---- 2. build dependencies ------------------------------------------------------------------
SERVER_VERSION_BEFORE=$(pkg_version "postgresql-$PG_MAJOR")
missing=()
for pkg in "postgresql-server-dev-$PG_MAJOR" build-essential dpkg-dev; do
    installed_pkg "$pkg" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
    run "installing ${missing[*]}" \
        apt-get "${APT_OPTS[@]}" install -y --no-install-recommends "${missing[@]}"
else
    log "build dependencies already installed"
fi
SERVER_VERSION_AFTER=$(pkg_version "postgresql-$PG_MAJOR")
[ -x "$PG_CONFIG" ] || die "$PG_CONFIG missing after installing postgresql-server-dev-$PG_MAJOR"

# ---- 3. fetch, unpack, build, install -------------------------------------------------------
WORKDIR=$(mktemp -d /tmp/install-pgvector.XXXXXX)
# Let apt's unprivileged _apt user write the download (avoids its "unsandboxed" warning).
if id _apt >/dev/null 2>&1; then chown _apt "$WORKDIR"; fi
cd "$WORKDIR"
run "downloading pgvector source package ($SRC_SUITE)" \
    apt-get "${APT_OPTS[@]}" source --download-only pgvector
DSC=$(find . -maxdepth 1 -name "pgvector_*.dsc" | head -n1)
[ -n "$DSC" ] || die "apt-get source did not produce a pgvector .dsc in $WORKDIR"
run "unpacking $(basename "$DSC")" dpkg-source -x "$DSC" src
MAKE_VARS=(OPTFLAGS="" PG_CONFIG="$PG_CONFIG")
BUILD_START=$(date +%s)
run "building pgvector against PostgreSQL $PG_MAJOR" make -C src -j"$(nproc)" "${MAKE_VARS[@]}"
run "make install" make -C src install "${MAKE_VARS[@]}"
BUILD_END=$(date +%s)
if [ ! -f "$CONTROL" ] || [ ! -f "$LIBRARY" ]; then
    die "make install did not install $CONTROL and $LIBRARY"
fi
log "built and installed $(basename "$DSC" .dsc) in $((BUILD_END - BUILD_START)) s"
cd /

# ---- 4. remove the temporary source entry (the trap would do it too) ------------------------
rm -f "$EXTRA_SOURCES"
ADDED_SOURCE=0
run "removed temporary deb-src entry; apt-get update" apt-get "${APT_OPTS[@]}" update

# ---- 5. restart if the server package changed -----------------------------------------------
if [ "$SERVER_VERSION_BEFORE" != "$SERVER_VERSION_AFTER" ]; then
    restart_cluster "postgresql-$PG_MAJOR upgraded $SERVER_VERSION_BEFORE -> $SERVER_VERSION_AFTER"
fi

# ---- 6. verify ------------------------------------------------------------------------------
verify
log "done in $(( $(date +%s) - START )) s"
