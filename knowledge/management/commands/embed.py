from django.core.management.base import BaseCommand
from tqdm import tqdm

from knowledge.embeddings import get_embedder
from knowledge.models import AtomicUnit, Concept
from knowledge.services.embed import concepts_embed, concepts_to_embed, units_embed, units_to_embed


class Command(BaseCommand):
    help = "Embed concepts and units whose text or model changed (batched, with a progress bar)."

    def handle(self, *args, **options):
        self.stdout.write(f"embedding model: {get_embedder().name}")
        self._embed("concept", Concept.objects.count(), concepts_to_embed(), concepts_embed)
        self._embed("unit", AtomicUnit.objects.alive().count(), units_to_embed(), units_embed)

    def _embed(self, noun: str, total: int, pending: list, embed) -> None:
        if not pending:
            self.stdout.write(f"all {total} {noun}s already embedded; nothing to do")
            return
        with tqdm(total=len(pending), unit=noun, file=self.stderr._out) as bar:
            embed(pending=pending, progress=bar.update)
        current = total - len(pending)
        self.stdout.write(f"embedded {len(pending)} {noun}s ({current} were already embedded)")
