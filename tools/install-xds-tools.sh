#!/usr/bin/env bash
# Builds tern-xds's test control plane, tern-xds-controlplane (issue 35): a Go program of our own
# (tern-xds/src/test/go/controlplane) on Envoy's go-control-plane library, pinned in its go.mod and
# go.sum, into the cache under the user's home the other install scripts fill
# (${TERN_TOOLS_DIR:-~/.cache/tern-tools}/bin; Go's module and build caches stay in their default
# places). tern-xds's integration tests start it on free ports of 127.0.0.1 (ControlPlaneProcess).
# Idempotent: rebuilt only when a hash of its sources, go.mod and go.sum changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/../tern-xds/src/test/go/controlplane"
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
mkdir -p "$tools/bin"

binary="$tools/bin/tern-xds-controlplane"
stamp="$tools/bin/.tern-xds-controlplane.version"
want="$(cd "$src" && cat go.mod go.sum ./*.go | sha256sum | cut -d' ' -f1)"
if [[ -x "$binary" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  exit 0
fi
echo "== Installing tern-xds-controlplane ($src)"
(cd "$src" && GOFLAGS=-buildvcs=false go build -o "$binary.new" .)
mv -f "$binary.new" "$binary"
echo "$want" >"$stamp"
