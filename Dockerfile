# doko service image: used by compose.yaml (docker compose up).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY domain domain
COPY infra infra
COPY service service
RUN pip install --no-cache-dir .
EXPOSE 8000
CMD ["doko", "serve", "--host", "0.0.0.0", "--port", "8000"]
