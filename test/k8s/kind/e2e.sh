#!/usr/bin/env bash
# End-to-end run of the operator on a kind cluster (needs Docker, kind and kubectl):
# builds both images, loads them into kind, installs config/default, a PostgreSQL, an engine
# (config/engine), a TrackedTable and a Permission, and waits until they are Ready; then breaks the
# permission and waits for InconsistentMetadata. KEEP_CLUSTER=1 keeps the cluster afterwards.
set -euo pipefail
cd "$(dirname "$0")/../../.."

CLUSTER=graphql-engine-e2e
NS=e2e
kind create cluster --config test/k8s/kind/kind-cluster.yaml
trap '[[ "${KEEP_CLUSTER:-0}" == 1 ]] || kind delete cluster --name "$CLUSTER"' EXIT

docker build --target engine -t graphql-engine:e2e .
docker build --target controller -t graphql-engine-controller:e2e .
kind load docker-image --name "$CLUSTER" graphql-engine:e2e graphql-engine-controller:e2e

kubectl apply -k config/default
kubectl -n graphql-engine-system set image deployment/graphql-engine-operator manager=graphql-engine-controller:e2e
kubectl -n graphql-engine-system rollout status deployment/graphql-engine-operator --timeout=180s

kubectl create namespace "$NS"
kubectl -n "$NS" apply -f test/k8s/kind/postgres.yaml
kubectl -n "$NS" rollout status deployment/postgres --timeout=180s
kubectl -n "$NS" create secret generic engine \
  --from-literal=admin-secret=e2e-secret \
  --from-literal=database-url=postgres://postgres:postgres@postgres:5432/postgres
kubectl -n "$NS" apply -k config/engine
kubectl -n "$NS" set image deployment/engine engine=graphql-engine:e2e
kubectl -n "$NS" rollout status deployment/engine --timeout=180s

kubectl -n "$NS" apply -f config/samples/graphql_v1alpha1_trackedtable.yaml -f config/samples/graphql_v1alpha1_permission.yaml
kubectl -n "$NS" apply -f - <<'YAML'
apiVersion: graphql.engine.dev/v1alpha1
kind: TrackedTable
metadata:
  name: author
spec:
  table: author
YAML
for r in trackedtable/author trackedtable/article permission/article-user-select engine/engine; do
  kubectl -n "$NS" wait --for=condition=Ready --timeout=120s "$r"
done

# Break the permission: the engine reports it inconsistent, the resource says so.
kubectl -n "$NS" patch permission article-user-select --type=merge -p '{"spec":{"permission":{"columns":["id","nope"]}}}'
kubectl -n "$NS" wait --for=jsonpath='{.status.conditions[?(@.type=="Ready")].reason}'=InconsistentMetadata --timeout=120s permission/article-user-select
kubectl -n "$NS" describe permission article-user-select
kubectl -n "$NS" get graphql-engine
echo "e2e passed"
