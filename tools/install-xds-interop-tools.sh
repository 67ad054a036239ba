#!/usr/bin/env bash
# Installs grpc-go's xDS interop test client (google.golang.org/grpc/interop/xds/client, pinned at
# v1.64.1, from the Go module proxy) as grpc-go-xds-interop-client in the cache the other install
# scripts fill (${TERN_TOOLS_DIR:-~/.cache/tern-tools}/bin). tern-interop's ForeignXdsClientsTest
# runs it, with the test control plane of tools/install-xds-tools.sh, against Tern's
# xds-test-servers. Idempotent: rebuilt only when the pinned version changes.
set -euo pipefail
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
version="v1.64.1"
binary="$tools/bin/grpc-go-xds-interop-client"
stamp="$tools/bin/.grpc-go-xds-interop-client.version"
mkdir -p "$tools/bin"
if [[ -x "$binary" && "$(cat "$stamp" 2>/dev/null)" == "$version" ]]; then
  exit 0
fi
echo "== Installing grpc-go's xDS interop client $version"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && GOBIN="$work/bin" GOFLAGS=-buildvcs=false \
  go install "google.golang.org/grpc/interop/xds/client@$version")
mv -f "$work/bin/client" "$binary"
echo "$version" >"$stamp"
