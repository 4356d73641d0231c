from django.core.management.base import BaseCommand, CommandError

from knowledge.selectors import evidence_mismatches


class Command(BaseCommand):
    help = "Re-verify every stored unit's quote against its snapshot text at its offsets."

    def handle(self, *args, **options):
        checked, mismatches = evidence_mismatches()
        for unit_id, reason in mismatches[:50]:
            self.stdout.write(self.style.ERROR(f"  unit {unit_id}: {reason}"))
        share = 100.0 * (checked - len(mismatches)) / checked if checked else 100.0
        self.stdout.write(
            f"{checked} units checked, {len(mismatches)} mismatches ({share:.1f}% verified)"
        )
        if mismatches:
            raise CommandError(f"{len(mismatches)} unit(s) do not match their snapshot")
