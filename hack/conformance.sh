#!/usr/bin/env bash
# Run Kubernetes' own [Conformance] specs of the areas svcplane serves
# against `svcplane up --nodes 3`, print "N/M passed" and each failure.
#   hack/conformance.sh            (root: nothing else needed but the Go module proxy)
# Builds e2e.test and ginkgo at the version go.mod pins with
# ../shared/tools/build-upstream.sh (cached under ~/.cache/svcplane-upstream),
# starts `svcplane up --runtime netns --nodes 3` (real pods in network
# namespaces, an nftables proxy per node) on a fresh data dir inside a
# network namespace of its own (the host's links, routes and rules stay
# untouched; the suite runs in there too), runs the specs of the files
# below and stops it.
# Specs run in PROCS (default 4) parallel ginkgo processes; [Serial] ones
# run alone at the end, as upstream's runners do.
# Env: E2E_TEST (a built e2e.test), GINKGO (the ginkgo CLI), PROCS,
#      GINKGO_TIMEOUT (default 30m),
#      FOCUS_FILES (a regex of spec files under test/e2e/ to run instead
#      of the whole list, e.g. 'common/node/secrets\.go'),
#      OUT (report dir, default ./conformance-out), SKIP_FILES (a regex of
#      spec files to leave out, e.g. one whose failure panics the whole
#      suite: apimachinery/chunking\.go while podtemplates are not served).
set -euo pipefail
cd "$(dirname "$0")/.."
V=$(go list -m -f '{{.Version}}' k8s.io/api | sed 's/^v0\./v1./')
BIN=${UPSTREAM_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/svcplane-upstream/$V}
E2E=${E2E_TEST:-$BIN/e2e.test}
if [ ! -x "$E2E" ]; then
  K8S_VERSION=$V bash ../shared/tools/build-upstream.sh --e2e kube-proxy || true
  # build-upstream.sh's module lacks test/e2e's own dependencies: add them.
  if [ ! -x "$E2E" ]; then
    (cd "$BIN/src" && grep -q 'test/e2e"' tools.go || sed -i 's#^import (#import (\n\t_ "k8s.io/kubernetes/test/e2e"#' tools.go
     cd "$BIN/src" && go mod tidy && go test -c -o "$E2E" k8s.io/kubernetes/test/e2e)
  fi
fi
# The specs exec nc, curl and wget in pods; the netns runtime runs the
# host's programs there.
for tool in nc curl wget; do
  command -v $tool >/dev/null || { apt-get update -qq && apt-get install -y -qq netcat-openbsd curl wget >/dev/null; break; }
done
OUT=${OUT:-$PWD/conformance-out}; mkdir -p "$OUT"
DATA=$(mktemp -d /tmp/svcplane-conformance-XXXX)
go build -o "$OUT/svcplane" ./cmd/svcplane
PORT=${PORT:-16443}
# The lab's "host": a namespace with loopback and the advertise address.
NS=svcplane-conformance-$$
ip netns add "$NS"
ip -n "$NS" link set lo up
ip -n "$NS" addr add 10.203.0.99/32 dev lo
in_ns() { ip netns exec "$NS" "$@"; }
# Not through in_ns: $! must be svcplane itself (ip netns exec execs it).
# The chunking spec waits for etcd to compact its first page's revision:
# kube-apiserver's --etcd-compaction-interval (default 5m) set to 1m
# (COMPACTION) saves the run ~5 min; the spec checks the same 410.
# The netns runtime pulls no image; --unpullable-images names the one
# image the specs use as one no registry has (Deployment proportional
# scaling rolls out webserver:404 to get a rollout stuck in ErrImagePull).
ip netns exec "$NS" "$OUT/svcplane" up --data-dir "$DATA" --nodes 3 --runtime netns --proxy-mode "${PROXY_MODE:-nftables}" \
  --unpullable-images '^webserver:404$' \
  --etcd-compaction-interval "${COMPACTION:-1m}" --secure-port "$PORT" --bind-address 0.0.0.0 --advertise-address 10.203.0.99 > "$OUT/svcplane.log" 2>&1 &
UP=$!
trap 'kill $UP 2>/dev/null; wait $UP 2>/dev/null; ip netns del "$NS"; rm -rf "$DATA"' EXIT
for _ in $(seq 1 120); do
  in_ns kubectl --kubeconfig "$DATA/kubeconfig" get --raw /readyz >/dev/null 2>&1 && break; sleep 0.5
done
# The nodes register once the server is ready.
for _ in $(seq 1 120); do
  [ "$(in_ns kubectl --kubeconfig "$DATA/kubeconfig" get nodes -o name 2>/dev/null | wc -l)" -ge 3 ] && break; sleep 0.5
done
in_ns kubectl --kubeconfig "$DATA/kubeconfig" wait --for=condition=Ready node --all --timeout=60s >/dev/null
files='network/(service|endpointslice|endpointslicemirroring|endpoints|service_cidrs|apiserver|dns)\.go'
files+='|apps/(deployment|replica_set)\.go'
files+='|apimachinery/(garbage_collector|namespace|watch|chunking|table_conversion|server_version|discovery|aggregated_discovery|field_validation|validatingadmissionpolicy|mutatingadmissionpolicy)\.go'
files+='|apimachinery/(custom_resource_definition|crd_publish_openapi|crd_watch|crd_selectable_fields)\.go'
files+='|instrumentation/(events|core_events)\.go|common/node/(configmap|secrets)\.go'
files=${FOCUS_FILES:-$files}
set +e
GINKGO=${GINKGO:-$BIN/ginkgo}
[ -x "$GINKGO" ] || GINKGO=$(command -v ginkgo)
in_ns "$GINKGO" --procs "${PROCS:-4}" --no-color --timeout "${GINKGO_TIMEOUT:-30m}" \
  --focus '\[Conformance\]' --focus-file "test/e2e/($files)" \
  ${SKIP_FILES:+--skip-file "test/e2e/($SKIP_FILES)"} \
  --junit-report junit.xml --output-dir "$OUT" \
  "$E2E" -- --kubeconfig "$DATA/kubeconfig" --provider skeleton --report-dir "$OUT" \
  > "$OUT/e2e.log" 2>&1
rc=$?
set -e
ran=$(grep -Eo 'Ran [0-9]+ of [0-9]+ Specs' "$OUT/e2e.log" | tail -1 || true)
pass=$(grep -Eo '[0-9]+ Passed' "$OUT/e2e.log" | tail -1 | cut -d' ' -f1 || true)
total=$(echo "$ran" | awk '{print $2}')
echo "${pass:-0}/${total:-0} passed ($ran; ginkgo exit $rc; log $OUT/e2e.log)"
sed -n '/Summarizing [0-9]* Failure/,$p' "$OUT/e2e.log" | grep -E '^\s*\[(FAIL|TIMEDOUT|PANICKED)\]' || true
