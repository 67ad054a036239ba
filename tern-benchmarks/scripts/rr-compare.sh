#!/usr/bin/env bash
# Tern's qps client beside grpc-java 1.79's, both balancing round_robin over the same three Tern qps
# servers on 127.0.0.2, 127.0.0.3 and 127.0.0.4 (ports chosen by the system; started once, so only
# the client side differs). Clients alternate; prints QPS, p50 and p99 medians per system and the
# Tern/grpc-java ratio. Driver: rr_compare.py; server and client logs and results.json go to
# tern-benchmarks/<build folder>/rr.
#   tern-benchmarks/scripts/rr-compare.sh [--warmup=S] [--duration=S] [--repeats=N]
#                                         [--channels=N] [--outstanding=N]
#   defaults: 10 s warm-up, 10 s measured, 3 runs per system, 4 channels x 10 calls in flight.
# Needs java 17, python3 and Linux (all of 127.0.0.0/8 is loopback there). Builds tern-benchmarks
# first if anything it is built from changed, as bin/bench-compare does. TERN_BUILD_DIR names the
# build folder (mvn's -Dtern.build.dir; default target).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
scripts="tern-benchmarks/scripts"

for arg in "$@"; do
  if [[ "$arg" == "-h" || "$arg" == "--help" ]]; then
    exec python3 "$scripts/rr_compare.py" --help
  fi
done

build_dir="${TERN_BUILD_DIR:-target}"
stamp="tern-benchmarks/$build_dir/lib"
if [[ ! -d "$stamp" ]] || [[ -n "$(find pom.xml tern-*/pom.xml tern-*/src -newer "$stamp" \
    -type f -print -quit 2>/dev/null)" ]]; then
  echo "rr-compare: building tern-benchmarks into $build_dir..." >&2
  mvn -B -q -pl tern-benchmarks -am package -DskipTests -Dspotless.check.skip=true \
    -Dtern.build.dir="$build_dir" >&2
  touch "$stamp"
fi
export TERN_CP="$root/tern-benchmarks/$build_dir/classes:$root/tern-benchmarks/$build_dir/lib/*"

# The driver stops every server and client it started (each its own process group) on exit, error
# or signal; this trap forwards an interrupt to it and waits, so nothing outlives the script.
python3 "$scripts/rr_compare.py" --work="tern-benchmarks/$build_dir/rr" "$@" &
driver=$!
trap 'kill -TERM "$driver" 2>/dev/null; wait "$driver"; exit 130' INT TERM HUP
wait "$driver"
