# Production image for web, worker and beat (docker-compose.yml).
FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY navigator ./navigator
COPY knowledge ./knowledge
COPY curation ./curation
RUN pip install --no-cache-dir .
COPY . .
RUN useradd --create-home navigator && chown -R navigator /app
USER navigator
EXPOSE 8000
