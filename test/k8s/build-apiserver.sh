#!/usr/bin/env bash
# Builds kube-apiserver and etcd from the Go module proxy (no Docker, no downloads from dl.k8s.io)
# and caches them OUTSIDE the repository, keyed by version:
#   ${ENGINE_K8S_CACHE:-$HOME/.cache/engine-k8s}/<k8s-version>/{kube-apiserver,etcd}
#
# Why a scratch module: k8s.io/kubernetes requires its ~31 staging modules at v0.0.0 and replaces
# them with local directories, and `go install` refuses modules with replace directives. A scratch
# module that requires k8s.io/kubernetes and replaces every staging module with its published
# v0.X.Y tag builds fine. etcd comes from the same module graph (go.etcd.io/etcd/server/v3 is an
# indirect requirement of kubernetes), so the two binaries always match.
#
# Usage: test/k8s/build-apiserver.sh            (prints the cache directory on success)
# Env:   K8S_VERSION (default v1.33.13), ENGINE_K8S_CACHE, NICE (default 10)
set -euo pipefail

K8S_VERSION="${K8S_VERSION:-v1.33.13}"
CACHE_ROOT="${ENGINE_K8S_CACHE:-$HOME/.cache/engine-k8s}"
OUT="$CACHE_ROOT/$K8S_VERSION"
NICE_LEVEL="${NICE:-10}"

if [[ -x "$OUT/kube-apiserver" && -x "$OUT/etcd" ]]; then
  echo "$OUT"
  exit 0
fi

STAGING_VERSION="v0.${K8S_VERSION#v1.}"
WORK="$CACHE_ROOT/build-$K8S_VERSION"
mkdir -p "$WORK" "$OUT"
cd "$WORK"

export CGO_ENABLED=0
export GOFLAGS="${GOFLAGS:--buildvcs=false}"
# Kubernetes 1.33 needs Go >= 1.24; an older local Go fetches that toolchain from the module proxy.
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"

start=$(date +%s)
echo "[build-apiserver] kubernetes $K8S_VERSION, staging $STAGING_VERSION, go $(go env GOVERSION)" >&2

# The kubernetes go.mod at this tag lists its staging modules as `=> ./staging/src/k8s.io/<name>`.
go mod download -json "k8s.io/kubernetes@$K8S_VERSION" >/dev/null
KMOD="$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/$K8S_VERSION.mod"
mapfile -t STAGING < <(grep -oE 'k8s\.io/[a-z0-9-]+ => \./staging/src/k8s\.io/[a-z0-9-]+' "$KMOD" | awk '{print $1}' | sort -u)
if [[ ${#STAGING[@]} -lt 20 ]]; then
  echo "[build-apiserver] found only ${#STAGING[@]} staging modules in $KMOD; refusing to continue" >&2
  exit 1
fi
ETCD_VERSION="$(grep -oE 'go\.etcd\.io/etcd/server/v3 v[0-9.]+' "$KMOD" | awk '{print $2}')"

{
  echo "module enginek8sbuild"
  echo
  echo "go $(go env GOVERSION | sed -E 's/^go([0-9]+\.[0-9]+).*/\1/')"
  echo
  echo "require k8s.io/kubernetes $K8S_VERSION"
  echo "require go.etcd.io/etcd/server/v3 $ETCD_VERSION"
  echo
  echo "replace ("
  for m in "${STAGING[@]}"; do echo "	$m => $m $STAGING_VERSION"; done
  echo ")"
} > go.mod
cat > tools.go <<'EOF'
//go:build tools

// Package tools pins the two binaries this module exists to build.
package tools

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
EOF

nice -n "$NICE_LEVEL" go mod tidy >&2
echo "[build-apiserver] modules resolved after $(( $(date +%s) - start ))s" >&2

# Stamp the version the way hack/lib/version.sh does, so clients see a real server version.
MINOR="${K8S_VERSION#v1.}"; MINOR="${MINOR%%.*}"
LDPKG=""
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LDPKG+=" -X $p.gitVersion=$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$MINOR -X $p.gitTreeState=clean"
done

nice -n "$NICE_LEVEL" go build -trimpath -ldflags "-s -w$LDPKG" -o "$OUT/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver >&2
echo "[build-apiserver] kube-apiserver built after $(( $(date +%s) - start ))s" >&2
nice -n "$NICE_LEVEL" go build -trimpath -ldflags "-s -w" -o "$OUT/etcd.tmp" go.etcd.io/etcd/server/v3 >&2
echo "[build-apiserver] etcd $ETCD_VERSION built after $(( $(date +%s) - start ))s" >&2

mv "$OUT/kube-apiserver.tmp" "$OUT/kube-apiserver"
mv "$OUT/etcd.tmp" "$OUT/etcd"
echo "$K8S_VERSION etcd=$ETCD_VERSION go=$(go env GOVERSION) seconds=$(( $(date +%s) - start ))" > "$OUT/BUILD-INFO"
echo "$OUT"
