import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "navigator.settings")

app = Celery("navigator")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect(dispatch_uid="navigator.warm_embedder")
def _warm_embedder(**kwargs) -> None:
    """Each worker process loads the embedding model as it starts, not in its first task."""
    from django.conf import settings

    from navigator.services import embedder_warm

    if settings.EMBEDDINGS_WARM_ON_START:
        embedder_warm()
