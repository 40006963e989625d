# Production image: gunicorn + gevent (see docs/architecture.md for why).

# The web bundles (scripts/build-web.sh: esbuild, with @noble/hashes, from package-lock.json), built
# in a stage of their own: the image itself carries no node.
FROM node:20-slim AS web
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY scripts/build-web.sh scripts/build-web.mjs ./scripts/
COPY web ./web
RUN bash scripts/build-web.sh /src/build/web

FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PORT=8080 TABLEMATE_WEB_DIR=/app/web \
    TABLEMATE_BUILD_DIR=/app/build/web
WORKDIR /app

COPY pyproject.toml README.md ./
COPY engines ./engines
COPY server ./server
COPY tablemate_verify ./tablemate_verify
RUN pip install --no-cache-dir .

COPY web ./web
# Used while it matches web/ above (same sources: the same COPY of one context).
COPY --from=web /src/build/web ./build/web

RUN useradd --system --uid 10001 tablemate
USER tablemate
EXPOSE 8080
CMD ["gunicorn", "-c", "server/gunicorn_conf.py", "server:create_app()"]
