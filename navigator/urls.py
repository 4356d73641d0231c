from django.contrib import admin
from django.urls import include, path

from navigator import views
from navigator.api import api
from navigator.mcp import mcp_endpoint

admin.site.site_header = "Navigator administration"
admin.site.site_title = "Navigator"
admin.site.index_title = "Knowledge base and curation"
handler403 = views.permission_denied

urlpatterns = [
    path("", views.home, name="home"),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("mcp", mcp_endpoint, name="mcp"),
    path("curation/", include("curation.urls")),
]
