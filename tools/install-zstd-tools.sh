#!/usr/bin/env bash
# Builds tern-zstd's Go peer, tern-zstd-peer: a Go program of our own
# (tern-zstd/src/test/go/zstdpeer) on grpc-go with the "zstd" encoding registered in grpc-go's
# encoding registry from github.com/klauspost/compress/zstd, both pinned in its go.mod and go.sum,
# into the cache the other install scripts fill (${TERN_TOOLS_DIR:-~/.cache/tern-tools}/bin; Go's
# module and build caches stay in their default places). tern-zstd's GoZstdPeerTest runs it as a
# server and as a client against Tern, on free ports of 127.0.0.1.
# Idempotent: rebuilt only when a hash of its sources, go.mod and go.sum changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/../tern-zstd/src/test/go/zstdpeer"
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
mkdir -p "$tools/bin"

binary="$tools/bin/tern-zstd-peer"
stamp="$tools/bin/.tern-zstd-peer.version"
want="$(cd "$src" && cat go.mod go.sum ./*.go | sha256sum | cut -d' ' -f1)"
if [[ -x "$binary" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  exit 0
fi
echo "== Installing tern-zstd-peer ($src)"
(cd "$src" && GOFLAGS=-buildvcs=false go build -o "$binary.new" .)
mv -f "$binary.new" "$binary"
echo "$want" >"$stamp"
