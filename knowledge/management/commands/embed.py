from django.core.management.base import BaseCommand
from tqdm import tqdm

from knowledge.embeddings import get_embedder
from knowledge.models import AtomicUnit, Concept
from knowledge.services.embed import concepts_embed, units_embed


class Command(BaseCommand):
    help = "Embed concepts and units whose text or model changed (batched, with a progress bar)."

    def handle(self, *args, **options):
        embedder = get_embedder()
        self.stdout.write(f"embedding model: {embedder.name}")
        with tqdm(total=Concept.objects.count(), unit="concept", file=self.stderr._out) as bar:
            concepts = concepts_embed(progress=bar.update)
        with tqdm(
            total=AtomicUnit.objects.alive().count(), unit="unit", file=self.stderr._out
        ) as bar:
            units = units_embed(progress=bar.update)
        self.stdout.write(f"embedded {concepts} concepts and {units} units (the rest were current)")
