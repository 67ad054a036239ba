#!/usr/bin/env bash
# Runs several of grpc-java 1.79's interop cases in one JVM (grpc-java/GrpcJavaCases.java, on
# grpc-java's class path), where grpc-java-client.sh runs one case a JVM:
#   grpc-java-cases.sh --server_host=H --server_port=N --test_case=NAME[,NAME...] \
#     --use_tls=true|false --use_test_ca=true|false --server_host_override=NAME
# One line per case, PASS <case> or FAIL <case>: <why>; exit status 1 if a case failed. The flags
# and the JVM options are grpc-java-client.sh's (GRPC_JAVA_OPTS replaces the JVM options), the
# soak latency bounds relaxed the same way.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cp="$("$here/grpc-java-classpath.sh")"
read -r -a jvm_opts <<< "${GRPC_JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}"
exec java "${jvm_opts[@]}" -cp "$cp" "$here/grpc-java/GrpcJavaCases.java" \
  --soak_per_iteration_max_acceptable_latency_ms=30000 --soak_overall_timeout_seconds=120 "$@"
