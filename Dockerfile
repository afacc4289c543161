# syntax=docker/dockerfile:1
# Herald: one image, one `herald` entry point; the role is the first argument
# (api, sender, controller, migrate, apns-sim). See docs/install.md.

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: all dependencies, compile TypeScript to dist/ --------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY tsconfig.json ./
# Only the runtime sources: tsconfig also lists test/, bench/ and scripts/, which tsc simply
# finds empty here (none of the runtime folders imports them).
COPY api ./api
COPY apns-sim ./apns-sim
COPY cli ./cli
COPY controller ./controller
COPY core ./core
COPY sender ./sender
# Same steps as `make build`: tsc, then the SQL migrations next to the compiled migrator
# (core/store/migrate.ts reads them from its own directory). Unit tests are not shipped.
RUN npm run build \
 && cp -r core/store/migrations dist/core/store/ \
 && cp -r api/dashboard/assets dist/api/dashboard/ \
 && find dist -name '*.test.js*' -delete

# --- prod-deps: production dependencies only --------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error \
 && npm cache clean --force

# --- runtime ------------------------------------------------------------------------------
FROM ${NODE_IMAGE}
# openssl: `herald apns-sim` makes its throw-away CA with the openssl CLI when none is mounted.
RUN apt-get update \
 && apt-get install -y --no-install-recommends openssl \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
COPY --from=prod-deps /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY bin ./bin
# The node image's unprivileged user (uid 1000). Numeric, so Kubernetes can check
# runAsNonRoot without reading /etc/passwd. Nothing in /app is writable by it.
USER 1000:1000
EXPOSE 8080 9090
ENTRYPOINT ["node", "bin/herald.js"]
CMD ["--help"]
