# One image for every process of the service; docker-compose.yml picks the entry point per service.
# Pinned: the Node LTS release CI runs the suites on (NODE_LTS_VERSION in .ci/run) and the npm that writes
# package-lock.json.
FROM node:24.21.0-bookworm-slim AS base
RUN npm install --global npm@11.19.1 --no-audit --no-fund
WORKDIR /app
COPY package.json package-lock.json ./
# Installs take exactly the lock file's versions: the build stops if `npm install` changes package-lock.json,
# which is what `npm ci` checks (docs/security.md says why `npm ci` itself refuses this lock file).
RUN cp package-lock.json /tmp/locked.json

# Build stage: compile TypeScript to dist/ and bundle the workflow code (workers start without webpack).
FROM base AS build
RUN npm install --no-audit --no-fund --ignore-scripts && cmp package-lock.json /tmp/locked.json
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && node dist/cli/build-workflow-bundle.js dist/workflow-bundle.js

# Runtime stage: production dependencies and compiled JavaScript only (no TypeScript tooling).
FROM base
ENV NODE_ENV=production
RUN npm install --omit=dev --no-audit --no-fund --ignore-scripts && cmp package-lock.json /tmp/locked.json \
  && rm /tmp/locked.json && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
# The worker by default, with its V8 heap limits (src/workers/v8-limits.ts), as docker-compose.yml starts it.
CMD ["node", "--max-semi-space-size=8", "--max-old-space-size=384", "dist/workers/main.js"]
