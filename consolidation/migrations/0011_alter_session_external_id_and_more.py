"""Session ids are scoped to their user (issue 14).

``Session.external_id`` was one global namespace (``unique=True``): another user's id answered
"belongs to another user", which told the caller that the id exists and let anyone squat on
it. It becomes unique per ``(user, external_id)``; existing rows, unique globally, stay valid.
Dropping the single-column unique index leaves the column's definition, and so its binary
collation (0010), as it is. Reversing restores the global index, which fails once two users
share an id.
"""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('consolidation', '0010_session_external_id_collation'),
        ('profiles', '0010_identifier_collation'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name='session',
            name='external_id',
            field=models.CharField(max_length=128),
        ),
        migrations.AddConstraint(
            model_name='session',
            constraint=models.UniqueConstraint(fields=('user', 'external_id'), name='session_user_external_id_uniq'),
        ),
    ]
