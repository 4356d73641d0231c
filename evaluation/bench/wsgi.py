"""Navigator's WSGI application as the search benchmark serves it (evaluation.bench.serve
starts gunicorn on it): each benchmark question is answered with its planned vector, with
or without the real model's work first, and the throttle is lifted for the benchmark's
hundreds of calls (each still pays for the throttle's bookkeeping). Never served otherwise."""

import os

import numpy as np
from django.core.wsgi import get_wsgi_application

application = get_wsgi_application()


def _prepare() -> None:
    from evaluation.bench.serve import (
        EMBEDDER_MODE,
        QUESTIONS_FILE,
        EmbedThenLookup,
        LookupEmbedder,
    )
    from knowledge import embeddings
    from knowledge.embeddings import get_embedder
    from knowledge.retrieval import search as search_service
    from navigator.api import api

    questions = np.load(os.environ[QUESTIONS_FILE])
    vectors = dict(zip(questions["texts"].tolist(), questions["vectors"], strict=True))
    lookup = LookupEmbedder(name=str(questions["model"]), vectors=vectors)
    if os.environ[EMBEDDER_MODE] == "model":
        embedder = EmbedThenLookup(real=get_embedder(), lookup=lookup)
        for _ in range(3):  # a model's first calls are far slower; every worker is timed
            embedder.real.embed(["How much is the ISA allowance?"])
    else:
        embedder = lookup
    # The names concept_search and the question search's embedding (query_vectors) call.
    search_service.get_embedder = embeddings.get_embedder = lambda: embedder
    embeddings.QUERY_VECTORS_HELD = 0  # each question's embedding is timed, none held
    throttles = api.throttle if isinstance(api.throttle, list) else [api.throttle]
    for throttle in throttles:
        throttle.num_requests = 10**9


_prepare()
