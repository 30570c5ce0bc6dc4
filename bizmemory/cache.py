"""The database cache (``CACHE=database``): Django's, with ``incr``/``decr`` atomic across processes.

Django's ``DatabaseCache.incr`` reads the value and writes it back (``BaseCache.incr``): two
processes counting the same key at once both read 5 and both write 6, and a rate limit counted
that way lets more requests through than it allows. Here the read and the write share one
transaction that locks the row: ``SELECT … FOR UPDATE`` on PostgreSQL and MariaDB, and on SQLite
the write lock that ``BEGIN IMMEDIATE`` takes at the start of every transaction (settings.py sets
``transaction_mode``). A conditional ``UPDATE … WHERE value = old`` would not do: the stored value
is base64 text, which MariaDB's default collation compares case-insensitively.

The table is ``bizmemory.conf.CACHE_TABLE``, created by migration ``bizmemory.0001``
(``createcachetable``), so ``migrate`` is the only set-up step.
"""

from __future__ import annotations

import base64
import pickle

from django.core.cache.backends.db import DatabaseCache as DjangoDatabaseCache
from django.db import connections, router, transaction
from django.utils import timezone


class DatabaseCache(DjangoDatabaseCache):
    """``django.core.cache.backends.db.DatabaseCache`` whose ``incr`` (and so ``decr``) is one locked
    read-modify-write. Raises ``ValueError`` for a missing or expired key, as Django's does."""

    def incr(self, key, delta=1, version=None):
        key = self.make_and_validate_key(key, version=version)
        db = router.db_for_write(self.cache_model_class)
        connection = connections[db]
        table = connection.ops.quote_name(self._table)
        lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
        now = timezone.now().replace(microsecond=0)
        with transaction.atomic(using=db), connection.cursor() as cursor:
            cursor.execute(
                f"SELECT value FROM {table} WHERE cache_key = %s AND expires > %s{lock}",
                [key, connection.ops.adapt_datetimefield_value(now)],
            )
            row = cursor.fetchone()
            if row is None:
                raise ValueError(f"Key '{key}' not found.")
            value = pickle.loads(base64.b64decode(connection.ops.process_clob(row[0]).encode())) + delta
            encoded = base64.b64encode(pickle.dumps(value, self.pickle_protocol)).decode("latin1")
            cursor.execute(f"UPDATE {table} SET value = %s WHERE cache_key = %s", [encoded, key])
        return value
