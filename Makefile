# The operator's documented path to a real cluster (kind): build both images, load them into kind,
# install the operator and an engine, and run the end-to-end check (test/k8s/kind/e2e.sh).
# Needs Docker, kind and kubectl. `npm run e2e:kind` does the same as `make e2e-kind`.
KIND_CLUSTER    ?= graphql-engine-e2e
TAG             ?= $(shell node -p "require('./package.json').version")
ENGINE_IMAGE    ?= graphql-engine:$(TAG)
CONTROLLER_IMAGE ?= graphql-engine-controller:$(TAG)

.PHONY: images kind-cluster kind-load deploy e2e-kind kind-delete

images:
	docker build -t $(ENGINE_IMAGE) -f Dockerfile .
	docker build -t $(CONTROLLER_IMAGE) -f Dockerfile.controller .

kind-cluster:
	kind get clusters | grep -qx $(KIND_CLUSTER) || kind create cluster --config test/k8s/kind/kind-cluster.yaml

kind-load: images kind-cluster
	kind load docker-image --name $(KIND_CLUSTER) $(ENGINE_IMAGE) $(CONTROLLER_IMAGE)

# The operator (CRDs, RBAC, controller) with the images just built.
deploy: kind-load
	kubectl apply -k config/default
	kubectl -n graphql-engine-system set image deployment/graphql-engine-operator manager=$(CONTROLLER_IMAGE)
	kubectl -n graphql-engine-system rollout status deployment/graphql-engine-operator --timeout=180s

e2e-kind:
	KIND_CLUSTER=$(KIND_CLUSTER) ENGINE_IMAGE=$(ENGINE_IMAGE) CONTROLLER_IMAGE=$(CONTROLLER_IMAGE) test/k8s/kind/e2e.sh

kind-delete:
	kind delete cluster --name $(KIND_CLUSTER)
