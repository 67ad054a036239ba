#!/usr/bin/env bash
# Installs the web clients Tern's web tests run against (issue 16), each pinned:
#   - Chromium, Debian's package (/usr/bin/chromium), and curl when it is missing, with apt-get,
#     which needs root (the package lists are refreshed only when the install fails without);
#   - the npm packages pinned in tools/web/package.json and package-lock.json (buf, protoc-gen-es,
#     @bufbuild/protobuf, connect-es, esbuild, puppeteer-core), installed with `npm ci` into
#     ${TERN_TOOLS_DIR:-~/.cache/tern-tools}/web, and buf linked into its bin folder. Nothing comes
#     from outside the npm registry: puppeteer-core never downloads a browser (and
#     PUPPETEER_SKIP_DOWNLOAD says so to anything that might), buf's and esbuild's install scripts
#     only pick their platform's binary, itself an npm package in the lock file.
# buf is 1.74.0, not 1.75.0: npm has 1.75.0's linux-x64 binary package but not all the others its
# package.json lists, and npm ci refuses a lock file that lacks them.
# Idempotent: npm ci runs again only when the lock file changes, apt-get only when a program is
# missing. The tests find the tools through dev.tern.testtools.ExternalTool.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
mkdir -p "$tools/bin"

packages=()
if [[ ! -x /usr/bin/chromium ]]; then
  packages+=(chromium)
fi
if ! command -v curl >/dev/null; then
  packages+=(curl)
fi
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi
if [[ ${#packages[@]} -gt 0 ]]; then
  echo "== Installing ${packages[*]} (Debian packages)"
  sudo=()
  if [[ $EUID -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "installing ${packages[*]} needs root: run apt-get install ${packages[*]} as root" >&2
      exit 1
    fi
    sudo=(sudo)
  fi
  apt_log="$(mktemp)"
  apt_install=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq
    --no-install-recommends "${packages[@]}")
  if ! "${apt_install[@]}" >"$apt_log" 2>&1; then
    if ! { "${sudo[@]}" apt-get update -qq && "${apt_install[@]}"; } >"$apt_log" 2>&1; then
      cat "$apt_log" >&2
      rm -f "$apt_log"
      exit 1
    fi
  fi
  rm -f "$apt_log"
fi

# puppeteer-core and protoc-gen-es 2.13 need Node.js 20 or later (their package.json "engines").
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [[ "$node_major" -lt 20 ]]; then
  echo "Node.js $(node --version) is too old for tools/web (puppeteer-core, protoc-gen-es):" \
    "install Node.js 20 or later" >&2
  exit 1
fi

web="$tools/web"
stamp="$web/.package-lock.json"
if [[ ! -d "$web/node_modules" || ! -f "$stamp" ]] || ! cmp -s "$here/web/package-lock.json" "$stamp"; then
  echo "== Installing buf, connect-es, esbuild and puppeteer-core into $web (npm ci)"
  mkdir -p "$web"
  cp "$here/web/package.json" "$here/web/package-lock.json" "$web/"
  rm -f "$stamp"
  npm_log="$(mktemp)"
  if ! (cd "$web" && PUPPETEER_SKIP_DOWNLOAD=true npm ci --no-audit --no-fund) >"$npm_log" 2>&1; then
    cat "$npm_log" >&2
    rm -f "$npm_log"
    exit 1
  fi
  rm -f "$npm_log"
  cp "$here/web/package-lock.json" "$stamp"
fi
ln -sfn "$web/node_modules/.bin/buf" "$tools/bin/buf"
