#!/usr/bin/env bash
# grpc-java 1.79's own interop service (TestServiceImpl and its interceptors) served through the
# io.grpc API on interop-classpath.sh's class path, so a Tern server (GrpcJavaInteropServer):
#   interop-server.sh --port=N --use_tls=true|false
# TLS uses grpc-java's test certificate (server1.pem, for foo.test.google.fr). Runs until killed.
# The interop matrix runs it as the server "grpc-java-bridge" (.ci/run); grpc-java's own interop
# client against it alone:
#   tern-interop/peers/run-matrix.sh --server grpc-java-bridge=$PWD/tern-grpc-java/interop-server.sh \
#     --pairs grpc-java:grpc-java-bridge
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cp="$("$here/interop-classpath.sh")"
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$cp" \
  dev.tern.grpcjava.interop.GrpcJavaInteropServer "$@"
