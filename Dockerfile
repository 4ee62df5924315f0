# One image for every process of the service; docker-compose.yml picks the entry point per service.
# Build stage: compile TypeScript to dist/ and bundle the workflow code (workers start without webpack).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && node dist/cli/build-workflow-bundle.js dist/workflow-bundle.js

# Runtime stage: production dependencies and compiled JavaScript only.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
CMD ["node", "dist/workers/main.js"]
