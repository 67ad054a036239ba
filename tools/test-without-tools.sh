#!/usr/bin/env bash
# Runs the tests that use an optional tool (dnsmasq, grpcurl, h2spec, the xDS control plane, the
# Collector, Chromium, Toxiproxy, ...) as on a machine without any: every tool hidden
# (TERN_TOOLS_HIDDEN=true, tern-test-tools' ExternalTool) and CI unset. Each of them must pass or
# skip with a message saying what to install, never fail or error, so that the README's
# `mvn -B verify` passes on a new machine; CI runs this first (.ci/run).
#
# The test classes are found, not listed, so a new one is covered the day it is written: within
# each module's src/test/java, the sources that name a harness of tern-test-tools (ExternalTool,
# Dnsmasq, Toxiproxy, OtelCollector, PrometheusServer, ProxyPy, XdsControlPlane), then those that name one of the
# classes found, and so on (XdsEndToEndTest names XdsMesh, which names ControlPlaneProcess, which names
# ExternalTool). Of those, the ones surefire runs (*Test.java) run, in the modules that hold them and
# what those modules need, the classes tagged external-check included (-Dtern.tests.excludedGroups=),
# which `mvn -B verify` leaves out but -Pexternal-checks runs (a class whose @BeforeAll skips counts
# no test).
# Usage: tools/test-without-tools.sh [--list] [--external-check-only] [Maven flags, e.g. -o]
#   --list                 prints the test classes and exits.
#   --external-check-only  only the classes tagged external-check: for a run after a `mvn -B verify`
#                          with the tools hidden (CI's JDK 25 pass), which ran the others already;
#   --also-modules A,B     with --external-check-only, every such class of these modules too (those
#                          that `mvn -B verify` run left out).
set -euo pipefail
cd "$(dirname "$0")/.."

list=false
external_only=false
also_modules=,
while [ $# -gt 0 ]; do
  case $1 in
    --list) list=true ;;
    --external-check-only) external_only=true ;;
    --also-modules)
      also_modules=",$2,"
      shift
      ;;
    *) break ;;
  esac
  shift
done

harnesses='ExternalTool|Dnsmasq|Toxiproxy|OtelCollector|PrometheusServer|ProxyPy|XdsControlPlane'
modules=()
tests=()
for dir in */src/test/java; do
  names=$harnesses
  files=()
  while :; do
    mapfile -t found < <(grep -rlwE --include='*.java' "$names" "$dir" | sort)
    [ ${#found[@]} -eq ${#files[@]} ] && break
    files=("${found[@]}")
    names="$harnesses|$(printf '%s\n' "${files[@]}" | sed 's|.*/||; s|\.java$||' | paste -sd'|')"
  done
  selected=()
  for file in "${files[@]}"; do
    if $external_only && [[ $also_modules != *",${dir%%/*},"* ]] &&
      ! grep -q '@Tag("external-check")' "$file"; then
      continue
    fi
    if [[ $file == *Test.java ]]; then
      selected+=("${file#"$dir"/}")
    fi
  done
  if [ ${#selected[@]} -gt 0 ]; then
    modules+=("${dir%%/*}")
    tests+=("${selected[@]}")
  fi
done

if $list; then
  printf '%s\n' "${tests[@]}"
  exit 0
fi
echo "test-without-tools: ${#tests[@]} test classes in ${modules[*]}"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
env -u CI TERN_TOOLS_HIDDEN=true mvn -B "$@" test -Dtern.tests.excludedGroups= \
  -pl "$(IFS=,; echo "${modules[*]}")" -am \
  -Dtest="$(IFS=,; echo "${tests[*]}")" -Dsurefire.failIfNoSpecifiedTests=false \
  >"$log" 2>&1 || status=$?

# The per-module totals surefire prints, summed: the run must pass, and the hidden tools must have
# skipped tests (none skipped means the tools were not hidden, or no test asked for one).
totals=$(grep -E '^\[(INFO|WARNING|ERROR)\] Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+, Skipped: [0-9]+$' \
  "$log" | awk -F'[:,] *' '{run += $2; failed += $4 + $6; skipped += $8}
    END {printf "%d %d %d", run, failed, skipped}')
read -r run failed skipped <<<"$totals"
echo "test-without-tools: $run tests, $failed failed or errors, $skipped skipped"
if [ "$status" -ne 0 ] || [ "$failed" -ne 0 ]; then
  grep -E '<<< (FAILURE|ERROR)|^\[ERROR\]' "$log" | head -n 60 >&2
  echo "test-without-tools: a test that needs a tool failed instead of skipping (mvn exit $status)" >&2
  exit 1
fi
if [ "$skipped" -eq 0 ]; then
  echo "test-without-tools: no test skipped; were the tools hidden?" >&2
  exit 1
fi
