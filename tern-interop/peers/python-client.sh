#!/usr/bin/env bash
# Runs the Python (grpcio) interop client:
#   python-client.sh --server_host=H --server_port=N --test_case=NAME|all --use_tls=true|false \
#     --use_test_ca=true|false --server_host_override=NAME
# Sets up the virtualenv and the test certificates on first use.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="$here/../python"
"$py/setup-venv.sh"
"$here/fetch-test-certs.sh"
exec "$py/.venv/bin/python" "$py/interop_client.py" "$@"
