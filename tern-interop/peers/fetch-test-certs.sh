#!/usr/bin/env bash
# Extracts grpc-java's test CA and server key pair (certs/ca.pem, certs/server1.pem,
# certs/server1.key from the io.grpc:grpc-testing jar on Maven Central) into a git-ignored folder,
# so no key is ever committed.
# Usage: fetch-test-certs.sh [DEST]
#   (default DEST: $TERN_INTEROP_CERTS_DIR, else tern-interop/target/test-certs)
# Idempotent: does nothing when all three files are already there.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dest="${1:-${TERN_INTEROP_CERTS_DIR:-$here/../target/test-certs}}"
version="${GRPC_JAVA_VERSION:-1.79.0}"
files=(ca.pem server1.pem server1.key)

have_all() {
  local f
  for f in "${files[@]}"; do [[ -s "$dest/$f" ]] || return 1; done
}
have_all && exit 0
# Serialise concurrent first runs; whoever waited finds the files there.
mkdir -p "$dest"
exec 9>"$dest/.lock"
flock 9
have_all && exit 0

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mvn -B -q -Dstyle.color=never dependency:copy \
  -Dartifact="io.grpc:grpc-testing:$version" -DoutputDirectory="$work" >&2
jar="$work/grpc-testing-$version.jar"
[[ -f "$jar" ]] || { echo "fetch-test-certs: $jar was not resolved" >&2; exit 1; }

python3 - "$jar" "$dest" "${files[@]}" <<'PY'
import sys, zipfile
from pathlib import Path
jar, dest, names = sys.argv[1], Path(sys.argv[2]), sys.argv[3:]
with zipfile.ZipFile(jar) as archive:
    for name in names:
        try:
            data = archive.read(f"certs/{name}")
        except KeyError:
            sys.exit(f"fetch-test-certs: certs/{name} is not in {jar}")
        (dest / name).write_bytes(data)
PY
chmod 600 "$dest/server1.key"
echo "fetch-test-certs: wrote ${files[*]} to $dest" >&2
