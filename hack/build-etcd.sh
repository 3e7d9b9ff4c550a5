#!/usr/bin/env bash
# build-etcd.sh — build the etcd server of the release svcplane embeds
# (go.etcd.io/etcd/server/v3 in go.mod; its own main package, which calls
# etcdmain.Main) from the Go module proxy, for the upstream side of
# `svcplane bench nodes|server --against upstream|both`: kube-apiserver
# then runs on the same etcd as svcplane's embedded member.
# It builds in a scratch module beside the binary, so svcplane's go.mod
# gains nothing. Output: $UPSTREAM_BIN/etcd, default
# ${XDG_CACHE_HOME:-~/.cache}/svcplane-upstream/$K8S_VERSION/etcd, the
# directory ../shared/tools/build-upstream.sh writes kube-apiserver to.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
V=$(cd "$root" && go list -m -f '{{.Version}}' go.etcd.io/etcd/server/v3)
OUT=${UPSTREAM_BIN:-${XDG_CACHE_HOME:-$HOME/.cache}/svcplane-upstream/${K8S_VERSION:-v1.36.3}}
src="$OUT/etcd-src"
mkdir -p "$src"
cd "$src"
[ -f go.mod ] || go mod init etcd-build >/dev/null 2>&1
go get "go.etcd.io/etcd/server/v3@$V"
go build -o "$OUT/etcd" go.etcd.io/etcd/server/v3
echo "built $OUT/etcd"
"$OUT/etcd" --version
