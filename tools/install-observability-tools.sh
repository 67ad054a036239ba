#!/usr/bin/env bash
# Installs the real observability back ends Tern's tests export to (issue 14), pinned:
#   - otelcol-tern, an OpenTelemetry Collector with the OTLP receiver and the debug exporter only
#     (tools/otelcol/builder.yaml), built by the Collector's builder v0.150.0 from the Go module
#     proxy, into ${TERN_TOOLS_DIR:-~/.cache/tern-tools}/bin; the build happens in a temporary
#     directory, removed afterwards (Go's module and build caches stay in their default places);
#   - Prometheus, Debian's package (/usr/bin/prometheus), installed with apt-get, which needs root.
#     The tests start their own Prometheus on a port of their own; the package's system service is
#     kept from starting (and, under systemd, disabled), so nothing is left on port 9090.
# Idempotent: the Collector is rebuilt only when the builder version or the manifest changes, and
# apt-get runs only when /usr/bin/prometheus is missing. The tests find both through
# dev.tern.testtools.ExternalTool.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
mkdir -p "$tools/bin"

builder_module=go.opentelemetry.io/collector/cmd/builder
builder_version=v0.150.0
manifest="$here/otelcol/builder.yaml"
collector="$tools/bin/otelcol-tern"
stamp="$tools/bin/.otelcol-tern.version"
want="$builder_module@$builder_version $(sha256sum "$manifest" | cut -d' ' -f1)"
if [[ ! -x "$collector" || ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  echo "== Installing otelcol-tern (builder $builder_version, $manifest)"
  builder_bin="$tools/otelcol-builder/$builder_version"
  if [[ ! -x "$builder_bin/builder" ]]; then
    mkdir -p "$builder_bin"
    GOBIN="$builder_bin" GOFLAGS=-buildvcs=false go install "$builder_module@$builder_version"
  fi
  work="$(mktemp -d "${TMPDIR:-/tmp}/tern-otelcol-build.XXXXXX")"
  trap 'rm -rf "$work"' EXIT
  { cat "$manifest"; printf '\n'; } | sed "s|^dist:\$|dist:\n  output_path: $work/out|" >"$work/builder.yaml"
  if ! (cd "$work" && GOFLAGS=-buildvcs=false "$builder_bin/builder" --config="$work/builder.yaml") \
    >"$work/build.log" 2>&1; then
    cat "$work/build.log" >&2
    exit 1
  fi
  install -m 0755 "$work/out/otelcol-tern" "$collector.new"
  mv -f "$collector.new" "$collector"
  echo "$want" >"$stamp"
  rm -rf "$work"
  trap - EXIT
fi

if [[ ! -x /usr/bin/prometheus ]]; then
  echo "== Installing prometheus (Debian package)"
  sudo=()
  if [[ $EUID -ne 0 ]]; then
    if ! command -v sudo >/dev/null; then
      echo "installing prometheus needs root: run apt-get install prometheus as root" >&2
      exit 1
    fi
    sudo=(sudo)
  fi
  # The package's maintainer scripts start its service (port 9090) unless policy-rc.d says no
  # (exit 101); container images usually ship one, a plain machine does not: add it for the
  # install only. No recommends: they would bring and start prometheus-node-exporter.
  policy=/usr/sbin/policy-rc.d
  added_policy=
  if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
    "${sudo[@]}" chmod 0755 "$policy"
    added_policy=yes
  fi
  apt_log="$(mktemp)"
  apt_install=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq
    --no-install-recommends prometheus)
  status=0
  if ! "${apt_install[@]}" >"$apt_log" 2>&1; then
    { "${sudo[@]}" apt-get update -qq && "${apt_install[@]}"; } >"$apt_log" 2>&1 || status=$?
  fi
  if [[ -n "$added_policy" ]]; then
    "${sudo[@]}" rm -f "$policy"
  fi
  if [[ $status -ne 0 ]]; then
    cat "$apt_log" >&2
    rm -f "$apt_log"
    exit 1
  fi
  rm -f "$apt_log"
  # Under systemd the unit is enabled even when policy-rc.d kept it from starting: stop and disable
  # it, so no Prometheus of the system's takes port 9090 now or after a reboot.
  if [[ -d /run/systemd/system ]]; then
    "${sudo[@]}" systemctl disable --now prometheus.service >/dev/null 2>&1 || true
  fi
fi
