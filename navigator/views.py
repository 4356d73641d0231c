from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from knowledge.selectors import knowledge_base_counts


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "navigator/home.html", {"counts": knowledge_base_counts()})
