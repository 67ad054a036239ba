#!/usr/bin/env bash
# Runs grpc-go 1.64.1's interop server or client:
#   grpc-go-peer.sh server --port=N --use_tls=true|false
#   grpc-go-peer.sh client --server_host=H --server_port=N --test_case=NAME --use_tls=true|false \
#     --use_test_ca=true|false --server_host_override=NAME
# The client runs one case per run (it has no --test_case=all). TLS uses grpc-go's testdata
# (server1.pem/server1.key, ca.pem: the same test CA as grpc-java's). The programs are built by
# tools/install-xds-interop-tools.sh into the tools cache
# (${TERN_TOOLS_DIR:-~/.cache/tern-tools}/bin/grpc-go-interop-{server,client}); run that first.
set -euo pipefail
role="${1:-}"
if [[ "$role" != server && "$role" != client ]]; then
  echo "usage: grpc-go-peer.sh server|client FLAGS..." >&2
  exit 2
fi
shift
program="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}/bin/grpc-go-interop-$role"
if [[ ! -x "$program" ]]; then
  echo "grpc-go's interop $role is not installed; run tools/install-xds-interop-tools.sh" >&2
  exit 2
fi
exec "$program" "$@"
