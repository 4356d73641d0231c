"""The taxonomy in the admin: categories, concepts and their aliases."""

from django.contrib import admin
from django.db.models import Count

from knowledge.admin.base import SuperuserEditsOnly
from knowledge.models import (
    Category,
    Concept,
    ConceptAlias,
)


@admin.register(Category)
class CategoryAdmin(SuperuserEditsOnly, admin.ModelAdmin):
    list_display = ["order", "name", "slug", "concept_count"]
    list_display_links = ["name"]
    search_fields = ["name", "slug", "description"]
    readonly_fields = ["created_at", "updated_at"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(concept_count=Count("concepts"))

    @admin.display(description="concepts", ordering="concept_count")
    def concept_count(self, obj):
        return obj.concept_count


class ConceptAliasInline(SuperuserEditsOnly, admin.TabularInline):
    model = ConceptAlias
    extra = 0
    readonly_fields = ["created_at"]


@admin.register(Concept)
class ConceptAdmin(SuperuserEditsOnly, admin.ModelAdmin):
    list_display = ["taxonomy_id", "name", "category", "status", "unit_count"]
    list_filter = ["category", "status"]
    search_fields = ["taxonomy_id", "name", "description", "aliases__alias"]
    list_select_related = ["category"]
    exclude = ["embedding"]
    readonly_fields = ["embedding_model", "embedding_text_hash", "created_at", "updated_at"]
    inlines = [ConceptAliasInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(unit_count=Count("units"))

    @admin.display(description="units", ordering="unit_count")
    def unit_count(self, obj):
        return obj.unit_count


@admin.register(ConceptAlias)
class ConceptAliasAdmin(SuperuserEditsOnly, admin.ModelAdmin):
    list_display = ["alias", "concept", "created_at"]
    search_fields = ["alias", "concept__taxonomy_id"]
    autocomplete_fields = ["concept"]
