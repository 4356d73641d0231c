from django.contrib.auth.management import create_permissions
from django.db import migrations


def create_role_groups(apps, schema_editor):
    from curation.roles import sync_role_groups

    # Permissions are normally created after all migrations; make them exist now so the
    # groups get them on the first migrate.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    sync_role_groups(apps)


def remove_role_groups(apps, schema_editor):
    from curation.roles import ROLE_PERMISSIONS

    apps.get_model("auth", "Group").objects.filter(name__in=list(ROLE_PERMISSIONS)).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("knowledge", "0002_snapshot_immutable"),
    ]

    operations = [migrations.RunPython(create_role_groups, remove_role_groups)]
