#!/usr/bin/env bash
# Shared by the bin/ launchers: builds MODULE (and the modules it needs) if anything it is built
# from changed since the last build, then runs MAIN_CLASS with ARGS on the module's class path.
# Usage: bin/lib/launch.sh MODULE MAIN_CLASS [ARGS...]
# JAVA_OPTS adds JVM options.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
module="$1" main="$2"
shift 2
cd "$root"

# The copied runtime jars mark the last build (by this script or by mvn package/verify).
stamp="$module/target/lib"
if [ ! -d "$stamp" ] || [ -n "$(find pom.xml tern-*/pom.xml tern-*/src "$module/pom.xml" "$module/src" \
    -newer "$stamp" -type f -print -quit 2>/dev/null)" ]; then
  echo "Building $module (first run, or sources changed)..." >&2
  # A changed POM may change dependency versions, and copying the new jars never removes the old
  # ones: start the jar folder afresh so two versions of a library never share the class path.
  if [ -d "$stamp" ] && [ -n "$(find pom.xml tern-*/pom.xml "$module/pom.xml" -newer "$stamp" \
      -print -quit 2>/dev/null)" ]; then
    rm -rf "$stamp"
  fi
  mvn -B -q -pl "$module" -am package -DskipTests -Dspotless.check.skip=true >&2
  touch "$stamp"
fi
read -r -a jvm_opts <<< "${JAVA_OPTS:-}"
exec java "${jvm_opts[@]}" -cp "$module/target/classes:$module/target/lib/*" "$main" "$@"
