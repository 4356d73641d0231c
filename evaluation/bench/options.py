"""What a search benchmark run is asked for, and how it reports progress."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Progress = Callable[[str], None]


@dataclass(frozen=True)
class BenchOptions:
    queries: int = 200
    repeats: int = 3
    embedded_queries: int = 50
    seed: int = 0
    maintenance_work_mem: str = "2GB"
    vectors: str = "isotropic"
    recall_ef: tuple[int, ...] = ()  # ef_search values for recall; () is the setting's alone
    concurrency: tuple[int, ...] = ()  # clients at once, one level each; () runs none
