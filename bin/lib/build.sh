# Sourced by the bin/ launchers (bash), from the repository root: builds a module and the modules
# it needs when anything it is built from changed since its last build, saying so in a few lines
# while Maven's own output goes to a log file (its end is printed, with the log's path, if the
# build fails).

# ensure_built PROGRAM MODULE: builds MODULE unless its copied runtime jars (MODULE/target/lib,
# the mark of the last build, by a launcher or by mvn package/verify) are newer than every POM and
# source. PROGRAM names the caller in its messages.
ensure_built() {
  local program="$1" module="$2"
  local stamp="$module/target/lib"
  if [[ -d "$stamp" ]] && [[ -z "$(find pom.xml tern-*/pom.xml tern-*/src "$module/pom.xml" \
      "$module/src" -newer "$stamp" -type f -print -quit 2>/dev/null)" ]]; then
    return 0
  fi
  # A changed POM may change dependency versions, and copying the new jars never removes the old
  # ones: start the jar folder afresh so two versions of a library never share the class path.
  if [[ -d "$stamp" ]] && [[ -n "$(find pom.xml tern-*/pom.xml "$module/pom.xml" -newer "$stamp" \
      -print -quit 2>/dev/null)" ]]; then
    rm -rf "$stamp"
  fi
  maven_build "$program" "$module" || return
  touch "$stamp"
}

# maven_build PROGRAM MODULE: `mvn package` of MODULE and the modules it needs, without tests. On
# standard error: one line before, one per module as Maven starts it, one after; Maven's output is
# in MODULE/target/launcher-build.log. Returns Maven's exit status.
maven_build() {
  local -
  set -o pipefail
  local program="$1" module="$2"
  local log="$module/target/launcher-build.log"
  local start=$SECONDS status=0
  mkdir -p "$module/target"
  echo "$program: building Tern and $module (first run, or sources changed; about a minute)..." >&2
  # "[INFO] Building Tern core 0.1.0-SNAPSHOT   [2/9]" -> "  [2/9] Tern core"
  mvn -B -Dstyle.color=never -pl "$module" -am package -DskipTests -Dspotless.check.skip=true \
      2>&1 | tee "$log" \
      | sed -nu 's/^\[INFO\] Building \(.*[^ ]\) [0-9][^ ]* *\(\[[0-9]*\/[0-9]*\]\)\{0,1\}$/  \2 \1/p' \
      >&2 || status=$?
  if [[ $status -ne 0 ]]; then
    echo "$program: the build failed (exit status $status); the end of Maven's output:" >&2
    tail -n 30 "$log" >&2
    echo "$program: all of Maven's output: $PWD/$log" >&2
    return "$status"
  fi
  echo "$program: built in $((SECONDS - start)) s (Maven's output: $log)" >&2
}
