#!/usr/bin/env bash
# Installs the Connect conformance suite's runner, connectconformance (issue 16), pinned, into the
# cache under the user's home that tools/install-grpc-tools.sh also fills (~/.cache/tern-tools/bin;
# Go's module and build caches stay in their default places, also under the home). tern-conformance's
# tests run it against Tern's server (server mode) and Tern's client (client mode); they find it
# there through dev.tern.testtools.ExternalTool. TERN_TOOLS_DIR moves the cache.
# Idempotent: when the pinned version is already installed nothing is rebuilt.
set -euo pipefail
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
mkdir -p "$tools/bin"

# The newest release the Go module proxy serves (`go list -m -versions connectrpc.com/conformance`).
# tern-conformance's protos (src/main/proto/connectrpc/conformance/v1) follow this version's schema:
# check them against its proto/ folder when raising it.
module=connectrpc.com/conformance/cmd/connectconformance
version=v1.0.7

stamp="$tools/bin/.connectconformance.version"
if [[ -x "$tools/bin/connectconformance" && -f "$stamp" && "$(cat "$stamp")" == "$module@$version" ]]; then
  exit 0
fi
echo "== Installing connectconformance ($module@$version)"
GOBIN="$tools/bin" GOFLAGS=-buildvcs=false go install "$module@$version"
echo "$module@$version" >"$stamp"
