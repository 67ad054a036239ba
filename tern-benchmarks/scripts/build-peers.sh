#!/usr/bin/env bash
# Builds bin/bench-compare's native peers from tern-benchmarks/peers/ into the tools cache
# (${TERN_TOOLS_DIR:-~/.cache/tern-tools}/bench-peers) and prints that cache's bin folder:
#   grpc-go-bench-server  grpc-go 1.85.0's own benchmark service (google.golang.org/grpc/benchmark),
#                         pinned by peers/grpc-go/go.mod and go.sum, fetched by `go build`
#   tonic-bench-server    a tonic 0.14.9 server of the same service, pinned by peers/tonic/Cargo.toml
#                         (exact versions) and Cargo.lock, fetched by `cargo build --locked`
#   raw-echo              the raw loopback echo (peers/echo/raw-echo.c, gcc -O2)
#   vertx-bench           Vert.x gRPC 5.0.7's server and qps client of the same service
#                         (`vertx-bench server|client FLAGS`), a launcher of the jar and class path
#                         `mvn package` makes of peers/vertx/pom.xml (every version pinned there;
#                         resolved from Maven Central into the local repository, never installed)
# A peer is rebuilt only when its sources, its pins or its compiler changed (a key of those is
# kept beside each program), so a second run takes no time. A peer that cannot be built (no
# toolchain, no registry, a failed build) is removed from the cache, older builds included, and
# named on standard error with the end of its build log; the others are still built, and the
# script exits 1 (still printing the folder).
# Environment: TERN_TOOLS_DIR moves the cache; CARGO_BUILD_JOBS limits cargo's parallel jobs.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="$here/../peers"
protos="$here/../../tern-interop/src/main/proto/grpc/testing"
cache="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}/bench-peers"
mkdir -p "$cache/bin" "$cache/logs"
failed=0

# key FILES... : a hash of the files' contents and of the compiler line already in $toolchain.
key() {
  { echo "$toolchain"; cat "$@"; } | sha256sum | cut -d' ' -f1
}

# build NAME KEY COMMAND...: runs COMMAND (which writes $cache/bin/NAME) unless NAME was built
# from the same KEY; output to $cache/logs/NAME.log.
build() {
  local name="$1" want="$2"
  shift 2
  local program="$cache/bin/$name" stamp="$cache/bin/.$name.key" log="$cache/logs/$name.log"
  if [[ -x "$program" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    return 0
  fi
  rm -f "$program" "$stamp"
  echo "build-peers: building $name (log: $log)..." >&2
  local start=$SECONDS
  if "$@" >"$log" 2>&1 && [[ -x "$program" ]]; then
    echo "$want" >"$stamp"
    echo "build-peers: built $name in $((SECONDS - start)) s" >&2
  else
    tail -n 15 "$log" >&2
    missing "$name" "its build failed (log: $log)"
  fi
}

# missing NAME WHY: no NAME in the cache (not even an older build), said on standard error.
missing() {
  rm -f "$cache/bin/$1" "$cache/bin/.$1.key"
  echo "build-peers: $1 is not available: $2; bench-compare's rows for it will be missing" >&2
  failed=1
}

grpc_go() (
  cd "$peers/grpc-go" && GOFLAGS="-mod=readonly -buildvcs=false" \
    go build -trimpath -o "$cache/bin/grpc-go-bench-server" .
)

tonic() {
  # The target folder stays in the cache, so a changed source rebuilds only this crate.
  CARGO_TARGET_DIR="$cache/tonic-target" \
    cargo build --release --locked --manifest-path "$peers/tonic/Cargo.toml" \
    && cp "$cache/tonic-target/release/tonic-bench-server" "$cache/bin/"
}

raw_echo() {
  gcc -O2 -std=c11 -Wall -Wextra -Werror -o "$cache/bin/raw-echo" "$peers/echo/raw-echo.c"
}

# The launcher: bench-compare starts `vertx-bench server ...` and `vertx-bench client ...`; exec
# keeps the JVM's PID the one bench-compare started (it samples that process's CPU).
vertx() {
  local out="$cache/vertx-build"
  rm -rf "$out"
  mvn -B -q -Dstyle.color=never -f "$peers/vertx/pom.xml" -Dpeer.out="$out" package || return 1
  local cp="$out/vertx-bench-0.jar:$(cat "$out/classpath.txt")"
  cat >"$cache/bin/vertx-bench.tmp" <<LAUNCHER || return 1
#!/bin/sh
# Vert.x gRPC 5.0.7's benchmark peer, written by tern-benchmarks/scripts/build-peers.sh.
# Usage: vertx-bench server|client FLAGS...
case "\$1" in
  server) main=dev.tern.benchmarks.vertx.VertxBenchServer ;;
  client) main=dev.tern.benchmarks.vertx.VertxBenchClient ;;
  *) echo "usage: vertx-bench server|client FLAGS..." >&2; exit 2 ;;
esac
shift
exec java -cp "$cp" "\$main" "\$@"
LAUNCHER
  chmod +x "$cache/bin/vertx-bench.tmp" && mv "$cache/bin/vertx-bench.tmp" "$cache/bin/vertx-bench"
}

if command -v go >/dev/null; then
  toolchain="$(go version)"
  build grpc-go-bench-server "$(key "$peers"/grpc-go/{go.mod,go.sum,main.go})" grpc_go
else
  missing grpc-go-bench-server "go is not on PATH"
fi

if command -v cargo >/dev/null; then
  toolchain="$(rustc --version) $(cargo --version)"
  build tonic-bench-server "$(key "$peers"/tonic/{Cargo.toml,Cargo.lock,build.rs,src/main.rs} \
    "$protos"/{benchmark_service,messages}.proto)" tonic
else
  missing tonic-bench-server "cargo is not on PATH"
fi

if command -v gcc >/dev/null; then
  toolchain="$(gcc --version | head -n 1)"
  build raw-echo "$(key "$peers/echo/raw-echo.c")" raw_echo
else
  missing raw-echo "gcc is not on PATH"
fi

if command -v java >/dev/null && command -v mvn >/dev/null; then
  toolchain="$(java -version 2>&1 | head -n 1) $(mvn -v 2>/dev/null | head -n 1)"
  build vertx-bench "$(key "$peers/vertx/pom.xml" $(find "$peers/vertx/src" -type f | sort) \
    "$protos/messages.proto")" vertx
else
  missing vertx-bench "java and mvn are needed on PATH"
fi

echo "$cache/bin"
exit "$failed"
