#!/usr/bin/env bash
# Installs the real tools tern-services' tests run against (issue 13), each pinned, into a cache
# under the user's home so repeated runs are fast:
#   - grpcurl, grpc-health-probe and h2spec, built from their Go modules (`go install`), into
#     ~/.cache/tern-tools/bin (Go's module and build caches stay in their default places, also
#     under the home);
#   - a Python virtualenv with grpcio's health and reflection clients, in ~/.cache/tern-tools/venv.
# Idempotent: a tool whose pinned version is already installed is not rebuilt. The tests find the
# tools there (dev.tern.testtools.ExternalTool); TERN_TOOLS_DIR moves the whole cache.
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

# h2spec, the HTTP/2 conformance suite tern-netty's H2specTest runs against the Netty server. The
# module proxy serves no tagged release after v2.2.1 (later tags add a go.mod whose path lacks the
# /v2 suffix, so the proxy refuses them), and v2.2.1 has no go.mod: `go install` alone would build
# it with the newest of its dependencies. A throwaway module pins them instead.
h2spec_version=v2.2.1+incompatible
h2spec_deps=(golang.org/x/net@v0.62.0 github.com/spf13/cobra@v1.10.2 github.com/fatih/color@v1.19.0)
h2spec_stamp="$tools/bin/.h2spec.version"
h2spec_want="github.com/summerwind/h2spec@$h2spec_version ${h2spec_deps[*]}"
if [[ ! -x "$tools/bin/h2spec" || ! -f "$h2spec_stamp" || "$(cat "$h2spec_stamp")" != "$h2spec_want" ]]; then
  echo "== Installing h2spec ($h2spec_want)"
  h2spec_build="$(mktemp -d)"
  (
    cd "$h2spec_build"
    go mod init tern-tools/h2spec >/dev/null 2>&1
    go get "github.com/summerwind/h2spec@$h2spec_version" "${h2spec_deps[@]}"
    GOBIN="$tools/bin" GOFLAGS=-buildvcs=false go install github.com/summerwind/h2spec/cmd/h2spec
  )
  rm -rf "$h2spec_build"
  echo "$h2spec_want" >"$h2spec_stamp"
fi

requirements="$here/../tern-services/src/test/python/requirements.txt"
venv="$tools/venv"
stamp="$venv/.requirements-installed"
if [[ ! -f "$stamp" ]] || ! cmp -s "$requirements" "$stamp"; then
  echo "== Installing grpcio's health and reflection clients into $venv"
  [[ -x "$venv/bin/python" ]] || "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$stamp"
fi
