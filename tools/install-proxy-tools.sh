#!/usr/bin/env bash
# Installs proxy.py (PyPI's proxy.py, pinned), a real HTTP proxy server that speaks CONNECT and Basic
# proxy authentication (--basic-auth), for the tests of Tern's HTTP CONNECT proxy support (gRFC A1):
# tern-test-tools' ProxyPy starts it on a port the OS picks, and tern-netty's ProxyPyChannelTest
# calls a Tern server through it. Into a virtualenv of its own in the cache the other install
# scripts fill (${TERN_TOOLS_DIR:-~/.cache/tern-tools}/proxy-venv), linked as bin/proxy.py.
# Idempotent: reinstalled only when the pinned version changes.
set -euo pipefail
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
mkdir -p "$tools/bin"

version="2.4.10"
venv="$tools/proxy-venv"
if [[ -x "$tools/bin/proxy.py" && "$(cat "$venv/.version" 2>/dev/null)" == "$version" ]]; then
  exit 0
fi
echo "== Installing proxy.py $version (PyPI)"
rm -rf "$venv"
"${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check "proxy.py==$version"
ln -sf "$venv/bin/proxy" "$tools/bin/proxy.py"
echo "$version" >"$venv/.version"
