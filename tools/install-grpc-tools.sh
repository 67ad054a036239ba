#!/usr/bin/env bash
# Installs the real tools tern-services' tests run against (issue 13), each pinned, into a cache
# under the user's home so repeated runs are fast:
#   - grpcurl and grpc-health-probe, built from their Go modules (`go install`), into
#     ~/.cache/tern-tools/bin (Go's module and build caches stay in their default places, also
#     under the home);
#   - a Python virtualenv with grpcio's health and reflection clients, in ~/.cache/tern-tools/venv.
# Idempotent: a tool whose pinned version is already installed is not rebuilt. The tests find the
# tools there (dev.tern.testing.ExternalTool); TERN_TOOLS_DIR moves the whole cache.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
mkdir -p "$tools/bin"

go_tool() { # name module version
  local name="$1" module="$2" version="$3" stamp="$tools/bin/.$1.version"
  if [[ -x "$tools/bin/$name" && -f "$stamp" && "$(cat "$stamp")" == "$module@$version" ]]; then
    return
  fi
  echo "== Installing $name ($module@$version)"
  GOBIN="$tools/bin" GOFLAGS=-buildvcs=false go install "$module@$version"
  echo "$module@$version" >"$stamp"
}

go_tool grpcurl github.com/fullstorydev/grpcurl/cmd/grpcurl v1.9.4
go_tool grpc-health-probe github.com/grpc-ecosystem/grpc-health-probe v0.4.61

requirements="$here/../tern-services/src/test/python/requirements.txt"
venv="$tools/venv"
stamp="$venv/.requirements-installed"
if [[ ! -f "$stamp" ]] || ! cmp -s "$requirements" "$stamp"; then
  echo "== Installing grpcio's health and reflection clients into $venv"
  [[ -x "$venv/bin/python" ]] || "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$stamp"
fi
