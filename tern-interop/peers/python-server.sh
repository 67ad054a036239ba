#!/usr/bin/env bash
# Runs the Python (grpcio) interop server: python-server.sh --port=N --use_tls=true|false
# Sets up the virtualenv and, for TLS, the test certificates on first use.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="$here/../python"
"$py/setup-venv.sh"
"$here/fetch-test-certs.sh"
exec "$py/.venv/bin/python" "$py/interop_server.py" "$@"
