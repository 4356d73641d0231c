"""The knowledge base in the Django admin, one module a family of models (as knowledge.models):
importing them registers their ModelAdmins."""

from knowledge.admin import jobs, sources, taxonomy, units  # noqa: F401 - they register
from knowledge.admin.base import ReadOnlyAdmin, SuperuserEditsOnly, ViewOnlyAdmin

__all__ = ["ReadOnlyAdmin", "SuperuserEditsOnly", "ViewOnlyAdmin"]
