from pathlib import Path

from knowledge.management.commands.load_taxonomy import Command as LoadTaxonomy


class Command(LoadTaxonomy):
    help = (
        "Import a taxonomy file written by export_taxonomy (YAML or JSON) with the rules of "
        "load_taxonomy: creates what the database lacks, keeps what it holds, lists where "
        "they differ; a round trip changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument("--dry-run", action="store_true", help="report, change nothing")
