"""A web or worker process loads the embedding model as it starts, not on its first search."""

import importlib
import sys

import pytest
from celery.signals import worker_process_init

import navigator.celery  # noqa: F401 - connects the worker's start-up hook
from navigator import services


@pytest.fixture
def warm_ups(monkeypatch):
    calls = []

    class RecordingEmbedder:
        name = "recording"

        def embed(self, texts):
            calls.append(texts)
            return []

    monkeypatch.setattr(services, "get_embedder", lambda: RecordingEmbedder())
    return calls


def test_a_worker_process_warms_the_embedder_as_it_starts(settings, warm_ups):
    settings.EMBEDDINGS_WARM_ON_START = True
    worker_process_init.send(sender=None)
    assert len(warm_ups) == 1


def test_the_web_application_warms_the_embedder_as_it_loads(settings, warm_ups):
    settings.EMBEDDINGS_WARM_ON_START = True
    sys.modules.pop("navigator.wsgi", None)
    importlib.import_module("navigator.wsgi")
    assert len(warm_ups) == 1


def test_warming_is_off_when_the_setting_says_so(settings, warm_ups):
    settings.EMBEDDINGS_WARM_ON_START = False
    worker_process_init.send(sender=None)
    assert warm_ups == []
