# Sourced by tests/dashboard/run_dashboard_test.sh and bench/dashboard_load.sh: a scratch
# directory ($tmp) and the processes started into $pids, both gone on exit; two free
# loopback ports, the controller's ($endpoint) and its HTTP server's ($url).
# Usage: . tests/dashboard/scratch.sh NAME
tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
zmq_port=$(free_port)
http_port=$(free_port)
while [ "$http_port" = "$zmq_port" ]; do http_port=$(free_port); done
endpoint=tcp://127.0.0.1:$zmq_port
url=http://127.0.0.1:$http_port
