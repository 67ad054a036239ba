#!/usr/bin/env bash
# Shared by the bin/ launchers: builds MODULE (and the modules it needs) if anything it is built
# from changed since the last build (bin/lib/build.sh, a few lines of progress), then runs
# MAIN_CLASS with ARGS on the module's class path.
# Usage: bin/lib/launch.sh MODULE MAIN_CLASS [ARGS...]
# JAVA_OPTS adds JVM options; TERN_PROGRAM names the program in the build's messages.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
module="$1" main="$2"
shift 2
cd "$root"
# shellcheck source=bin/lib/build.sh
source bin/lib/build.sh
ensure_built "${TERN_PROGRAM:-launch.sh}" "$module"
read -r -a jvm_opts <<< "${JAVA_OPTS:-}"
exec java "${jvm_opts[@]}" -cp "$module/target/classes:$module/target/lib/*" "$main" "$@"
