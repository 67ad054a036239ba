#!/usr/bin/env bash
# Checks what every bin/ program answers on its command line, as a user would run it: `--help` and
# `-h` exit 0 and print every flag the program takes and an example; an unknown flag exits 2 with
# one line naming it plus "see --help". Then checks the launchers' build step (bin/lib/build.sh)
# with a stand-in `mvn`: a few lines of progress instead of Maven's output, and on failure the end
# of that output and the log's path. Run by .ci/run after `mvn -B verify` (the Java launchers reuse
# that build; run alone, the first of them builds what they need).
# Usage: tools/check-bin.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# Every flag of every program, as its --help must show it.
declare -A flags=(
  [bench-compare]="--bridge --duration --warmup --server-warmup --repeats --jmh-forks --jmh-warmups
    --jmh-iterations --jmh-filter --jmh-otel-filter --quick --skip --reuse --out --work
    --alloc-calls --alloc-warmup-calls --conns-idle --conns-new --systems"
  [chaos-report]="--fault-seconds --workers --out"
  [demo]=""
  [h3-loss]="--loss --duration --warmup --calls --samples --delay-ms"
  [interop-client]="--server_host --server_port --test_case --use_tls --use_test_ca
    --server_host_override --soak_iterations --soak_max_failures
    --soak_per_iteration_max_acceptable_latency_ms --soak_overall_timeout_seconds
    --soak_min_time_ms_between_rpcs --soak_request_size --soak_response_size --soak_num_threads
    --list_test_cases"
  [interop-server]="--port --use_tls --http3"
  [lint-python]="--fix"
  [overload]="--workload --multiples --step-seconds --capacity-seconds --deadline-ms --arrivals
    --max-calls --peers --server-heap --out"
  [qps-client]="--address --target --lb_policy --channels --outstanding_rpcs --client_payload
    --server_payload --warmup_duration --duration --streaming_rpcs --directexecutor --transport
    --save_histogram --heap_per_call"
  [qps-server]="--address --directexecutor --transport --warmup_duration --duration"
  [rolling-restart]="--workers --drain-seconds --out"
  [routeguide-client]="--target --otlp"
  [routeguide-server]="--port --otlp --prometheus-port --cors-origin"
  [soak]="--minutes --sample-seconds --warmup-seconds --rate --workers --peer --server-heap --out"
  [vthread-bench]="--system --calls --sleep_ms --rounds --warmup_rounds"
  [xds-test-client]="--server --stats_port --qps --rpc --metadata --num_channels --rpc_timeout_sec
    --fail_on_failed_rpcs --print_response --secure_mode"
  [xds-test-server]="--port --maintenance_port --server_id --host_name_override --bind_host
    --secure_mode"
)

failures=0
fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for program in bin/*; do
  [[ -f "$program" && -x "$program" ]] || continue
  name="${program#bin/}"
  if [[ ! -v "flags[$name]" ]]; then
    fail "$name: not listed in tools/check-bin.sh; add its flags there"
    continue
  fi
  for help in --help -h; do
    status=0
    "$program" "$help" >"$work/out" 2>"$work/err" </dev/null || status=$?
    if [[ $status -ne 0 ]]; then
      fail "$name $help: exit status $status"; tail -n 5 "$work/err"; continue
    fi
    for flag in ${flags[$name]} Example:; do
      grep -q -e "$flag" "$work/out" || fail "$name $help: does not mention $flag"
    done
  done
  status=0
  "$program" --no-such-flag=1 >"$work/out" 2>"$work/err" </dev/null || status=$?
  # The Java launchers may print build progress first; the program's answer is the last line.
  answer="$(grep -v -e '^  \[' -e "^$name: building" -e "^$name: built" "$work/err" || true)"
  if [[ $status -ne 2 ]]; then
    fail "$name --no-such-flag=1: exit status $status, not 2"
  elif [[ "$(printf '%s\n' "$answer" | wc -l)" -ne 1 ]] \
      || [[ "$answer" != *"--no-such-flag"*"see --help"* ]]; then
    fail "$name --no-such-flag=1: not one line naming the flag and 'see --help': $answer"
  fi
  echo "ok   $name: --help, -h, unknown flag"
done

# The build step, with a stand-in mvn that prints as much as Maven does and then succeeds or fails.
mkdir -p "$work/bin" "$work/root/mod"
cat >"$work/bin/mvn" <<'MVN'
#!/usr/bin/env bash
echo "[INFO] Scanning for projects..."
for i in 1 2; do
  echo "[INFO] ---------------------< dev.tern:m$i >---------------------"
  echo "[INFO] Building Module number $i 0.1.0-SNAPSHOT                [$i/2]"
  for j in $(seq 1 200); do echo "[INFO] compiling file $j of module $i"; done
  echo "[INFO] Building jar: /tmp/m$i/target/m$i-0.1.0-SNAPSHOT.jar"
done
[[ -z "${FAKE_MVN_FAIL:-}" ]] || { echo "[ERROR] COMPILATION ERROR: Foo.java:[1,1] bad"; exit 1; }
echo "[INFO] BUILD SUCCESS"
MVN
chmod +x "$work/bin/mvn"
build() { # prints the build step's standard error; returns its status
  (cd "$work/root" && PATH="$work/bin:$PATH" && source "$OLDPWD/bin/lib/build.sh" \
    && maven_build tool mod)
}
status=0
build 2>"$work/err" >/dev/null || status=$?
expected="tool: building Tern and mod (first run, or sources changed; about a minute)...
  [1/2] Module number 1
  [2/2] Module number 2"
if [[ $status -ne 0 ]] || [[ "$(head -n 3 "$work/err")" != "$expected" ]] \
    || [[ "$(wc -l <"$work/err")" -ne 4 ]] || ! tail -n 1 "$work/err" | grep -q "^tool: built in"; then
  fail "build step: not four lines of progress:"; cat "$work/err"
else
  echo "ok   build step: $(wc -l <"$work/err") lines of progress for $(wc -l \
    <"$work/root/mod/target/launcher-build.log") of Maven's"
fi
status=0
FAKE_MVN_FAIL=1 build 2>"$work/err" >/dev/null || status=$?
if [[ $status -ne 1 ]] || ! grep -q "COMPILATION ERROR: Foo.java" "$work/err" \
    || ! grep -q "all of Maven's output: .*/mod/target/launcher-build.log" "$work/err"; then
  fail "failed build: status $status, or no end of Maven's output and log path:"; cat "$work/err"
else
  echo "ok   failed build: status 1, Maven's last lines and the log's path"
fi

if [[ $failures -gt 0 ]]; then
  echo "check-bin: $failures failed"
  exit 1
fi
echo "check-bin: all passed"
