# syntax=docker/dockerfile:1
# Build: compiles TypeScript and the better-sqlite3 addon, then drops dev dependencies.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
COPY scripts/bundle.mjs ./scripts/
RUN npm run build && npm prune --omit=dev

# Run: no compilers, no sources, an unprivileged user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY studio-ui ./studio-ui
# State (sqlite) and the board live in /app/data: the only path the gateway writes besides /tmp,
# so the root filesystem can be read-only (docker run --read-only, Kubernetes).
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
# The image's `node` user by number, so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 8080
# Liveness: /healthz answers while the process serves (never depends on the database). Node's
# fetch, since the slim image has no curl. Readiness (/readyz) is the orchestrator's probe.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/svc/main.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
