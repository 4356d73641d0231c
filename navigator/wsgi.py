import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "navigator.settings")
application = get_wsgi_application()


def _warm() -> None:
    from django.conf import settings

    from navigator.services import embedder_warm

    if settings.EMBEDDINGS_WARM_ON_START:
        embedder_warm()  # before the first request, not during it


_warm()
