from django.core.management.base import BaseCommand, CommandError

from curation.services.bootstrap import BootstrapRefused, concepts_bootstrap


class Command(BaseCommand):
    help = (
        "Bootstrap mode: propose concepts for a category from its pages (heuristic: recurring "
        "section headings and phrases, no LLM; openai: one request with the pages' headings "
        "and opening text), as `proposed` concepts for editors to approve."
    )

    def add_arguments(self, parser):
        parser.add_argument("category", help="category slug")
        parser.add_argument(
            "--pages",
            nargs="+",
            metavar="URL_PREFIX",
            help="the category's pages (default: pages extraction placed in it)",
        )
        parser.add_argument("--prefix", help="first segment of the proposed ids")
        parser.add_argument("--limit", type=int, default=15)
        parser.add_argument("--dry-run", action="store_true")
        parser.add_argument(
            "--provider",
            choices=["heuristic", "openai"],
            default=None,
            help="default: heuristic (offline), whatever LLM_PROVIDER says",
        )

    def handle(self, *args, category, pages, prefix, limit, dry_run, provider, **options):
        try:
            report = concepts_bootstrap(
                category_slug=category,
                prefix=prefix,
                url_prefixes=pages,
                limit=limit,
                dry_run=dry_run,
                provider=provider,
            )
        except BootstrapRefused as exc:
            raise CommandError(str(exc)) from exc
        for taxonomy_id in report.proposed:
            self.stdout.write(f"  proposed {taxonomy_id}")
        for taxonomy_id in report.existing:
            self.stdout.write(f"  exists   {taxonomy_id}")
        for rejection in report.rejected:
            self.stdout.write(f"  dropped  {rejection}")
        read = (
            f", {report.pages_read} read by the LLM" if 0 < report.pages_read < report.pages else ""
        )
        self.stdout.write(
            f"{'[dry run] ' if dry_run else ''}{len(report.proposed)} concepts proposed from "
            f"{report.pages} pages{read} ({report.provider}); approve them in the taxonomy "
            f"screen, then run `python manage.py reextract_category {category}`"
        )
        if report.rejected:
            self.stdout.write(
                self.style.WARNING(
                    f"{len(report.rejected)} proposal(s) of the LLM dropped as unusable (above)"
                )
            )
        if report.prompt_tokens or report.completion_tokens:
            self.stdout.write(
                f"tokens: {report.prompt_tokens} prompt, {report.completion_tokens} completion "
                f"({report.model})"
            )
