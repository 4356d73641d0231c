"""Embedding skips unchanged text, and a change of text or model embeds again."""

from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from knowledge import embeddings
from knowledge.models import AtomicUnit
from knowledge.services import embed
from tests.factories import ConceptFactory, UnitFactory

pytestmark = pytest.mark.django_db


class CountingEmbedder:
    def __init__(self, name="counting"):
        self.name, self.texts = name, []

    def embed(self, texts):
        self.texts.extend(texts)
        return np.full(
            (len(texts), embeddings.DIMENSIONS),
            1 / np.sqrt(embeddings.DIMENSIONS),
            dtype=np.float32,
        )


@pytest.fixture
def counting(monkeypatch):
    embedder = CountingEmbedder()
    monkeypatch.setattr(embed, "get_embedder", lambda: embedder)
    return embedder


def test_unchanged_units_and_concepts_are_not_embedded_again(counting):
    unit = UnitFactory(concept=ConceptFactory(name="ISA allowance"))
    assert embed.units_embed() == 1 and embed.concepts_embed() == 1
    assert embed.units_embed() == 0 and embed.concepts_embed() == 0
    AtomicUnit.objects.filter(pk=unit.pk).update(text="The ISA allowance is £20,000 a year.")
    assert embed.units_embed() == 1
    assert counting.texts[-1] == "ISA allowance: The ISA allowance is £20,000 a year."


def test_a_new_model_embeds_everything_again(counting, monkeypatch):
    UnitFactory()
    embed.units_embed()
    monkeypatch.setattr(embed, "get_embedder", lambda: CountingEmbedder(name="another-model"))
    assert embed.units_embed() == 1
    assert AtomicUnit.objects.get().embedding_model == "another-model"


def embed_command() -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("embed", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_command_says_when_there_is_nothing_to_embed(counting):
    for _ in range(2):
        UnitFactory(concept=ConceptFactory())
    embed_command()
    out, err = embed_command()
    assert "all 2 concepts already embedded; nothing to do" in out
    assert "all 2 units already embedded; nothing to do" in out
    assert "0/" not in err  # no empty progress bar


def test_the_command_counts_only_what_it_embeds(counting):
    for _ in range(2):
        UnitFactory(concept=ConceptFactory())
    embed.concepts_embed()
    AtomicUnit.objects.filter(pk=AtomicUnit.objects.first().pk).update(text="Changed.")
    embed.units_embed()
    AtomicUnit.objects.filter(pk=AtomicUnit.objects.first().pk).update(text="Changed again.")
    out, err = embed_command()
    assert "all 2 concepts already embedded; nothing to do" in out
    assert "embedded 1 units (1 were already embedded)" in out
    assert "1/1" in err and "/2" not in err


def test_local_model_gives_normalised_384_dimensional_vectors():
    vectors = embeddings.LocalEmbedder().embed(["ISA allowance", "Child Benefit rates"])
    assert vectors.shape == (2, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) < 0.9


def test_a_few_texts_go_through_onnx_and_equal_the_torch_model_s(settings, tmp_path):
    settings.EMBEDDINGS_ONNX_DIR = tmp_path / "models"
    embedder = embeddings.LocalEmbedder()
    long_text = "Your Personal Allowance goes down by £1 for every £2 of income. " * 40
    texts = ["ISA allowance", "Child Benefit was £20.50 a week for your eldest child.", long_text]
    few = embedder.embed(texts)  # ONNX Runtime, exported into the folder
    assert len(texts * 11) > embeddings.FEW_TEXTS
    batch = embedder.embed(texts * 11)  # more than FEW_TEXTS: the torch model
    assert embedder._few is not None and embedder._few is not False
    assert list((tmp_path / "models").glob("*.onnx")) and not list(
        (tmp_path / "models").glob("*.partial")
    )
    assert few.shape == (3, 384) and few.dtype == np.float32
    # The same tokens (truncated at 256), pooling and normalisation: the same vectors.
    assert np.allclose(few, batch[:3], atol=1e-5)


def test_few_texts_fall_back_to_torch_where_no_onnx_model_can_be_written(
    settings, tmp_path, caplog
):
    (tmp_path / "models").write_text("a file, not a folder")
    settings.EMBEDDINGS_ONNX_DIR = tmp_path / "models"
    embedder = embeddings.LocalEmbedder()
    vectors = embedder.embed(["ISA allowance"])
    assert vectors.shape == (1, 384)
    assert embedder._few is False
    assert "few texts are embedded by torch" in caplog.text


def test_token_counts_from_cached_words_equal_the_tokenizer_s(monkeypatch):
    from knowledge import embeddings

    texts = [
        "- You can save up to £20,000 (valid 2024-04-06 to now) [historical on 2025-01-01]",
        "Source: https://www.gov.uk/individual-savings-accounts/how-isas-work",
        "naïve café — “quotes”, ½ and 10%… tax-free; Married Couple's Allowance",
        "",
        "   spaces   and\ttabs\nnewlines   ",
    ]
    expected = [embeddings.count_tokens(text) for text in texts]
    assert embeddings.count_tokens_each(texts) == expected
    monkeypatch.setattr(embeddings, "_WORD_CACHE_LIMIT", 3)  # forces the cache to refill
    assert embeddings.count_tokens_each(texts) == expected


def test_query_vectors_embed_each_new_text_once_in_one_call(monkeypatch):
    from knowledge import embeddings

    calls = []

    class Recording:
        name = "recording-model"

        def embed(self, texts):
            calls.append(list(texts))
            return np.stack([np.full(embeddings.DIMENSIONS, len(t), np.float32) for t in texts])

    monkeypatch.setattr(embeddings, "get_embedder", lambda: Recording())
    first = embeddings.query_vectors(["ab", "abc", "ab"])
    again = embeddings.query_vectors(["abc", "abcd"])
    assert calls == [["ab", "abc"], ["abcd"]]  # one batch per call, known texts not again
    assert [row[0] for row in first] == [2, 3, 2] and [row[0] for row in again] == [3, 4]
    monkeypatch.setattr(embeddings, "QUERY_VECTORS_HELD", 1)
    embeddings.query_vectors(["x"])  # holds only the newest now
    embeddings.query_vectors(["abcd"])
    assert calls[-1] == ["abcd"]
