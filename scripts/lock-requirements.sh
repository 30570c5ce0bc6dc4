#!/usr/bin/env bash
# Regenerate requirements.lock: the exact version of every package requirements-dev.txt and
# requirements-mysql.txt pull in (runtime, tools, MySQL driver), resolved by pip-tools'
# pip-compile for this Python (3.11) on Linux. bin/setup installs with the lock as constraints,
# so two machines get the same set; a package the lock lacks (another platform's extra) still
# resolves, and tests/test_requirements.py names any locked package installed at another version.
#   scripts/lock-requirements.sh                          # keep current pins that still fit
#   scripts/lock-requirements.sh --upgrade                # newest versions the ranges allow
#   scripts/lock-requirements.sh --upgrade-package Django # one package
# mysqlclient's metadata build needs pkg-config and libmariadb-dev (scripts/install-system-deps.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
"$PY" -m venv "$tools/venv"
"$tools/venv/bin/pip" install -q --disable-pip-version-check "pip-tools==7.6.2" 2>&1 \
  | { grep -v "is ignored: it is neither a file nor a directory" || true; }
CUSTOM_COMPILE_COMMAND="scripts/lock-requirements.sh" "$tools/venv/bin/pip-compile" --quiet --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links \
  --output-file requirements.lock "$@" requirements-dev.txt requirements-mysql.txt 2>&1 \
  | { grep -v "is ignored: it is neither a file nor a directory" || true; }
echo "wrote requirements.lock ($(grep -c '^[A-Za-z0-9]' requirements.lock) packages)"
