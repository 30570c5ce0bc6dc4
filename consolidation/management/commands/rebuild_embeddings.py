"""``python manage.py rebuild_embeddings [--batch N] [--sessions]`` — re-embed after a model change.

Re-embeds, in batches of ``--batch`` chunks (each batch one transaction, so an
interrupted run resumes where it stopped), every vector whose ``model``/``dim``
differ from the configured embedder (``BIZMEMORY_EMBEDDER``), then indexes items
(and with ``--sessions`` messages) that have no vector yet, and writes the lexical
postings of chunks that have none (indexed before migration 0007; search would
otherwise build them on the user's next query). Prints progress to stderr.
"""

import sys

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction
from django.db.models import Q
from tqdm import tqdm

from profiles.embeddings import get_embedder, to_bytes
from profiles.models import MemoryVector, VectorSource
from profiles.search import _pg_store, _postings_backfill, memory_index_refresh
from consolidation.session_index import session_index_refresh


class Command(BaseCommand):
    help = "Re-embed search vectors made by another embedder model, then index anything missing."

    def add_arguments(self, parser):
        parser.add_argument("--batch", type=int, default=256, help="chunks per transaction (default 256)")
        parser.add_argument("--sessions", action="store_true", help="also index past session messages")

    def handle(self, *args, **opts):
        emb = get_embedder()
        emb.embed(["warm-up"])  # learn dim for endpoints that report it only in replies
        stale = MemoryVector.objects.filter(~Q(model=emb.name) | ~Q(dim=emb.dim))
        total = stale.count()
        done = 0
        with tqdm(total=total, desc="re-embed", file=sys.stderr, disable=not total) as bar:
            while True:
                batch = list(stale.order_by("id").only("id", "text")[: opts["batch"]])
                if not batch:
                    break
                vecs = emb.embed([v.text for v in batch])
                with transaction.atomic():
                    for v, row in zip(batch, vecs):
                        v.model, v.dim, v.embedding = emb.name, emb.dim, to_bytes(row)
                        v.save(update_fields=["model", "dim", "embedding"])
                    _pg_store(batch)
                done += len(batch)
                bar.update(len(batch))
        added = 0
        users = get_user_model().objects.order_by("pk").values_list("pk", flat=True)
        for user_id in tqdm(users, desc="index", file=sys.stderr):
            added += memory_index_refresh(user_id=user_id).added
            if opts["sessions"]:
                added += session_index_refresh(user_id=user_id, batch=opts["batch"])
            for source in VectorSource.values:
                _postings_backfill(user_id, source)
        self.stdout.write(f"re-embedded {done} vectors with {emb.name} ({emb.dim} dims); indexed {added} new chunks")
