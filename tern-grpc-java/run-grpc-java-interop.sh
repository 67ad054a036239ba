#!/usr/bin/env bash
# Runs grpc-java 1.79's own interop client (tern-interop/peers/grpc-java-client.sh: grpc-java on
# grpc-netty, its own transport; its insecure and TLS paths build NettyChannelBuilder directly, so
# the client cannot be moved onto Tern without changing its code) against grpc-java's interop
# service served through tern-grpc-java (GrpcJavaInteropServer: io.grpc API only, a Tern server
# underneath), one case per run, and prints PASS or FAIL per case. Needs the module's test classes:
#   mvn -B -o -pl tern-grpc-java -am -DskipTests verify   (once), then
#   tern-grpc-java/run-grpc-java-interop.sh [case...]
# The known failures of grpc-java's own interop server (tern-interop/peers/known-limitations.txt)
# are the same here: its TestServiceImpl never reads expect_compressed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/.."
cases=("$@")
if [[ ${#cases[@]} -eq 0 ]]; then
  cases=(empty_unary large_unary client_streaming server_streaming ping_pong empty_stream
    cancel_after_begin cancel_after_first_response timeout_on_sleeping_server custom_metadata
    status_code_and_message special_status_message unimplemented_method unimplemented_service
    client_compressed_unary server_compressed_unary client_compressed_streaming
    server_compressed_streaming very_large_request)
fi
work="$(mktemp -d)"
(cd "$root" && mvn -B -o -q -pl tern-grpc-java dependency:build-classpath \
  -Dmdep.includeScope=test -Dmdep.outputFile="$work/cp.txt" >&2)
cp="$here/target/test-classes:$here/target/classes:$(cat "$work/cp.txt")"
mkfifo "$work/stdin"
java -cp "$cp" dev.tern.grpcjava.interop.GrpcJavaInteropServer 0 <"$work/stdin" >"$work/server.log" 2>&1 &
server_pid=$!
exec 3>"$work/stdin"
stop() { exec 3>&-; wait "$server_pid" || true; rm -rf "$work"; }
trap stop EXIT
for _ in $(seq 1 300); do
  grep -q '^port ' "$work/server.log" && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 0.1
done
port="$(sed -n 's/^port //p' "$work/server.log")"
grep '^server ' "$work/server.log"
passed=0
for c in "${cases[@]}"; do
  if "$root/tern-interop/peers/grpc-java-client.sh" --server_host=127.0.0.1 --server_port="$port" \
    --use_tls=false --test_case="$c" >"$work/$c.log" 2>&1; then
    echo "PASS $c"
    passed=$((passed + 1))
  else
    echo "FAIL $c: $(grep -m1 -E 'Exception|Error' "$work/$c.log" || tail -1 "$work/$c.log")"
  fi
done
echo "$passed of ${#cases[@]} passed"
