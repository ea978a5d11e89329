# print-bridge: web and worker in one image (`print-bridge start`, or `web` / `worker` to scale them apart).
# Build: docker build -t print-bridge .      Run: docker run --env-file .env -p 3000:3000 print-bridge
# The compiled JavaScript runs; no TypeScript loader at run time (bin/print-bridge.js picks dist/ when src/ is absent).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
COPY scripts/build-editor.ts ./scripts/
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
# The SQL migrations `start` (and `print-bridge db migrate`) applies, and the example mapping files.
COPY drizzle ./drizzle
COPY mappings ./mappings
# Not root: the app needs no privilege; the embedded database (only without DATABASE_URL) lives in /app/data.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# Liveness through the app's own /healthz (no curl in slim images: node itself asks).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM lets running jobs finish: give the container 30 s to stop (docker stop -t 30, terminationGracePeriodSeconds).
STOPSIGNAL SIGTERM
CMD ["node", "bin/print-bridge.js", "start"]
