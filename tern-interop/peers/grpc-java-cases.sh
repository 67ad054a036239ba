#!/usr/bin/env bash
# Runs several of grpc-java 1.79's interop cases in one JVM (grpc-java/GrpcJavaCases.java, on
# grpc-java's class path), where grpc-java-client.sh runs one case a JVM:
#   grpc-java-cases.sh --server_host=H --server_port=N --test_case=NAME[,NAME...] \
#     --use_tls=true|false --use_test_ca=true|false --server_host_override=NAME
# One line per case, PASS <case> or FAIL <case>: <why>; exit status 1 if a case failed. It is
# grpc-java-client.sh with another program: the same flags, JVM options and relaxed soak bounds.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
GRPC_JAVA_CLIENT_MAIN="$here/grpc-java/GrpcJavaCases.java" exec "$here/grpc-java-client.sh" "$@"
