#!/usr/bin/env bash
# Proves README.md's "Quick start: your own project" as it stands: a brand-new project made of the
# README's own blocks builds against this checkout and its server answers its client.
#
#   tools/check-quickstart.sh        # from anywhere in the checkout; CI runs it from .ci/run
#
# The README marks each block the check uses with an HTML comment on the line before its fence:
#   <!-- quickstart-file: PATH -->   the block becomes PATH in the new project
#   <!-- quickstart-step: install --> commands run in this checkout (installs Tern)
#   <!-- quickstart-step: build -->   commands run in the new project
#   <!-- quickstart-step: run -->     two lines: the server (ending in '&') and the client
# Every command is taken verbatim, with two substitutions: `mvn` gets a temporary local repository
# (below), and the README's port 50051 becomes 0 for the server (which prints the port it bound)
# and that bound port for the client. The client must print "Hello, Ada!".
# In this checkout (the install step), `mvn` also reuses what is already compiled and leaves out
# the checks of the sources (format, package cycles, docs), which do not change what is installed:
# CI runs this right after `mvn -B verify` built and checked the same tree. Without that, the
# compiler saw every dependency in the temporary repository as changed and compiled every module
# again, main and test classes: 3 min 18 s of install on a 2-core machine, against 21 s.
#
# Tern is installed into a TEMPORARY local Maven repository, never into ~/.m2/repository, where a
# stale dev.tern snapshot would later shadow what another build makes. Everything else comes
# through a settings file that lists ~/.m2/repository (QUICKSTART_WARM_REPO overrides it) as a
# file:// repository before Maven Central: offline on a warm cache, downloading on a cold one.
# The temporary directory and the server process are removed and stopped on every exit.
# QUICKSTART_README=path checks another copy of the README (to see the check fail on a broken one).
# Timing, warm cache, an idle 2-core machine, after a build of the checkout: under a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
readme=${QUICKSTART_README:-$checkout/README.md}

fail() {
  echo "check-quickstart: FAILED: $*" >&2
  exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/tern-quickstart.XXXXXX")
server_pid=
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    # Waits for the JVM's shutdown hook (server.shutdown) for at most 10 s, then forces it.
    if ! timeout 10 tail --pid="$server_pid" -f /dev/null; then
      kill -9 "$server_pid" 2>/dev/null || true
    fi
  fi
  exec 3<&- 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Prints the lines of the fenced block that follows the marker comment $1 in the README.
block() {
  awk -v marker="<!-- $1 -->" '
    $0 == marker { found = 1; next }
    found == 1 && /^```/ { found = 2; next }
    found == 2 && /^```/ { exit }
    found == 2 { print }
  ' "$readme"
}

project=$work/hello-tern
files=$(sed -n 's/^<!-- quickstart-file: \(.*\) -->$/\1/p' "$readme")
[ -n "$files" ] || fail "README.md has no '<!-- quickstart-file: ... -->' blocks"
for file in $files; do
  mkdir -p "$(dirname "$project/$file")"
  block "quickstart-file: $file" >"$project/$file"
  [ -s "$project/$file" ] || fail "README.md's block for $file is empty or has no fence after its marker"
done
for step in install build run; do
  [ -n "$(block "quickstart-step: $step")" ] || fail "README.md has no '<!-- quickstart-step: $step -->' block"
done

warm_repo=${QUICKSTART_WARM_REPO:-$HOME/.m2/repository}
# The warm cache is listed once for dependencies and once for plugins, in the same words.
warm_cache() {
  echo "<$1><id>warm-cache</id><url>file://$warm_repo</url><snapshots><enabled>false</enabled></snapshots></$1>"
}
cat >"$work/settings.xml" <<EOF
<settings>
  <profiles>
    <profile>
      <id>warm-cache</id>
      <repositories>$(warm_cache repository)</repositories>
      <pluginRepositories>$(warm_cache pluginRepository)</pluginRepositories>
    </profile>
  </profiles>
  <activeProfiles>
    <activeProfile>warm-cache</activeProfile>
  </activeProfiles>
</settings>
EOF
# The README's `mvn` lines call this function instead of Maven directly.
mvn() {
  local reuse=()
  if [ "$PWD" = "$checkout" ]; then
    # Classes stale by their sources' times are compiled, not those whose dependencies moved.
    reuse=(-Dmaven.compiler.useIncrementalCompilation=false -Dspotless.check.skip=true
      -Dexec.skip=true)
  fi
  command mvn -s "$work/settings.xml" -Dmaven.repo.local="$work/repository" "${reuse[@]}" "$@"
}

# Runs each line of a step's block in directory $2; output goes to $work/$1.log, shown on failure.
run_step() {
  local step=$1 dir=$2 line
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    echo "== quickstart $step: $line"
    if ! (cd "$dir" && eval "$line") >>"$work/$step.log" 2>&1; then
      tail -n 40 "$work/$step.log" >&2
      fail "'$line' (step $step) exited with an error"
    fi
  done < <(block "quickstart-step: $step")
}

start=$SECONDS
run_step install "$checkout"
install_seconds=$((SECONDS - start))
run_step build "$project"

mapfile -t run_lines < <(block "quickstart-step: run" | grep -v '^$')
[ ${#run_lines[@]} -eq 2 ] || fail "the run block should have two lines (server, client), has ${#run_lines[@]}"
server_line=${run_lines[0]}
client_line=${run_lines[1]}
[[ $server_line == *' 50051 &' ]] || fail "the run block's server line should end in ' 50051 &': $server_line"
[[ $client_line == *:50051* ]] || fail "the run block's client line should target port 50051: $client_line"
server_cmd=${server_line% 50051 &}' 0'

echo "== quickstart run: $server_line (port 0)"
mkfifo "$work/server.out"
(cd "$project" && eval "exec $server_cmd") >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
exec 3<"$work/server.out"
if ! IFS= read -r -t 60 first <&3; then
  cat "$work/server.err" >&2
  fail "the server stopped, or printed no line within 60 s (its error output is above)"
fi
port=$(sed -n 's/^Listening on port \([0-9][0-9]*\)$/\1/p' <<<"$first")
[ -n "$port" ] || fail "the server's first line should be 'Listening on port N', was: $first"

client_cmd=${client_line//:50051/:$port}
echo "== quickstart run: $client_cmd"
if ! output=$(cd "$project" && eval "$client_cmd" 2>"$work/client.err"); then
  cat "$work/client.err" >&2
  fail "the client exited with an error"
fi
[ "$output" = "Hello, Ada!" ] || fail "the client printed '$output', expected 'Hello, Ada!'"
echo "== quickstart: the client printed '$output' (install ${install_seconds}s, total $((SECONDS - start))s)"
