#!/usr/bin/env bash
# Install the Debian packages BizMemory's full test setup needs, if they are missing:
#   pkg-config, libmariadb-dev  - to compile the mysqlclient driver (the MySQL/MariaDB extra)
#   chromium                    - headless browser for the browser tests
#   gettext                     - msgfmt, to compile the translations in locale/ (manage.py compilemessages)
#   fonts-wqy-microhei          - a CJK font, so zh pages in the browser tests (and screenshots) are not boxes
# Idempotent: runs `apt-get update` (once) and `apt-get install` only if something is missing.
set -euo pipefail

PACKAGES=(pkg-config libmariadb-dev chromium gettext fonts-wqy-microhei)

log() { printf '[install-system-deps] %s\n' "$*"; }
die() { printf '[install-system-deps] ERROR: %s\n' "$*" >&2; exit 1; }

installed() {  # "dpkg -s" also knows removed-but-not-purged packages: check the status line
    dpkg -s "$1" 2>/dev/null | grep -q '^Status: install ok installed'
}

missing=()
for pkg in "${PACKAGES[@]}"; do
    installed "$pkg" || missing+=("$pkg")
done

if [ "${#missing[@]}" -eq 0 ]; then
    log "already installed: ${PACKAGES[*]}"
    exit 0
fi

[ "$(id -u)" -eq 0 ] || die "must run as root to install: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
APT_OPTS=(-o DPkg::Lock::Timeout=300)

log "missing: ${missing[*]}; running apt-get update"
apt-get "${APT_OPTS[@]}" update -qq || die "apt-get update failed"
log "installing: ${missing[*]}"
apt-get "${APT_OPTS[@]}" install -y -qq --no-install-recommends "${missing[@]}" ||
    die "apt-get install ${missing[*]} failed"

for pkg in "${missing[@]}"; do
    installed "$pkg" || die "$pkg is still not installed after apt-get install"
done
log "done: ${PACKAGES[*]} installed"
