#!/usr/bin/env bash
# Runs an HTTP/3 interop peer that shares nothing with Tern, with the interop matrix's flags:
#   http3-peer.sh aioquic|connect-go server --port=N --use_tls=true [--http3=true]
#   http3-peer.sh aioquic|connect-go client --server_host=H --server_port=N --use_tls=true \
#     --use_test_ca=true --server_host_override=NAME --test_case=NAME[,NAME...] [--http3=true]
# aioquic: gRPC by hand on aioquic (tern-http3/src/test/python/grpc_h3_{server,client}.py, in the
# virtualenv tools/install-http3-tools.sh makes). connect-go: connect-go over quic-go's HTTP/3
# (tern-h3-peer, which that script builds). Both speak only HTTP/3, so --use_tls must be true;
# TLS uses grpc-java's test CA and server key pair (fetch-test-certs.sh). The clients print
# "PASS|FAIL <case>[: reason]" per case and exit 1 if any failed. Exit status 2 for a bad flag or
# a peer that is not installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tools="${TERN_TOOLS_DIR:-$HOME/.cache/tern-tools}"
scripts="$here/../../tern-http3/src/test/python"
usage() {
  echo "usage: http3-peer.sh aioquic|connect-go server|client FLAGS... (see the script's head)" >&2
  exit 2
}
impl="${1:-}" role="${2:-}"
[[ "$impl" == aioquic || "$impl" == connect-go ]] || usage
[[ "$role" == server || "$role" == client ]] || usage
shift 2

port="" host="" use_tls="" use_test_ca=false override="" cases=""
for arg in "$@"; do
  case "$arg" in
    --port=* | --server_port=*) port="${arg#*=}" ;;
    --server_host=*) host="${arg#*=}" ;;
    --use_tls=*) use_tls="${arg#*=}" ;;
    --use_test_ca=*) use_test_ca="${arg#*=}" ;;
    --server_host_override=*) override="${arg#*=}" ;;
    --test_case=*) cases="${arg#*=}" ;;
    --http3 | --http3=true) ;; # all it speaks
    *) echo "http3-peer.sh: unknown flag ${arg%%=*}" >&2; exit 2 ;;
  esac
done
[[ "$use_tls" == true ]] || { echo "http3-peer.sh: needs --use_tls=true (HTTP/3 runs over TLS)" >&2; exit 2; }
[[ "$port" =~ ^[0-9]+$ ]] || { echo "http3-peer.sh: needs --port (server) or --server_port (client)" >&2; exit 2; }

if [[ "$impl" == aioquic ]]; then
  python="$tools/http3-venv/bin/python"
  [[ -x "$python" ]] || { echo "aioquic's virtualenv is not installed; run tools/install-http3-tools.sh" >&2; exit 2; }
else
  peer="$tools/bin/tern-h3-peer"
  [[ -x "$peer" ]] || { echo "tern-h3-peer is not installed; run tools/install-http3-tools.sh" >&2; exit 2; }
fi
certs="${TERN_INTEROP_CERTS_DIR:-$here/../target/test-certs}"
"$here/fetch-test-certs.sh" "$certs"

if [[ "$role" == server ]]; then
  tls=(--cert="$certs/server1.pem" --key="$certs/server1.key" --port="$port")
  if [[ "$impl" == aioquic ]]; then
    exec "$python" "$scripts/grpc_h3_server.py" "${tls[@]}" --host=127.0.0.1
  fi
  exec "$peer" server "${tls[@]}"
fi

[[ -n "$host" && -n "$cases" && "$cases" != all ]] \
  || { echo "http3-peer.sh: the client needs --server_host and --test_case=NAME[,NAME...]" >&2; exit 2; }
[[ "$use_test_ca" == true ]] \
  || { echo "http3-peer.sh: the client needs --use_test_ca=true (it trusts the test CA only)" >&2; exit 2; }
trust=(--ca="$certs/ca.pem" --server_host_override="${override:-$host}")
if [[ "$impl" == aioquic ]]; then
  exec "$python" "$scripts/grpc_h3_client.py" --host="$host" --port="$port" "${trust[@]}" \
    --test_case="$cases"
fi
exec "$peer" client --addr="$host:$port" "${trust[@]}" --cases="$cases"
