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
RUN npm run build && npm prune --omit=dev

# Run: no compilers, no sources, an unprivileged user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY studio-ui ./studio-ui
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
ENTRYPOINT ["node", "dist/src/main.js"]
CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]
