import statistics

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from knowledge.embeddings import count_tokens
from knowledge.models import ExtractionRun, PageSnapshot
from knowledge.providers import PageContext
from knowledge.providers.prompts import context_prompt, units_prompt
from knowledge.services.extract import model_prices, page_input, taxonomy_for_extraction


class Command(BaseCommand):
    help = (
        "Count, offline, the prompt tokens the openai provider would send per page (pass 1 + "
        "pass 2, with the real prompt files) and estimate the cost of extracting every snapshot."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--output-ratio",
            type=float,
            default=0.25,
            help="assumed completion tokens per prompt token for pass 2",
        )

    def handle(self, *args, output_ratio, **options):
        categories, concepts = taxonomy_for_extraction()
        snapshots = list(PageSnapshot.objects.select_related("source"))
        if not snapshots:
            raise CommandError("no snapshots: ingest first")
        pass1, pass2 = [], []
        for snapshot in snapshots:
            page = page_input(snapshot)
            pass1.append(count_tokens(context_prompt(page=page, categories=categories)))
            context = self._context(snapshot)
            wanted = {context.category, *context.related_categories}
            listed = [c for c in concepts if c.category in wanted]
            pass2.append(count_tokens(units_prompt(page=page, context=context, concepts=listed)))
        self._report(pass1, pass2, output_ratio)

    def _context(self, snapshot) -> PageContext:
        """The page context found by an earlier run (any provider), else its biggest guess."""
        run = ExtractionRun.objects.filter(snapshot=snapshot).exclude(context={}).first()
        if run is not None:
            return PageContext.model_validate(run.context)
        return PageContext(
            domain="", audience="", period=None, category="income_tax", related_categories=[]
        )

    def _report(self, pass1, pass2, output_ratio):
        per_page = [a + b for a, b in zip(pass1, pass2, strict=True)]
        model = settings.LLM_MODEL_EXTRACT
        prices = model_prices(model)
        prompt_total = sum(per_page)
        completion_total = sum(pass2) * output_ratio
        cost = (
            prompt_total * prices.get("input", 0) + completion_total * prices.get("output", 0)
        ) / 1e6
        self.stdout.write(
            f"{len(per_page)} pages; tokens counted with the MiniLM WordPiece tokenizer (offline estimate)"
        )
        for name, values in (("pass 1", pass1), ("pass 2", pass2), ("both", per_page)):
            self.stdout.write(
                f"  {name:<7} median {statistics.median(values):>7.0f}  mean {statistics.mean(values):>7.0f}  "
                f"max {max(values):>7}  total {sum(values):>9}"
            )
        self.stdout.write(
            f"estimated cost with {model}: ${cost:.4f} for all pages "
            f"({prompt_total} prompt + ~{completion_total:.0f} completion tokens at {output_ratio:.2f}× pass 2)"
        )
