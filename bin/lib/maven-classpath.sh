#!/usr/bin/env bash
# Prints the class path of a standalone class-path-only pom, resolved from Maven Central on first
# use and cached until the pom changes: maven-classpath.sh POM CACHE_FILE. Concurrent callers wait
# for one resolution; a failed one never leaves a half-written cache behind.
set -euo pipefail
pom="$1"
cache="$2"
cache_dir="$(dirname "$cache")"
stale() { [[ ! -s "$cache" || "$pom" -nt "$cache" ]]; }
if stale; then
  mkdir -p "$cache_dir"
  exec 9>"$cache_dir/.lock"
  flock 9
fi
if stale; then
  mvn -B -q -Dstyle.color=never -f "$pom" dependency:build-classpath \
    -Dmdep.outputFile="$cache.tmp" >&2
  mv "$cache.tmp" "$cache"
fi
cat "$cache"
