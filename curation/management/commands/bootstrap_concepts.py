from django.core.management.base import BaseCommand, CommandError

from curation.bootstrap import BootstrapRefused, concepts_bootstrap


class Command(BaseCommand):
    help = (
        "Bootstrap mode: propose concepts for a category from its pages (heuristic: recurring "
        "section headings and phrases, no LLM), as `proposed` concepts for editors to approve."
    )

    def add_arguments(self, parser):
        parser.add_argument("category", help="category slug")
        parser.add_argument("--pages", nargs="+", metavar="URL_PREFIX",
                            help="the category's pages (default: pages extraction placed in it)")  # fmt: skip
        parser.add_argument("--prefix", help="first segment of the proposed ids")
        parser.add_argument("--limit", type=int, default=15)
        parser.add_argument("--dry-run", action="store_true")

    def handle(self, *args, category, pages, prefix, limit, dry_run, **options):
        try:
            report = concepts_bootstrap(category_slug=category, prefix=prefix, url_prefixes=pages,
                                        limit=limit, dry_run=dry_run)  # fmt: skip
        except BootstrapRefused as exc:
            raise CommandError(str(exc)) from exc
        for taxonomy_id in report.proposed:
            self.stdout.write(f"  proposed {taxonomy_id}")
        for taxonomy_id in report.existing:
            self.stdout.write(f"  exists   {taxonomy_id}")
        self.stdout.write(
            f"{'[dry run] ' if dry_run else ''}{len(report.proposed)} concepts proposed from "
            f"{report.pages} pages (heuristic); approve them in the taxonomy screen, then run "
            f"`python manage.py reextract_category {category}`"
        )
