# Build: better-sqlite3 compiles from source, so the build stage has the toolchain.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production APP_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/policy ./policy
# The embedded store's files, when the image runs without KurrentDB/MongoDB.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME /app/data
USER node
EXPOSE 3000
# The V8 flags of package.json's start:prod (see docs/decisions.md, "A young generation of up to 64 MiB").
CMD ["node", "--max-semi-space-size=64", "dist/apps/api/main.js"]
