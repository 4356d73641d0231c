import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "navigator.settings")

app = Celery("navigator")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
