# syntax=docker/dockerfile:1
# Herald: one image, one `herald` entry point; the role is the first argument
# (api, sender, controller, migrate, apns-sim). See docs/install.md.

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: all dependencies, compile TypeScript to dist/ --------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY tsconfig.json tsconfig.build.json ./
# Only the runtime sources, compiled by tsconfig.build.json, which leaves out the unit tests
# (*.test.ts) beside them: those import test/ and tools/, which are not in the build context.
COPY api ./api
COPY apns-sim ./apns-sim
COPY fcm-sim ./fcm-sim
COPY cli ./cli
COPY controller ./controller
COPY core ./core
COPY sender ./sender
# As `make build` (tsc, then the SQL migrations next to the compiled migrator, which reads
# them from its own directory, and the dashboard's assets), without the tests.
RUN npx tsc -p tsconfig.build.json \
 && cp -r core/store/migrations dist/core/store/ \
 && cp -r api/dashboard/assets dist/api/dashboard/

# --- prod-deps: production dependencies only --------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error \
 && npm cache clean --force

# --- runtime ------------------------------------------------------------------------------
FROM ${NODE_IMAGE}
# openssl: `herald apns-sim` makes its throw-away CA with the openssl CLI when none is mounted.
# A base that has it already (the node tier's, test/node/base.sh) needs no apt.
RUN command -v openssl >/dev/null || { apt-get update \
 && apt-get install -y --no-install-recommends openssl \
 && rm -rf /var/lib/apt/lists/*; }
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
