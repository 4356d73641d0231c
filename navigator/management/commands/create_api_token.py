from django.core.management.base import BaseCommand, CommandError

from navigator.services import api_token_create


class Command(BaseCommand):
    help = "Create an API token for a downstream app and print it once (only its hash is stored)."

    def add_arguments(self, parser):
        parser.add_argument("name", help="who the token is for, e.g. 'chat-assistant'")

    def handle(self, *args, name: str, **options):
        try:
            token, raw = api_token_create(name=name)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"API token for {token.name} (copy it now, it is not shown again):")
        self.stdout.write(raw)
