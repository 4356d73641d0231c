"""What an API worker readies before its first request (gunicorn.conf.py's post_worker_init):
the query vocabulary compiled from the database, the tables' sizes that set the index scans'
ef_search, and the tokenizer that counts a context's tokens, so that no caller's request pays
for them (the first search of a worker spent ~100 ms on them). A database that cannot be
reached yet is no reason not to serve: the first request then compiles the vocabulary as
before."""

from __future__ import annotations

import logging

from django.db import DatabaseError, connection

logger = logging.getLogger(__name__)


def worker_warm_up() -> None:
    from knowledge.embeddings import count_tokens
    from knowledge.query.vocabulary import query_vocabulary
    from knowledge.retrieval.sql import concept_ef_search, unit_ef_search

    count_tokens("How much can I save in an ISA?")
    try:
        query_vocabulary()
        unit_ef_search()
        concept_ef_search()
    except DatabaseError as exc:
        logger.warning("worker warm-up: the query vocabulary waits for the first request (%s)", exc)
    finally:
        connection.close()  # the request cycle opens and checks its own
