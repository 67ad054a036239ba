#!/usr/bin/env bash
# Prints the class path of grpc-java's qps tools: io.grpc:grpc-benchmarks and its own dependencies
# only (see tern-benchmarks/grpc-java/pom.xml for why not the interop peer's). Resolved from Maven
# Central on first use, then cached in tern-benchmarks/target until the pom changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/../../bin/lib/maven-classpath.sh" "$here/../grpc-java/pom.xml" \
  "$here/../target/grpc-java-bench/classpath.txt"
