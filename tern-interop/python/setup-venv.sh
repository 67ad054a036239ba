#!/usr/bin/env bash
# Creates (or refreshes) the virtualenv of the Python interop peer in tern-interop/python/.venv,
# installing the exact versions pinned in requirements.txt. Idempotent and quiet when up to date.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.venv"
stamp="$venv/.requirements-installed"
python="${PYTHON:-python3}"

# Serialise concurrent first runs (a server and a client started together).
exec 9>"$here/.venv.lock"
flock 9

if [[ ! -x "$venv/bin/python" ]]; then
  "$python" -m venv "$venv"
fi
# Reinstall only when requirements.txt changed since the last successful install.
if [[ ! -f "$stamp" ]] || ! cmp -s "$here/requirements.txt" "$stamp"; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$here/requirements.txt"
  cp "$here/requirements.txt" "$stamp"
fi
