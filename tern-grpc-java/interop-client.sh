#!/usr/bin/env bash
# grpc-java 1.79's own interop cases (AbstractInteropTest) on the bridge: GrpcJavaInteropCasesClient
# makes its channel with Grpc.newChannelBuilderForAddress, and the class path has tern-grpc-java and
# no grpc-java transport (grpc-netty, grpc-netty-shaded, grpc-okhttp and Netty 4.1 are left out of
# grpc-java's interop class path), so every call runs on Tern. Flags as grpc's interop clients
# take them, --test_case=all included; one PASS/FAIL/SKIP line per case. The interop matrix runs it
# as the client "grpc-java-bridge" (.ci/run). Needs tern-grpc-java's test classes, built here
# (offline, quietly) when missing.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/.."
main=dev.tern.grpcjava.interop.GrpcJavaInteropCasesClient
# interop-server.sh runs the server on the same class path.
if [[ "${1:-}" == --main=* ]]; then
  main="${1#--main=}"
  shift
fi
if [[ ! -f "$here/target/test-classes/${main//.//}.class" ]]; then
  (cd "$root" && mvn -B -q -o -pl tern-grpc-java -am -DskipTests verify >&2)
fi
cache="$here/target/interop-client"
mkdir -p "$cache"
if [[ ! -s "$cache/bridge-cp.txt" || "$here/pom.xml" -nt "$cache/bridge-cp.txt" ]]; then
  (cd "$root" && mvn -B -q -o -pl tern-grpc-java dependency:build-classpath \
    -Dmdep.includeScope=test -Dmdep.outputFile="$cache/bridge-cp.txt" >&2)
fi
# Tern's side first (tern-grpc-java, Tern's Netty 4.2, protobuf-java 4), grpc-netty-shaded out.
bridge="$(tr ':' '\n' <"$cache/bridge-cp.txt" | grep -v '/io/grpc/grpc-netty-shaded/' | paste -sd:)"
# Then what grpc-java's interop cases need (JUnit 4, Truth, Guava, grpc-testing, ...), without its
# transports and their Netty.
peer="$("$root/tern-interop/peers/grpc-java-classpath.sh" | tr ':' '\n' |
  grep -v -E '/io/grpc/grpc-(netty|netty-shaded|okhttp|alts)/|/io/netty/' | paste -sd:)"
cp="$here/target/test-classes:$here/target/classes:$bridge:$peer"
exec java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "$cp" "$main" "$@"
