#!/usr/bin/env bash
# Installs the HTTP/3 peer tern-http3's tests run against Tern's server (issue 50): a Python
# virtualenv with aioquic (QUIC, TLS 1.3, HTTP/3 and QPACK by pylsqpack, none of it Tern's), pinned
# with every dependency in tern-http3/src/test/python/requirements.txt, in
# ~/.cache/tern-tools/http3-venv. The gRPC client on it, grpc_h3_client.py, is in that folder too.
# Idempotent: nothing is reinstalled while the requirements are unchanged. The tests find the
# virtualenv there (dev.tern.testtools.ExternalTool.requireHttp3Python); TERN_TOOLS_DIR moves the
# whole cache.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
requirements="$here/../tern-http3/src/test/python/requirements.txt"
venv="$tools/http3-venv"
stamp="$venv/.requirements-installed"
if [[ ! -f "$stamp" ]] || ! cmp -s "$requirements" "$stamp"; then
  echo "== Installing aioquic into $venv"
  mkdir -p "$tools"
  [[ -x "$venv/bin/python" ]] || "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$stamp"
fi
