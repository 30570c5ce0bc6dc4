#!/usr/bin/env bash
# Start the local services BizMemory's tests use, if they are not already answering:
#   postgres  PostgreSQL (127.0.0.1:5432)
#   mariadb   MariaDB    (127.0.0.1:3306)
#   redis     Redis      (127.0.0.1:6379)
#
# Usage: scripts/start-services.sh [postgres] [mariadb] [redis]    (no argument: all three)
#
# Idempotent: a service that already answers is left alone. Each started service is waited
# for (up to START_SERVICES_TIMEOUT seconds, default 60); exits non-zero if one never answers.
set -euo pipefail

TIMEOUT="${START_SERVICES_TIMEOUT:-60}"

log() { printf '[start-services] %s\n' "$*"; }
die() { printf '[start-services] ERROR: %s\n' "$*" >&2; exit 1; }

usage() {
    echo "usage: $0 [postgres] [mariadb] [redis]   (default: all)" >&2
    exit 2
}

# ---- which services -------------------------------------------------------------------------
want_postgres=0 want_mariadb=0 want_redis=0
if [ "$#" -eq 0 ]; then
    set -- all
fi
for arg in "$@"; do
    case "$arg" in
        all) want_postgres=1 want_mariadb=1 want_redis=1 ;;
        postgres|postgresql|pg) want_postgres=1 ;;
        mariadb|mysql) want_mariadb=1 ;;
        redis) want_redis=1 ;;
        -h|--help) usage ;;
        *) echo "[start-services] unknown service: $arg" >&2; usage ;;
    esac
done

# ---- health checks --------------------------------------------------------------------------
postgres_up() { pg_isready -q -h 127.0.0.1 -p 5432 >/dev/null 2>&1; }
# mysqladmin ping exits 0 whenever the server answers (even if the login were refused).
mariadb_up() {
    mysqladmin --protocol=tcp -h 127.0.0.1 -P 3306 -u root --connect-timeout=2 ping \
        >/dev/null 2>&1
}
redis_up() { [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = "PONG" ]; }

need_cmd() {
    command -v "$1" >/dev/null 2>&1 || [ -x "$1" ] ||
        die "$1 not found: install $2 (apt-get install $2)"
}

started=()  # services this run started (and must wait for)

# ---- starters -------------------------------------------------------------------------------
start_postgres() {
    need_cmd pg_isready postgresql-client
    need_cmd pg_ctlcluster postgresql-common
    if postgres_up; then
        log "postgres: already up"
        return 0
    fi
    if [ ! -d /etc/postgresql ] || [ -z "$(ls /etc/postgresql)" ]; then
        die "postgres: no cluster under /etc/postgresql (is postgresql installed?)"
    fi
    # Socket/pid directory lives on tmpfs: recreate it if a reboot removed it.
    [ -d /var/run/postgresql ] || install -d -o postgres -g postgres -m 2775 /var/run/postgresql
    log "postgres: starting"
    # A non-zero status (e.g. "already running" while it is still starting up) is not fatal:
    # the wait below decides.
    # shellcheck disable=SC2046  # the agreed command, verbatim (one version dir on Debian 12)
    pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start ||
        log "postgres: pg_ctlcluster exited $?, waiting for it anyway"
    started+=(postgres)
}

start_mariadb() {
    need_cmd mysqladmin mariadb-client
    need_cmd /usr/sbin/mariadbd mariadb-server
    if mariadb_up; then
        log "mariadb: already up"
        return 0
    fi
    # Socket/pid directory lives on tmpfs: recreate it if a reboot removed it.
    [ -d /run/mysqld ] || install -d -o mysql -g mysql -m 0755 /run/mysqld
    log "mariadb: starting"
    start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd ||
        die "mariadb: start-stop-daemon failed (exit $?); see /var/log/mysql/error.log"
    started+=(mariadb)
}

start_redis() {
    need_cmd redis-cli redis-tools
    need_cmd redis-server redis-server
    if redis_up; then
        log "redis: already up"
        return 0
    fi
    [ -d /var/lib/redis ] || install -d -o redis -g redis -m 0750 /var/lib/redis
    [ -d /var/log/redis ] || install -d -o redis -g adm -m 2750 /var/log/redis
    log "redis: starting"
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
        --dir /var/lib/redis --logfile /var/log/redis/ci.log ||
        die "redis: redis-server failed (exit $?); see /var/log/redis/ci.log"
    started+=(redis)
}

# ---- wait -----------------------------------------------------------------------------------
wait_for() {  # wait_for NAME CHECK_FUNCTION LOGFILE
    local name="$1" check="$2" logfile="$3" waited=0
    while ! "$check"; do
        if [ "$waited" -ge "$TIMEOUT" ]; then
            printf '[start-services] ERROR: %s did not answer within %ss; last lines of %s:\n' \
                "$name" "$TIMEOUT" "$logfile" >&2
            tail -n 20 "$logfile" >&2 2>/dev/null || true
            return 1
        fi
        sleep 1
        waited=$((waited + 1))
    done
    log "$name: up (after ${waited}s)"
}

# Start everything that is down first, then wait, so the start-ups overlap.
if [ "$want_postgres" = 1 ]; then start_postgres; fi
if [ "$want_mariadb" = 1 ]; then start_mariadb; fi
if [ "$want_redis" = 1 ]; then start_redis; fi

failed=0
for svc in ${started[@]+"${started[@]}"}; do
    case "$svc" in
        postgres) wait_for postgres postgres_up \
                      "/var/log/postgresql/postgresql-$(ls /etc/postgresql | head -n1)-main.log" ||
                      failed=1 ;;
        mariadb) wait_for mariadb mariadb_up /var/log/mysql/error.log || failed=1 ;;
        redis) wait_for redis redis_up /var/log/redis/ci.log || failed=1 ;;
    esac
done
[ "$failed" = 0 ] || die "some services failed to start (see above)"
log "all requested services are up"
