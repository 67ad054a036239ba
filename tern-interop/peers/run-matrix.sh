#!/usr/bin/env bash
# Runs the interop matrix (see README.md here): one line per (client, server, security, case),
# then "N passed, M failed[, K skipped]"; exit status 1 if anything failed. Every server it starts
# is stopped at the end, also on Ctrl-C or SIGTERM (run_matrix.py handles both).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec python3 "$here/run_matrix.py" "$@"
