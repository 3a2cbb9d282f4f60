#!/usr/bin/env bash
# End-to-end run of the operator on a kind cluster (needs Docker, kind and kubectl); the documented
# path is `make e2e-kind` or `npm run e2e:kind`. Builds both images (Dockerfile,
# Dockerfile.controller), loads them into kind, installs config/default, a PostgreSQL, an engine
# (config/engine, which also binds the operator's Secret reader in its namespace), a TrackedTable
# and a Permission, and waits until they are Ready; then breaks the permission and waits for
# InconsistentMetadata, edits the engine behind the operator's back and waits for the correction.
# KEEP_CLUSTER=1 keeps the cluster afterwards.
set -euo pipefail
cd "$(dirname "$0")/../../.."

CLUSTER="${KIND_CLUSTER:-graphql-engine-e2e}"
ENGINE_IMAGE="${ENGINE_IMAGE:-graphql-engine:e2e}"
CONTROLLER_IMAGE="${CONTROLLER_IMAGE:-graphql-engine-controller:e2e}"
NS=e2e
kind get clusters | grep -qx "$CLUSTER" || kind create cluster --name "$CLUSTER" --config test/k8s/kind/kind-cluster.yaml
trap '[[ "${KEEP_CLUSTER:-0}" == 1 ]] || kind delete cluster --name "$CLUSTER"' EXIT

docker build -t "$ENGINE_IMAGE" -f Dockerfile .
docker build -t "$CONTROLLER_IMAGE" -f Dockerfile.controller .
kind load docker-image --name "$CLUSTER" "$ENGINE_IMAGE" "$CONTROLLER_IMAGE"

kubectl apply -k config/default
kubectl -n graphql-engine-system set image deployment/graphql-engine-operator manager="$CONTROLLER_IMAGE"
kubectl -n graphql-engine-system rollout status deployment/graphql-engine-operator --timeout=180s

kubectl create namespace "$NS"
kubectl -n "$NS" apply -f test/k8s/kind/postgres.yaml
kubectl -n "$NS" rollout status deployment/postgres --timeout=180s
kubectl -n "$NS" create secret generic engine \
  --from-literal=admin-secret=e2e-secret \
  --from-literal=database-url=postgres://postgres:postgres@postgres:5432/postgres
kubectl -n "$NS" apply -k config/engine
kubectl -n "$NS" set image deployment/engine engine="$ENGINE_IMAGE"
kubectl -n "$NS" rollout status deployment/engine --timeout=180s

kubectl -n "$NS" apply -f - <<'YAML'
apiVersion: graphql.engine.dev/v1alpha1
kind: TrackedTable
metadata:
  name: author
spec:
  table: author
---
apiVersion: graphql.engine.dev/v1alpha1
kind: TrackedTable
metadata:
  name: article
spec:
  table: article
  object_relationships:
    - name: author
      using:
        foreign_key_constraint_on: author_id
---
apiVersion: graphql.engine.dev/v1alpha1
kind: Permission
metadata:
  name: article-user-select
spec:
  table: article
  role: user
  operation: select
  permission:
    columns: [id, title, author_id]
    filter:
      author_id:
        _eq: X-Engine-User-Id
YAML
for r in trackedtable/author trackedtable/article permission/article-user-select engine/engine; do
  kubectl -n "$NS" wait --for=condition=Ready --timeout=120s "$r"
done

# Break the permission: the engine reports it inconsistent, the resource says so.
kubectl -n "$NS" patch permission article-user-select --type=merge -p '{"spec":{"permission":{"columns":["id","nope"]}}}'
kubectl -n "$NS" wait --for=jsonpath='{.status.conditions[?(@.type=="Ready")].reason}'=InconsistentMetadata --timeout=120s permission/article-user-select
kubectl -n "$NS" describe permission article-user-select
kubectl -n "$NS" patch permission article-user-select --type=merge -p '{"spec":{"permission":{"columns":["id","title","author_id"]}}}'
kubectl -n "$NS" wait --for=condition=Ready --timeout=120s permission/article-user-select

# Drift: drop the permission through the metadata API; the operator restores it within seconds.
kubectl -n "$NS" exec deploy/engine -- node -e "fetch('http://127.0.0.1:8080/v1/metadata',{method:'POST',headers:{'x-engine-admin-secret':'e2e-secret','content-type':'application/json'},body:JSON.stringify({type:'pg_drop_select_permission',args:{table:'article',role:'user'}})}).then(r=>r.text()).then(console.log)"
for _ in $(seq 1 30); do
  kubectl -n "$NS" get events --field-selector involvedObject.kind=Engine,reason=DriftCorrected -o name | grep -q . && break
  sleep 1
done
kubectl -n "$NS" get events --field-selector involvedObject.kind=Engine,reason=DriftCorrected
kubectl -n "$NS" get graphql-engine
echo "e2e passed"
