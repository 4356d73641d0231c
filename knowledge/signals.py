"""Signals knowledge sends so that other apps can react without knowledge importing them.

`units_embedded(sender, count)`: sent by the `embed_units` task (the pipeline's last step
after extraction) once it has stored `count` new or changed unit vectors. Curation listens
and queues the superseding detector.
"""

from django.dispatch import Signal

units_embedded = Signal()
