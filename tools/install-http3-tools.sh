#!/usr/bin/env bash
# Installs the HTTP/3 peers tern-http3's and tern-interop's tests run against Tern (issue 50), into
# the tools cache (${TERN_TOOLS_DIR:-~/.cache/tern-tools}):
# - a Python virtualenv with aioquic (QUIC, TLS 1.3, HTTP/3 and QPACK by pylsqpack, none of it
#   Tern's), pinned with every dependency in tern-http3/src/test/python/requirements.txt, in
#   http3-venv. The gRPC client and server on it are in that folder too. The tests find the
#   virtualenv there (dev.tern.testtools.ExternalTool.requireHttp3Python).
# - tern-h3-peer, a Go program of our own (tern-http3/src/test/go/h3peer): connect-go speaking the
#   gRPC protocol over quic-go's HTTP/3 client and server, pinned in its go.mod and go.sum, built
#   into bin (Go's module and build caches stay in their default places); needs Go.
# Idempotent: nothing is reinstalled while the requirements are unchanged, and the Go peer is
# rebuilt only when a hash of its sources, go.mod and go.sum changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
requirements="$here/../tern-http3/src/test/python/requirements.txt"
venv="$tools/http3-venv"
stamp="$venv/.requirements-installed"
if [[ ! -f "$stamp" ]] || ! cmp -s "$requirements" "$stamp"; then
  echo "== Installing aioquic into $venv"
  mkdir -p "$tools"
  [[ -x "$venv/bin/python" ]] || "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$stamp"
fi

src="$here/../tern-http3/src/test/go/h3peer"
mkdir -p "$tools/bin"
binary="$tools/bin/tern-h3-peer"
peer_stamp="$tools/bin/.tern-h3-peer.version"
want="$(cd "$src" && cat go.mod go.sum ./*.go | sha256sum | cut -d' ' -f1)"
if [[ -x "$binary" && -f "$peer_stamp" && "$(cat "$peer_stamp")" == "$want" ]]; then
  exit 0
fi
echo "== Installing tern-h3-peer ($src)"
(cd "$src" && GOFLAGS=-buildvcs=false go build -o "$binary.new" .)
mv -f "$binary.new" "$binary"
echo "$want" >"$peer_stamp"
