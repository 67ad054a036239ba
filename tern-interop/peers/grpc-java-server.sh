#!/usr/bin/env bash
# Runs grpc-java 1.79's interop server: grpc-java-server.sh --port=N --use_tls=true|false
# (TLS uses server1.pem/server1.key from grpc-testing on its own class path.)
# It binds the wildcard address (its CLI cannot choose); the matrix only connects via 127.0.0.1.
# GRPC_JAVA_OPTS replaces the JVM options (default: C1 only, serial GC: quick start-up matters more
# than peak speed for interop runs on a small machine).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cp="$("$here/grpc-java-classpath.sh")"
read -r -a jvm_opts <<< "${GRPC_JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC}"
exec java "${jvm_opts[@]}" -cp "$cp" \
  io.grpc.testing.integration.TestServiceServer "$@"
