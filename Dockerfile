# Images for the engine and the operator's controller, from one build:
#   docker build --target engine     -t graphql-engine .
#   docker build --target controller -t graphql-engine-controller .
# Node runs the TypeScript sources directly (native type stripping), so there is no compile step.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force

FROM node:24-slim AS base
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
USER node

FROM base AS engine
COPY engine ./engine
EXPOSE 8080
ENTRYPOINT ["node", "engine/main.ts"]
CMD ["serve", "--server-host", "0.0.0.0", "--server-port", "8080"]

# The controller imports only engine/metadata/document.ts and engine/metadata/schemas/ from the
# engine (and what those import), so it ships without the rest of the engine.
FROM base AS controller
COPY controller ./controller
COPY engine/metadata/document.ts ./engine/metadata/document.ts
COPY engine/metadata/schemas ./engine/metadata/schemas
COPY engine/catalog/types.ts ./engine/catalog/types.ts
COPY engine/errors ./engine/errors
EXPOSE 8081
ENTRYPOINT ["node", "controller/main.ts"]
