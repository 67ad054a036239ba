#!/usr/bin/env bash
# Prints the class path of grpc-java's qps tools: io.grpc:grpc-benchmarks and its own dependencies
# only (see tern-benchmarks/grpc-java/pom.xml for why not the interop peer's). Resolved from Maven
# Central on first use, then cached in tern-benchmarks/target until the pom changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pom="$here/../grpc-java/pom.xml"
cache_dir="$here/../target/grpc-java-bench"
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
