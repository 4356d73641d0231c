from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('knowledge', '0007_superseding_chains'),
    ]

    operations = [
        migrations.AddField(
            model_name='qualityflag',
            name='margin',
            field=models.FloatField(blank=True, help_text='How much closer the suggested concept is (misplaced)', null=True),
        ),
        migrations.AddField(
            model_name='qualityflag',
            name='raised_by',
            field=models.CharField(blank=True, help_text='What raised it: extraction, heuristic, openai', max_length=32),
        ),
    ]
