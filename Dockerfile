# Production image: builds the app and runs `node --max-semi-space-size=16 build/node/server.js` (no Docker engine runs on our
# build machines, so this file is exercised by its commands, which CI runs natively).
#   docker build -t lead-capture .
#   docker run --rm -e DATABASE_URL=postgresql://... lead-capture node --import tsx scripts/prisma.ts migrate deploy
#   docker run -p 3000:3000 -e SESSION_SECRET=... -e DATABASE_URL=postgresql://... lead-capture
FROM node:24-bookworm-slim
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY . .
# The Prisma CLI (a dev dependency) stays in the image: it applies migrations.
RUN npm install --no-audit --no-fund && npm run build && mkdir -p data && chown -R node:node data
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--max-semi-space-size=16", "build/node/server.js"]
