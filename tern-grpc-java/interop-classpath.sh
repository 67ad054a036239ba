#!/usr/bin/env bash
# Prints the class path of tern-grpc-java's interop programs (interop-client.sh, interop-server.sh):
# tern-grpc-java's test classes and its test class path without grpc-netty-shaded (Tern's side
# first: tern-grpc-java, Tern's Netty 4.2, protobuf-java 4), then what grpc-java's interop code
# needs (JUnit 4, Truth, Guava, grpc-testing, ...) from grpc-java's interop class path, without
# its transports (grpc-netty, grpc-netty-shaded, grpc-okhttp, grpc-alts) and their Netty 4.1. So a
# program on it that builds channels and servers through io.grpc gets Tern's. Builds the test
# classes (offline, quietly) when missing; caches tern-grpc-java's class path until its pom changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$here/.."
if [[ ! -d "$here/target/test-classes/dev/tern/grpcjava/interop" ]]; then
  (cd "$root" && mvn -B -q -o -pl tern-grpc-java -am -DskipTests verify >&2)
fi
cache="$here/target/interop-client"
mkdir -p "$cache"
if [[ ! -s "$cache/bridge-cp.txt" || "$here/pom.xml" -nt "$cache/bridge-cp.txt" ]]; then
  # Within the reactor (-am, after test-compile) so that Tern's modules come from this tree's
  # target folders, never from a local repository (where they may be stale, or absent, as
  # tern-zstd and tern-test-tools are: neither is installed by the build). Each module writes the
  # file in turn; tern-grpc-java, last in the reactor's order, writes it last.
  (cd "$root" && mvn -B -q -o -pl tern-grpc-java -am -DskipTests test-compile \
    dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cache/bridge-cp.txt" >&2)
fi
bridge="$(tr ':' '\n' <"$cache/bridge-cp.txt" | grep -v '/io/grpc/grpc-netty-shaded/' | paste -sd:)"
peer="$("$root/tern-interop/peers/grpc-java-classpath.sh" | tr ':' '\n' |
  grep -v -E '/io/grpc/grpc-(netty|netty-shaded|okhttp|alts)/|/io/netty/' | paste -sd:)"
echo "$here/target/test-classes:$here/target/classes:$bridge:$peer"
