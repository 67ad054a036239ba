#!/usr/bin/env bash
# Fuzzes Tern's parsers with Jazzer (docs/fuzzing.md): each @FuzzTest target in a JVM of its own,
# for a bounded time. In a normal `mvn verify` the same tests only replay their seed inputs.
#
#   tools/fuzz.sh                      every target, FUZZ_SECONDS (default 20) each (CI: 10, FUZZ_FORKS=2)
#   tools/fuzz.sh MessageDeframer 4h   one target (a class name, or a unique part of one), 4 hours
#   tools/fuzz.sh --list               the targets
#
# Jazzer fuzzes one fuzz test per JVM, so every target runs in a JVM of its own: one Maven run over
# the targets' modules, with a fresh fork per test class (each holds exactly one @FuzzTest). A
# finding fails the run and is written as a crash-<sha1> file next to the target's seeds, in
# src/test/resources/<package>/<Class>Inputs/<method>/, where `mvn test` replays it from then on;
# the corpus Jazzer grows is kept in <module>/.cifuzz-corpus/ (not committed) and reused by later
# runs. Offline Maven (-o) unless FUZZ_MAVEN_ONLINE=1; FUZZ_MAVEN_ARGS adds Maven arguments (e.g.
# -Dtern.build.dir=target-jdk25 with JAVA_HOME set to JDK 25).
set -euo pipefail
cd "$(dirname "$0")/.."

# module:Class, one @FuzzTest each.
targets=(
  tern-core:MessageDeframerFuzzTest
  tern-core:Base64CodecFuzzTest
  tern-core:GrpcMessageCodecFuzzTest
  tern-core:GrpcTimeoutCodecFuzzTest
  tern-core:MetadataFuzzTest
  tern-netty:GrpcResponseHeadersFuzzTest
  tern-netty:HpackDecoderFuzzTest
  tern-netty:HuffmanDecoderFuzzTest
  tern-netty:Http2FrameReaderFuzzTest
  tern-netty:Http2ConnectionFuzzTest
  tern-zstd:ZstdCodecFuzzTest
  tern-http3:Http3FrameReaderFuzzTest
)

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${targets[@]}"
  exit 0
fi

duration="${FUZZ_SECONDS:-20}s"
selected=("${targets[@]}")
if [ $# -ge 1 ]; then
  selected=()
  for t in "${targets[@]}"; do
    case "${t#*:}" in *"$1"*) selected+=("$t") ;; esac
  done
  if [ ${#selected[@]} -ne 1 ]; then
    echo "fuzz.sh: '$1' matches ${#selected[@]} targets; one of:" >&2
    printf '  %s\n' "${targets[@]#*:}" >&2
    exit 2
  fi
  duration="${2:-10m}"
fi

offline=(-o)
[ "${FUZZ_MAVEN_ONLINE:-0}" = 1 ] && offline=()

# One Maven run for every selected class, in the modules that hold them (surefire runs each module's
# in turn), one JVM per class.
modules=()
names=()
for t in "${selected[@]}"; do
  module="${t%%:*}"
  [[ " ${modules[*]} " == *" $module "* ]] || modules+=("$module")
  names+=("${t#*:}")
done
list() { local IFS=,; echo "$*"; }

# Coverage feedback from Tern's classes (Jazzer's default: the class directories on the class
# path): the HTTP/2 engine's parsers are Tern's own.
instrument="dev.tern.**"
echo "== Fuzzing $(list "${names[@]}") ($(list "${modules[@]}")), $duration each"
# The netty module's surefire has several executions; default-test is the one with the fuzz tests.
# reuseForks=false: a fresh JVM per test class, as Jazzer fuzzes one test per JVM.
# -Djazzer.hooks=true: Jazzer's instrumentation, off in ordinary test runs
# (src/test/resources/junit-platform.properties); -Djazzer.max_duration: each target's time.
# FUZZ_FORKS: how many targets fuzz side by side (one JVM each; CI uses 2).
JAZZER_FUZZ=1 mvn -B "${offline[@]}" -pl "$(list "${modules[@]}")" -am \
  test-compile surefire:test@default-test \
  -Dtest="$(list "${names[@]}")" -Dsurefire.failIfNoSpecifiedTests=false \
  -DreuseForks=false -DforkCount="${FUZZ_FORKS:-1}" \
  -Djazzer.hooks=true -Djazzer.max_duration="$duration" -Djazzer.instrument="$instrument" \
  -Dspotless.check.skip=true ${FUZZ_MAVEN_ARGS:-}
