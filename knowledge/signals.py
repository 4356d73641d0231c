"""Signals knowledge sends so that other apps can react without knowledge importing them.

`units_embedded(sender, count)`: sent by the `embed_units` task (the pipeline's last step
after extraction) once it has stored `count` new or changed unit vectors. Curation listens
and queues the superseding detector.

`units_retired(sender, run_id, before, after)`: sent when extraction again retires machine
units its new run no longer finds, inside its transaction, with the states of every unit it
touched (the audit trail's before/after), so that curation records the decision.
"""

from django.dispatch import Signal

units_embedded = Signal()
units_retired = Signal()
