#!/usr/bin/env bash
# grpc-java 1.79's own interop cases (AbstractInteropTest) on the bridge: GrpcJavaInteropCasesClient
# makes its channel with Grpc.newChannelBuilderForAddress on interop-classpath.sh's class path
# (tern-grpc-java, no grpc-java transport), so every call runs on Tern. Flags as grpc's interop
# clients take them, --test_case=all included; one PASS/FAIL/SKIP line per case. The interop matrix
# runs it as the client "grpc-java-bridge" (.ci/run).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cp="$("$here/interop-classpath.sh")"
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$cp" \
  dev.tern.grpcjava.interop.GrpcJavaInteropCasesClient "$@"
