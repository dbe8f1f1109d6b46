# syntax=docker/dockerfile:1
# Three stages: full install + build, production-only install, and a slim runtime that gets the
# compiled output (dist/, dist/web, the simulator package's dist/) and the production node_modules. better-sqlite3 compiles from
# source, so the two install stages carry a C++ toolchain that the runtime image does not.

FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# The simulator workspace's manifest: npm ci links the package (serve's warm-up and demo import it).
COPY packages/simulator/package.json ./packages/simulator/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY packages/simulator ./packages/simulator
COPY src ./src
COPY web ./web
COPY catalog ./catalog
RUN npm run build

FROM node:20-bookworm-slim AS production-dependencies
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY packages/simulator/package.json ./packages/simulator/
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_URL=sqlite:/data/switchyard.db
WORKDIR /app
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/packages/simulator/package.json ./packages/simulator/
COPY --from=build /app/packages/simulator/dist ./packages/simulator/dist
COPY package.json ./
COPY bin ./bin
COPY scripts/ensure-build.mjs ./scripts/ensure-build.mjs
COPY catalog ./catalog
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "bin/switchyard.js", "serve"]
