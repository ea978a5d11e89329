# print-bridge: web and worker in one image. The image is the command line: `docker run IMAGE` runs `start` (web and
# worker in one process); `docker run IMAGE web`, `… worker`, `… db migrate` run one role or command (docs/deploy.md).
# Build: docker build -t print-bridge .      Check it where Docker runs: npm run docker:check
# The compiled JavaScript runs; no TypeScript loader at run time (bin/print-bridge.js picks dist/ when src/ is absent).
# test/integration/image.test.ts builds this file's stages without Docker: keep to the instructions its parser knows.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# Everything `npm run build` reads: tsc (tsconfig*.json, src/), then tsx scripts/build-editor.ts, which imports
# scripts/editor-build.ts and bundles web/editor/ (web/tsconfig.json) into dist/assets/editor.js.
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
COPY scripts/build-editor.ts scripts/editor-build.ts ./scripts/
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
# dist/ holds the render threads' own entry too (dist/mapping/render-worker.js): bin/ts-worker.mjs, which loads the
# TypeScript sources into a thread, serves development only and stays out.
COPY --from=build /app/dist ./dist
COPY bin/print-bridge.js ./bin/
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
# The arguments after the image name are print-bridge's: `start` when there are none.
ENTRYPOINT ["node", "bin/print-bridge.js"]
CMD ["start"]
