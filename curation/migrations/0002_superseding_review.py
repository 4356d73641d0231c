import django.db.models.deletion
import django.db.models.functions.comparison
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('curation', '0001_roles'),
        ('knowledge', '0007_superseding_chains'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='DetectionRun',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('running', 'Running'), ('done', 'Done'), ('failed', 'Failed')], default='running', max_length=16)),
                ('provider', models.CharField(max_length=32)),
                ('provider_model', models.CharField(blank=True, max_length=100)),
                ('concepts_checked', models.PositiveIntegerField(default=0)),
                ('new_units', models.PositiveIntegerField(default=0)),
                ('pairs_considered', models.PositiveIntegerField(default=0)),
                ('pairs_known', models.PositiveIntegerField(default=0, help_text='Already proposed or decided')),
                ('dropped_duplicates', models.PositiveIntegerField(default=0)),
                ('below_cosine', models.PositiveIntegerField(default=0)),
                ('order_undecidable', models.PositiveIntegerField(default=0)),
                ('adjudicated_not_same', models.PositiveIntegerField(default=0)),
                ('proposed', models.PositiveIntegerField(default=0)),
                ('adjudication_errors', models.PositiveIntegerField(default=0)),
                ('prompt_tokens', models.PositiveIntegerField(default=0)),
                ('completion_tokens', models.PositiveIntegerField(default=0)),
                ('error', models.TextField(blank=True)),
                ('started_at', models.DateTimeField(auto_now_add=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('concept', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='knowledge.concept')),
            ],
            options={
                'ordering': ['-started_at'],
            },
        ),
        migrations.CreateModel(
            name='UnitDetectorCheck',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('run', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='curation.detectionrun')),
                ('unit', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='knowledge.atomicunit')),
            ],
        ),
        migrations.CreateModel(
            name='AuditEvent',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('action', models.CharField(max_length=60)),
                ('target_type', models.CharField(max_length=60)),
                ('target_id', models.BigIntegerField()),
                ('summary', models.TextField()),
                ('note', models.TextField(blank=True)),
                ('before', models.JSONField(default=dict)),
                ('after', models.JSONField(default=dict)),
                ('created_at', models.DateTimeField(auto_now_add=True, db_index=True)),
                ('actor', models.ForeignKey(null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('reverts', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='reverted_by', to='curation.auditevent')),
            ],
            options={
                'ordering': ['-created_at', '-id'],
                'indexes': [models.Index(fields=['target_type', 'target_id'], name='audit_target_idx')],
            },
        ),
        migrations.CreateModel(
            name='SupersedingCandidate',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('text_similarity', models.FloatField()),
                ('cosine', models.FloatField()),
                ('same_rule', models.BooleanField(help_text="The adjudicator's verdict")),
                ('confidence', models.FloatField()),
                ('rationale', models.TextField()),
                ('adjudicator', models.CharField(help_text='heuristic or openai', max_length=32)),
                ('adjudicator_model', models.CharField(blank=True, max_length=100)),
                ('newer_basis', models.CharField(help_text='What decided which unit is newer (validity, snapshot date)', max_length=40)),
                ('status', models.CharField(choices=[('pending', 'Pending'), ('approved', 'Approved'), ('rejected', 'Rejected'), ('flagged_for_deletion', 'Flagged for deletion')], default='pending', max_length=24)),
                ('decided_at', models.DateTimeField(blank=True, null=True)),
                ('note', models.TextField(blank=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('concept', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='knowledge.concept')),
                ('newer', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='knowledge.atomicunit')),
                ('older', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to='knowledge.atomicunit')),
                ('reviewer', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('run', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='candidates', to='curation.detectionrun')),
            ],
            options={
                'ordering': ['-confidence', 'id'],
                'permissions': [('decide_supersedingcandidate', 'Can decide superseding candidates')],
                'indexes': [models.Index(fields=['status', 'concept'], name='candidate_status_idx')],
                'constraints': [models.UniqueConstraint(django.db.models.functions.comparison.Least('older', 'newer'), django.db.models.functions.comparison.Greatest('older', 'newer'), name='candidate_pair_once'), models.CheckConstraint(condition=models.Q(('older', models.F('newer')), _negated=True), name='candidate_two_units'), models.CheckConstraint(condition=models.Q(models.Q(('decided_at__isnull', True), ('status', 'pending')), models.Q(models.Q(('status', 'pending'), _negated=True), ('decided_at__isnull', False)), _connector='OR'), name='candidate_decided_has_time'), models.CheckConstraint(condition=models.Q(('confidence__gte', 0), ('confidence__lte', 1)), name='candidate_confidence_0_1')],
            },
        ),
    ]
