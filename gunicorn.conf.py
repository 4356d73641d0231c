"""gunicorn's settings for the API: docker-compose serves with them
(`gunicorn navigator.wsgi:application -c gunicorn.conf.py`) and the search benchmark
measures with them (evaluation.bench.serve), so both run the same number of workers.

WEB_CONCURRENCY sets the number of workers, GUNICORN_BIND the address (a bad value stops
the start, as every other setting does)."""

import os

from navigator.env import env_int, env_str

# Beyond this many workers the default stops growing: 16 workers hold up to 32 database
# sessions, a third of PostgreSQL's default max_connections (100), which leaves room for
# Celery, migrations and an operator's psql; and each worker loads the embedding model.
MAX_DEFAULT_WORKERS = 16


def cores() -> int:
    """The cores this process may run on: a container limited to a CPU set gets its own
    count here, where os.cpu_count() would answer the host's."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def default_workers(core_count: int) -> int:
    """2 × cores + 1, gunicorn's rule of thumb, which fits how a search spends its time: a
    sync worker serves one request at a time and waits for PostgreSQL during its unit and
    concept index scans, so more workers than cores keep every core busy while some wait.
    Each worker holds up to two PostgreSQL sessions (its request connection and the side
    session the concept scan runs in beside the unit scan), so W workers need 2W of
    max_connections: 5 workers and 10 sessions on 2 cores, 9 and 18 on 4, 16 and 32 from
    8 cores up (MAX_DEFAULT_WORKERS). An MCP tool call holds one more while it runs (its
    worker thread's, closed when it ends): 3W at worst, still a half of the default 100."""
    return min(2 * core_count + 1, MAX_DEFAULT_WORKERS)


workers = env_int("WEB_CONCURRENCY", default_workers(cores()), minimum=1)
# Loopback unless told otherwise: docker-compose's web service listens on 0.0.0.0:8000,
# reached only by its proxy on the compose network.
bind = [env_str("GUNICORN_BIND", "127.0.0.1:8000")]


def post_worker_init(worker):
    """Each worker compiles the query vocabulary and loads the tokenizer before it accepts
    a request (navigator.warmup), so no caller's first search pays for them."""
    from navigator.warmup import worker_warm_up

    worker_warm_up()
