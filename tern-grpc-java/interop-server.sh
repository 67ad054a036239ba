#!/usr/bin/env bash
# grpc-java 1.79's own interop service (TestServiceImpl and its interceptors) served through the
# io.grpc API with tern-grpc-java on the class path, so a Tern server (GrpcJavaInteropServer):
#   interop-server.sh --port=N --use_tls=true|false
# TLS uses grpc-java's test certificate (server1.pem, for foo.test.google.fr). The interop matrix
# runs it as the server "grpc-java-bridge" (.ci/run); it runs until killed. It shares
# interop-client.sh's class path (grpc-java's interop class path without its transports).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/interop-client.sh" --main=dev.tern.grpcjava.interop.GrpcJavaInteropServer "$@"
