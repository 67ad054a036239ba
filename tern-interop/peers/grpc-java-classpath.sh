#!/usr/bin/env bash
# Prints the class path of grpc-java's interop programs (io.grpc:grpc-interop-testing, resolved
# from Maven Central through grpc-java/pom.xml). Cached in tern-interop/target until the pom
# changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pom="$here/grpc-java/pom.xml"
cache_dir="$here/../target/grpc-java-peer"
cache="$cache_dir/classpath.txt"
stale() { [[ ! -s "$cache" || "$pom" -nt "$cache" ]]; }
if stale; then
  mkdir -p "$cache_dir"
  exec 9>"$cache_dir/.lock"
  flock 9
fi
if stale; then
  # Written to a temporary file first so a failed resolution never leaves a half cache behind.
  mvn -B -q -Dstyle.color=never -f "$pom" dependency:build-classpath \
    -Dmdep.outputFile="$cache.tmp" >&2
  mv "$cache.tmp" "$cache"
fi
cat "$cache"
