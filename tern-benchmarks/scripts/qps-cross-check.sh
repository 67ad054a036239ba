#!/usr/bin/env bash
# Checks that the qps tools interoperate with grpc-java's (same proto, same flags): grpc-java's
# AsyncClient drives Tern's QpsServer, and Tern's QpsClient drives grpc-java's AsyncServer, each for
# a short run on loopback. Fails unless both print the summary block with a positive QPS.
# Usage: tern-benchmarks/scripts/qps-cross-check.sh   (after the tern-benchmarks module is built)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
tern_cp="tern-benchmarks/target/classes:tern-benchmarks/target/lib/*"
grpc_cp="$(tern-benchmarks/scripts/grpc-java-classpath.sh)"
flags=(--channels=2 --outstanding_rpcs=4 --duration=3 --warmup_duration=1)
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() {
  for _ in $(seq 1 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1 # polling a port that is not open yet; nothing to wait on instead
  done
  echo "qps-cross-check: nothing listened on port $1" >&2
  return 1
}
check() { # name, output
  local qps
  qps="$(printf '%s\n' "$2" | sed -n 's/^QPS: *\([0-9]*\)$/\1/p')"
  if [ "$(printf '%s\n' "$2" | grep -c 'Latency (in micros):')" -ne 6 ] || [ -z "$qps" ] || [ "$qps" -le 0 ]; then
    echo "FAIL $1"; printf '%s\n' "$2" | tail -n 15; return 1
  fi
  echo "PASS $1: $qps QPS"
}

port="$(free_port)"
java -cp "$tern_cp" dev.tern.benchmarks.qps.QpsServer --address="127.0.0.1:$port" >/dev/null 2>&1 &
pids+=($!)
wait_port "$port"
out="$(java -cp "$grpc_cp" io.grpc.benchmarks.qps.AsyncClient --address="127.0.0.1:$port" \
  --transport=netty_nio "${flags[@]}" 2>&1)" || true
check "grpc-java AsyncClient -> Tern QpsServer" "$out"

port="$(free_port)"
java -cp "$grpc_cp" io.grpc.benchmarks.qps.AsyncServer --address="127.0.0.1:$port" \
  --transport=netty_nio >/dev/null 2>&1 &
pids+=($!)
wait_port "$port"
out="$(java -cp "$tern_cp" dev.tern.benchmarks.qps.QpsClient --address="127.0.0.1:$port" "${flags[@]}" 2>&1)" || true
check "Tern QpsClient -> grpc-java AsyncServer" "$out"
