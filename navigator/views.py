from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from curation.views.access import admin_page
from knowledge.selectors import knowledge_base_counts


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "navigator/home.html", {"counts": knowledge_base_counts()})


def permission_denied(request: HttpRequest, exception: Exception) -> HttpResponse:
    """Every PermissionDenied, DEBUG or not: the refusal's reason (a curation check names the
    roles that may) in the admin's layout, with the way back to the screens one may open."""
    user = request.user
    roles = list(user.groups.values_list("name", flat=True)) if user.is_authenticated else []
    context = admin_page(request, "Not open to you", reason=str(exception), roles=roles)
    return render(request, "403.html", context, status=403)
