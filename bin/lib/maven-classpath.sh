#!/usr/bin/env bash
# Prints the class path of a standalone class-path-only pom, resolved from Maven Central on first
# use and cached until the pom changes: maven-classpath.sh POM CACHE_FILE. Concurrent callers wait
# for one resolution where flock(1) is there (util-linux; not on macOS, where each caller resolves
# on its own); a failed one never leaves a half-written cache behind.
set -euo pipefail
pom="$1"
cache="$2"
cache_dir="$(dirname "$cache")"
stale() { [[ ! -s "$cache" || "$pom" -nt "$cache" ]]; }
if stale; then
  mkdir -p "$cache_dir"
  if command -v flock >/dev/null; then
    exec 9>"$cache_dir/.lock"
    flock 9
  fi
fi
if stale; then
  # Each caller writes its own file and renames it into place, so callers without the lock never
  # read or write a file another is writing.
  tmp="$cache.tmp.$$"
  trap 'rm -f "$tmp"' EXIT
  mvn -B -q -Dstyle.color=never -f "$pom" dependency:build-classpath \
    -Dmdep.outputFile="$tmp" >&2
  mv "$tmp" "$cache"
fi
cat "$cache"
