from django.core.management.base import BaseCommand
from tqdm import tqdm

from knowledge.models import AtomicUnit
from knowledge.services.applicability import applicability_read_all


class Command(BaseCommand):
    help = (
        "Read who every living unit is for (nations, age and income bounds, circumstances) "
        "from its words, headings and page; units an expert set keep theirs."
    )

    def handle(self, *args, **options):
        pages = AtomicUnit.objects.alive().values("snapshot_id").distinct().count()
        with tqdm(total=pages, unit="page", file=self.stderr._out) as bar:
            changed = applicability_read_all(progress=bar.update)
        self.stdout.write(f"read {pages} page versions; {changed} units' applicability changed")
