#!/usr/bin/env bash
# Prints the class path of grpc-java's interop programs (io.grpc:grpc-interop-testing, resolved
# from Maven Central through grpc-java/pom.xml). Cached in tern-interop/target until the pom
# changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/../../bin/lib/maven-classpath.sh" "$here/grpc-java/pom.xml" \
  "$here/../target/grpc-java-peer/classpath.txt"
