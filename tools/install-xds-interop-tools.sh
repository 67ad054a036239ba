#!/usr/bin/env bash
# Installs grpc-go's xDS interop test client and server (google.golang.org/grpc/interop/xds/client
# and .../server, pinned at v1.64.1, from the Go module proxy) as grpc-go-xds-interop-client and
# grpc-go-xds-interop-server in the cache the other install scripts fill
# (${TERN_TOOLS_DIR:-~/.cache/tern-tools}/bin). tern-interop's ForeignXdsClientsTest runs the client,
# with the test control plane of tools/install-xds-tools.sh, against Tern's xds-test-servers;
# GrpcGoXdsServerTest runs Tern's xds-test-client against the server. Idempotent: rebuilt only when
# the pinned version changes.
set -euo pipefail
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
version="v1.64.1"
stamp="$tools/bin/.grpc-go-xds-interop.version"
mkdir -p "$tools/bin"
if [[ -x "$tools/bin/grpc-go-xds-interop-client" && -x "$tools/bin/grpc-go-xds-interop-server" \
    && "$(cat "$stamp" 2>/dev/null)" == "$version" ]]; then
  exit 0
fi
echo "== Installing grpc-go's xDS interop client and server $version"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for program in client server; do
  (cd "$work" && GOBIN="$work/bin" GOFLAGS=-buildvcs=false \
    go install "google.golang.org/grpc/interop/xds/$program@$version")
  mv -f "$work/bin/$program" "$tools/bin/grpc-go-xds-interop-$program"
done
echo "$version" >"$stamp"
