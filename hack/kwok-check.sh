#!/usr/bin/env bash
# kwok-check.sh — show that sigs.k8s.io/kwok works against svcplane as the
# node simulator: start `svcplane up` (no local nodes) on a temporary data
# dir, run kwok against its admin kubeconfig, create a fake node and a pod
# on it, and wait until both are Ready.
#
# Needs: go, kubectl. kwok is taken from $KWOK, else from $(go env GOPATH)/bin,
# else built from the Go module proxy with
#   go install sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION
# (outside this module: it is not a dependency of svcplane).
# Everything listens on 127.0.0.1; the script stops what it started.
set -euo pipefail

KWOK_VERSION=${KWOK_VERSION:-v0.7.0}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$work"
}
trap cleanup EXIT

if [[ -z "${KWOK:-}" ]]; then
	KWOK=$(go env GOPATH)/bin/kwok
	if [[ ! -x "$KWOK" ]]; then
		echo "building kwok $KWOK_VERSION from the Go module proxy…"
		(cd "$work" && GOBIN="$work/bin" go install "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION")
		KWOK=$work/bin/kwok
	fi
fi
echo "kwok: $("$KWOK" --version 2>/dev/null || echo "$KWOK")"

(cd "$root" && go build -o "$work/svcplane" ./cmd/svcplane)
"$work/svcplane" up --nodes 0 --data-dir "$work/data" --secure-port 0 --bind-address 127.0.0.1 \
	>"$work/svcplane.log" 2>&1 &
pids+=($!)
export KUBECONFIG=$work/data/kubeconfig
for _ in $(seq 1 300); do
	if [[ -f $KUBECONFIG ]] && kubectl get --raw /readyz >/dev/null 2>&1; then break; fi
	sleep 0.2
done
kubectl get --raw /readyz >/dev/null
echo "svcplane is up: $(grep -o 'https://[^ ]*' "$work/svcplane.log" | head -1)"

# kwok's documented standalone flags: manage only nodes annotated
# kwok.x-k8s.io/node=fake; pod IPs from --cidr.
"$KWOK" --kubeconfig="$KUBECONFIG" \
	--manage-all-nodes=false \
	--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
	--manage-nodes-with-label-selector= \
	--disregard-status-with-annotation-selector=kwok.x-k8s.io/status=custom \
	--disregard-status-with-label-selector= \
	--cidr=10.0.0.1/24 --node-ip=10.0.0.1 --node-lease-duration-seconds=40 \
	>"$work/kwok.log" 2>&1 &
pids+=($!)

kubectl apply -f - <<'YAML'
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-0
  annotations:
    node.alpha.kubernetes.io/ttl: "0"
    kwok.x-k8s.io/node: fake
  labels:
    kubernetes.io/hostname: kwok-node-0
    kubernetes.io/role: agent
    type: kwok
spec:
  taints:
  - effect: NoSchedule
    key: kwok.x-k8s.io/node
    value: fake
---
apiVersion: v1
kind: Pod
metadata:
  name: kwok-pod
  namespace: default
spec:
  nodeSelector:
    type: kwok
  tolerations:
  - key: kwok.x-k8s.io/node
    operator: Exists
    effect: NoSchedule
  containers:
  - name: app
    image: registry.k8s.io/pause:3.10
YAML

kubectl wait --for=condition=Ready node/kwok-node-0 --timeout=60s
kubectl wait --for=condition=Ready pod/kwok-pod --timeout=60s
kubectl get nodes -o wide
kubectl get pods -o wide
kubectl get pod kwok-pod -o jsonpath='{.status}'; echo
kubectl get node kwok-node-0 -o jsonpath='{.spec.podCIDRs}'; echo
kubectl get leases -n kube-node-lease
echo "kwok check passed"
