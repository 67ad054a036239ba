#!/usr/bin/env bash
# Builds Toxiproxy's server (github.com/Shopify/toxiproxy/v2, pinned) from the Go module proxy into
# the tools cache the other install scripts fill (${TERN_TOOLS_DIR:-~/.cache/tern-tools}/bin; Go's
# module and build caches stay in their default places). tern-reliability's network-fault tests and
# bin/chaos-report put it between clients and servers (dev.tern.reliability.Toxiproxy starts it on
# a free port of 127.0.0.1). Idempotent: rebuilt only when the pinned version changes.
set -euo pipefail
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
mkdir -p "$tools/bin"

module=github.com/Shopify/toxiproxy/v2
version=v2.5.0
binary="$tools/bin/toxiproxy-server"
stamp="$tools/bin/.toxiproxy-server.version"
if [[ -x "$binary" && -f "$stamp" && "$(cat "$stamp")" == "$module@$version" ]]; then
  exit 0
fi
echo "== Installing toxiproxy-server ($module@$version)"
GOBIN="$tools/bin" GOFLAGS=-buildvcs=false go install "$module/cmd/server@$version"
mv -f "$tools/bin/server" "$binary"
echo "$module@$version" >"$stamp"
