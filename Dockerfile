# One image for every process of the service; docker-compose.yml picks the entry point per service.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY tsconfig.json ./
COPY src ./src
# Bundle the workflow code at build time so workers start without webpack (WORKFLOW_BUNDLE_PATH).
RUN node --import tsx src/cli/build-workflow-bundle.ts dist/workflow-bundle.js
USER node
CMD ["node", "--import", "tsx", "src/workers/main.ts"]
