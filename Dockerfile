# Production image: gunicorn + gevent (see docs/architecture.md for why).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PORT=8080 TABLEMATE_WEB_DIR=/app/web
WORKDIR /app

COPY pyproject.toml README.md ./
COPY engines ./engines
COPY server ./server
RUN pip install --no-cache-dir .

COPY web ./web

RUN useradd --system --uid 10001 tablemate
USER tablemate
EXPOSE 8080
CMD ["gunicorn", "-c", "server/gunicorn_conf.py", "server:create_app()"]
