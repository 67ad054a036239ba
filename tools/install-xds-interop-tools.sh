#!/usr/bin/env bash
# Installs grpc-go's interop test programs, pinned at v1.64.1, from the Go module proxy, into the
# cache the other install scripts fill (${TERN_TOOLS_DIR:-~/.cache/tern-tools}/bin):
# - the xDS interop client and server (google.golang.org/grpc/interop/xds/client and .../server) as
#   grpc-go-xds-interop-client and grpc-go-xds-interop-server. tern-interop's ForeignXdsClientsTest
#   runs the client, with the test control plane of tools/install-xds-tools.sh, against Tern's
#   xds-test-servers; GrpcGoXdsServerTest runs Tern's xds-test-client against the server.
# - the plain interop client and server (google.golang.org/grpc/interop/client and .../server) as
#   grpc-go-interop-client and grpc-go-interop-server: tern-interop's SoakInteropTest runs gRPC's
#   soak cases between them and Tern's, and peers/run-matrix.sh offers them as the grpc-go peer.
# - our own xDS client and server on grpc-go v1.85.0 (tern-interop/src/test/go/xdspeer, pinned in
#   its go.mod and go.sum; later interop programs are Go modules of their own the module proxy here
#   does not serve) as grpc-go185-xds-client and grpc-go185-xds-server: they take the flags the
#   tests give the v1.64.1 xDS programs, and XdsMutualTlsInteropTest runs them as a second grpc-go.
# Idempotent: a program is rebuilt only when it is missing or the pinned version (for ours, a hash
# of the sources, go.mod and go.sum) changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
version="v1.64.1"
mkdir -p "$tools/bin"
work=""
trap '[[ -z "$work" ]] || rm -rf "$work"' EXIT
# package (under google.golang.org/grpc/interop) and the name it is installed as
install() {
  local package="$1" name="$2" stamp="$tools/bin/.$2.version"
  if [[ -x "$tools/bin/$name" && "$(cat "$stamp" 2>/dev/null)" == "$version" ]]; then
    return
  fi
  echo "== Installing grpc-go's $name $version"
  [[ -n "$work" ]] || work="$(mktemp -d)"
  (cd "$work" && GOBIN="$work/bin" GOFLAGS=-buildvcs=false \
    go install "google.golang.org/grpc/interop/$package@$version")
  mv -f "$work/bin/$(basename "$package")" "$tools/bin/$name"
  echo "$version" >"$stamp"
}
install xds/client grpc-go-xds-interop-client
install xds/server grpc-go-xds-interop-server
install client grpc-go-interop-client
install server grpc-go-interop-server

src="$here/../tern-interop/src/test/go/xdspeer"
want="$(cd "$src" && cat go.mod go.sum ./*/*.go | sha256sum | cut -d' ' -f1)"
for program in client server; do
  name="grpc-go185-xds-$program"
  if [[ -x "$tools/bin/$name" && "$(cat "$tools/bin/.$name.version" 2>/dev/null)" == "$want" ]]; then
    continue
  fi
  echo "== Installing $name ($src)"
  (cd "$src" && GOFLAGS=-buildvcs=false go build -o "$tools/bin/$name.new" "./$program")
  mv -f "$tools/bin/$name.new" "$tools/bin/$name"
  echo "$want" >"$tools/bin/.$name.version"
done
