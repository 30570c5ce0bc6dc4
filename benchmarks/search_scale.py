#!/usr/bin/env python3
"""Search at scale on PostgreSQL + pgvector: ``memory_search`` latency and the HNSW index vs exact search.

Data (synthetic, generated here; no data set needed): conversation-like chunks, Chinese and English,
from small vocabularies, ``--per-user`` (default 1,000) chunks per user, one session per 100
messages, all within the last 20 days. Sizes ``--sizes`` (default 10,000 and 100,000 session
chunks; ``--full`` adds 1,000,000) are reached in stages in one scratch database
``bizmemory_bench_search``. Embedder: ``hashing`` (256 dims, character n-gram hashing,
``profiles.embeddings.HashingEmbedder``): the default USE model needs ~1 ms per sentence here,
an hour for 1 M chunks, and the latency of a vector query does not depend on who made the vectors.
Rows are written with ``COPY`` (messages, ``MemoryVector`` with its ``embedding_pg`` pgvector
column and ``terms_count``, and the chunks' ``LexicalPosting`` rows as ``profiles.search`` writes
them); the HNSW index of migration 0004 for 256 dims (``memvec_hnsw_256``) is dropped before
loading and rebuilt after each stage (build time reported).

Figures per size N (``size`` field):

- ``memory_search_{p50,p95}_ms`` — ``profiles.search.memory_search(scope="sessions", top_k=10)``
  for random users and queries (hashing query embedding, per-user exact cosine in SQL, CJK-bigram
  BM25 from the inverted index (postings of the query terms only), fusion, decay, outbound PII masking of hits). It filters by user first and does
  NOT use the HNSW index (see ``profiles.search._vector_scores_pg``), so it should stay flat in N;
  baseline ``select_one_chunk``: one indexed SELECT of a chunk's text by primary key;
- ``ann_{p50,p95}_ms`` — a global HNSW query ``ORDER BY embedding_pg::vector(256) <=> q LIMIT 10``
  (``hnsw.ef_search`` 40, pgvector's default) against the baseline ``exact_{p50,p95}_ms`` — the same
  query with index scans off (sequential scan + sort); ``ann_recall_at_10`` = share of the exact top
  10 (ties by distance included) that the HNSW query returned; also ``ann_ef100_recall_at_10``.
- after the largest size, per-user history growth: ``memory_search_user_<P>_{p50,p95}_ms`` for one
  user with P = 100, 1,000 and 10,000 chunks (the postings read grow with the chunks that share a
  query term; before the inverted index BM25 re-tokenised all the user's chunks: p50 581 ms at 10,000).

Output: one JSON line per figure; ``benchmarks/out/search_scale.json`` (the table for the plot);
``{"skipped": ...}`` without PostgreSQL/pgvector.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import OUT, emit, latency_figures, percentile, pg_available, pg_fresh_database, skipped, timed  # noqa: E402

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
DIM = 256
INDEX_SQL = (f"CREATE INDEX memvec_hnsw_{DIM} ON profiles_memoryvector "
             f"USING hnsw ((embedding_pg::vector({DIM})) vector_cosine_ops) WHERE dim = {DIM}")
ANN_SQL = (f"SELECT id, embedding_pg::vector({DIM}) <=> %s::vector({DIM}) FROM profiles_memoryvector WHERE dim = {DIM} "
           f"ORDER BY embedding_pg::vector({DIM}) <=> %s::vector({DIM}) LIMIT 10")

EN = {
    "subj": ["I", "My sister", "My manager", "We", "My son", "Our team", "My friend Tom", "My wife", "Grandma", "The kids"],
    "verb": ["visited", "talked about", "booked", "cooked", "bought", "fixed", "planned", "read about", "watched",
             "painted", "argued about", "signed up for"],
    "obj": ["a trip to Lisbon", "the new laptop", "a vegan lasagna", "the quarterly report", "a marathon",
            "a jazz concert", "the garden fence", "a puppy", "some Python scripts", "the Kyoto temples",
            "a pottery class", "the mortgage", "a camping weekend", "the school play", "a birthday cake",
            "the car insurance", "a chess tournament", "the budget meeting", "a yoga retreat", "the roof leak"],
    "when": ["last weekend", "yesterday", "on Monday", "this morning", "after work", "in March", "during the holidays",
             "two days ago", "on Friday night", "before lunch"],
    "tail": ["and it was great", "but it rained", "with two colleagues", "for the first time", "again",
             "and I loved it", "which took hours", "on a tight budget", "with the neighbours", "and felt tired"],
}
ZH = {
    "subj": ["我", "我妹妹", "我们经理", "我们", "我儿子", "我们团队", "我朋友小王", "我老婆", "奶奶", "孩子们"],
    "verb": ["去了", "聊了", "订了", "做了", "买了", "修了", "计划了", "研究了", "看了", "画了", "讨论了", "报名了"],
    "obj": ["去里斯本的行程", "新笔记本电脑", "素食千层面", "季度报告", "马拉松", "爵士音乐会", "花园的篱笆", "一只小狗",
            "几个Python脚本", "京都的寺庙", "陶艺课", "房贷", "露营周末", "学校的话剧", "生日蛋糕", "车险", "象棋比赛",
            "预算会议", "瑜伽静修", "屋顶漏水"],
    "when": ["上周末", "昨天", "周一", "今天早上", "下班后", "三月份", "假期里", "两天前", "周五晚上", "午饭前"],
    "tail": ["感觉很好", "但是下雨了", "和两个同事一起", "第一次", "又一次", "特别喜欢", "花了好几个小时", "预算很紧",
             "和邻居一起", "有点累"],
}


def chunk_text(rng: random.Random) -> str:
    """One synthetic conversation turn (English or Chinese, 50/50)."""
    if rng.random() < 0.5:
        v = {k: rng.choice(x) for k, x in EN.items()}
        return f"{v['subj']} {v['verb']} {v['obj']} {v['when']} {v['tail']}."
    v = {k: rng.choice(x) for k, x in ZH.items()}
    return f"{v['subj']}{v['when']}{v['verb']}{v['obj']}，{v['tail']}。"


def query_text(rng: random.Random) -> str:
    """A short query over the same vocabulary (what, or what + when)."""
    voc = EN if rng.random() < 0.5 else ZH
    sep = " " if voc is EN else ""
    parts = [rng.choice(voc["obj"])] + ([rng.choice(voc["when"])] if rng.random() < 0.5 else [])
    return sep.join(parts)


def _vec_sql(v: np.ndarray) -> str:
    return "[" + ",".join(f"{x:.7g}" for x in v) + "]"


class Loader:
    """Writes users, sessions, messages and chunks with COPY; ids are assigned here (sequences set after)."""

    def __init__(self, rng: random.Random):
        from django.db import connection

        from profiles.embeddings import HashingEmbedder
        from profiles.services import agent_ensure

        self.rng, self.conn = rng, connection
        self.emb = HashingEmbedder(DIM)
        self.agent = agent_ensure(slug="main", is_entry=True)
        self.next_msg = self.next_vec = 1
        self.users: dict[int, int] = {}  # user id → chunks
        self.pending: tuple[list, list, list] = ([], [], [])
        self.types = {}
        with connection.cursor() as cur:
            cur.execute("SELECT table_name, column_name, udt_name FROM information_schema.columns "
                        "WHERE table_name IN ('profiles_memoryvector', 'consolidation_message', "
                        "'profiles_lexicalposting')")
            for table, column, udt in cur.fetchall():
                self.types[(table, column)] = udt
        connection.ensure_connection()
        from pgvector.psycopg import register_vector

        register_vector(connection.connection)  # numpy arrays → binary pgvector values in COPY

    def add_users(self, count: int, per_user: int, prefix: str) -> list[int]:
        from django.contrib.auth import get_user_model

        from consolidation.models import Session

        User = get_user_model()
        start = len(self.users)
        made = User.objects.bulk_create([User(username=f"{prefix}-{start + i:07d}") for i in range(count)], batch_size=2000)
        ids = [u.pk for u in made]
        per_session = 100
        sessions = []
        for uid in ids:
            for s in range((per_user + per_session - 1) // per_session):
                sessions.append(Session(external_id=f"{prefix}-{uid}-s{s}", user_id=uid, agent=self.agent,
                                        started_at=NOW - dt.timedelta(days=20) + dt.timedelta(hours=s)))
        Session.objects.bulk_create(sessions, batch_size=5000)
        by_user: dict[int, list[int]] = {}
        for s in sessions:
            by_user.setdefault(s.user_id, []).append(s.pk)
        for uid in ids:
            self._chunks(uid, by_user[uid], per_user, per_session)
            self.users[uid] = per_user
        return ids

    def _chunks(self, uid: int, session_ids: list[int], n: int, per_session: int) -> None:
        texts = [chunk_text(self.rng) for _ in range(n)]
        vecs = self.emb.embed(texts)
        from profiles.search import _doc_terms

        msg_rows, vec_rows, post_rows = [], [], []
        for i, (text, v) in enumerate(zip(texts, vecs)):
            at = NOW - dt.timedelta(days=20) + dt.timedelta(minutes=20 * i)
            role = "user" if i % 2 == 0 else "assistant"
            mid, vid = self.next_msg, self.next_vec
            self.next_msg += 1
            self.next_vec += 1
            length, counts = _doc_terms(text)
            msg_rows.append((mid, session_ids[i // per_session], role, text, at))
            vec_rows.append((vid, uid, "message", mid, role, text, at, self.emb.name, DIM,
                             v.astype("<f4").tobytes(), NOW, v, length))
            post_rows.extend((uid, vid, "message", term, tf) for term, tf in counts.items())
        self.pending[0].extend(msg_rows)
        self.pending[1].extend(vec_rows)
        self.pending[2].extend(post_rows)
        if len(self.pending[0]) >= 20000:
            self.flush()

    def flush(self) -> None:
        msgs, vecs, posts = self.pending
        if not msgs:
            return
        with self.conn.cursor() as cur:
            pg = cur.cursor
            for table, cols, rows in (
                ("consolidation_message", ["id", "session_id", "role", "content", "created_at"], msgs),
                ("profiles_memoryvector", ["id", "user_id", "source", "message_id", "kind", "text", "date", "model", "dim",
                                           "embedding", "created_at", "embedding_pg", "terms_count"], vecs),
                ("profiles_lexicalposting", ["user_id", "vector_id", "source", "term", "tf"], posts),
            ):
                with pg.copy(f"COPY {table} ({', '.join(cols)}) FROM STDIN WITH (FORMAT BINARY)") as cp:
                    cp.set_types([self.types[(table, c)] for c in cols])
                    for row in rows:
                        cp.write_row(row)
        self.pending = ([], [], [])

    def finish(self) -> None:
        self.flush()
        with self.conn.cursor() as cur:
            cur.execute("SELECT setval(pg_get_serial_sequence('consolidation_message', 'id'), %s)", [self.next_msg])
            cur.execute("SELECT setval(pg_get_serial_sequence('profiles_memoryvector', 'id'), %s)", [self.next_vec])


def _index_rebuild() -> float:
    from django.db import connection

    t = time.perf_counter()
    with connection.cursor() as cur:
        cur.execute(f"DROP INDEX IF EXISTS memvec_hnsw_{DIM}")
        cur.execute("SET maintenance_work_mem = '1GB'")
        cur.execute("SET max_parallel_maintenance_workers = 1")
        cur.execute(INDEX_SQL)
        cur.execute("ANALYZE profiles_memoryvector")
        cur.execute("ANALYZE profiles_lexicalposting")
        cur.execute("ANALYZE consolidation_message")
    return time.perf_counter() - t


def _ann(q: str, *, exact: bool, ef: int = 40) -> list[tuple[int, float]]:
    from django.db import connection, transaction

    with transaction.atomic(), connection.cursor() as cur:
        cur.execute(f"SET LOCAL hnsw.ef_search = {int(ef)}")
        if exact:
            cur.execute("SET LOCAL enable_indexscan = off")
        cur.execute(ANN_SQL, [q, q])
        return cur.fetchall()


def _recall(ann: list, exact: list) -> float:
    cut = exact[-1][1] + 1e-6  # ties at the 10th distance count as correct
    return min(1.0, sum(1 for _, d in ann if d <= cut) / len(exact))


def _uses_hnsw(q: str) -> bool:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("EXPLAIN " + ANN_SQL, [q, q])
        return any(f"memvec_hnsw_{DIM}" in r[0] for r in cur.fetchall())


def _search_latency(users: list, rng: random.Random, n: int) -> list[float]:
    from profiles.search import memory_search

    pairs = [(rng.choice(users), query_text(rng)) for _ in range(n)]
    memory_search(user=pairs[0][0], agent_slug="main", query=pairs[0][1], scope="sessions", top_k=10, now=NOW)  # warm-up
    return timed(lambda p: memory_search(user=p[0], agent_slug="main", query=p[1], scope="sessions", top_k=10, now=NOW),
                 pairs)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000", help="comma-separated total chunk counts, ascending")
    ap.add_argument("--full", action="store_true", help="add 1,000,000 chunks")
    ap.add_argument("--per-user", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--quick", action="store_true", help="sizes 2,000 and 10,000, 30 queries (smoke run)")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.quick:
        sizes, args.queries = [2000, 10000], 30
    if args.full and 1_000_000 not in sizes:
        sizes.append(1_000_000)
    why = pg_available()
    if why:
        skipped(f"search_scale: {why}")
        return 0
    url = pg_fresh_database("bizmemory_bench_search")
    from common import django_setup

    django_setup(url, BIZMEMORY_EMBEDDER="hashing", BIZMEMORY_MESSAGE_RETENTION_DAYS="36500")
    from django.contrib.auth import get_user_model
    from django.db import connection

    from consolidation.models import Message

    rng = random.Random(9)
    loader = Loader(rng)
    table = []
    for size in sizes:
        with connection.cursor() as cur:  # bulk load first, then build the index (as a real import would)
            cur.execute(f"DROP INDEX IF EXISTS memvec_hnsw_{DIM}")
        t = time.perf_counter()
        need = (size - sum(loader.users.values())) // args.per_user
        loader.add_users(need, args.per_user, "scale")
        loader.finish()
        load_s = time.perf_counter() - t
        build_s = _index_rebuild()
        total = sum(loader.users.values())
        common = {"size": total, "db": "postgresql", "embedder": "hashing-256"}
        emit("search_load_s", load_s, "s", **common)
        emit("hnsw_build_s", build_s, "s", **common)

        users = list(get_user_model().objects.filter(pk__in=list(loader.users)))
        lat = _search_latency(users, rng, args.queries)
        hi = loader.next_vec - 1
        from profiles.models import MemoryVector

        sel = timed(lambda pk: MemoryVector.objects.filter(pk=pk).values_list("text").first(),
                    [rng.randint(1, hi) for _ in range(args.queries)])
        latency_figures("memory_search", lat, base=sel, baseline_name="select_one_chunk", **common)
        latency_figures("select_one_chunk", sel, **common)

        qs = [_vec_sql(v) for v in loader.emb.embed([query_text(rng) for _ in range(args.queries)])]
        if not _uses_hnsw(qs[0]):
            print(json.dumps({"warning": "the planner did not pick the HNSW index", "size": total}), flush=True)
        _ann(qs[0], exact=False)
        ann_res, ann_lat, ex_res, ex_lat, ef100 = [], [], [], [], []
        for q in qs:
            t = time.perf_counter()
            ann_res.append(_ann(q, exact=False))
            ann_lat.append(time.perf_counter() - t)
            t = time.perf_counter()
            ex_res.append(_ann(q, exact=True))
            ex_lat.append(time.perf_counter() - t)
            ef100.append(_ann(q, exact=False, ef=100))
        recall = float(np.mean([_recall(a, e) for a, e in zip(ann_res, ex_res)]))
        recall100 = float(np.mean([_recall(a, e) for a, e in zip(ef100, ex_res)]))
        latency_figures("ann", ann_lat, base=ex_lat, baseline_name="exact", **common)
        latency_figures("exact", ex_lat, **common)
        emit("ann_recall_at_10", recall, "share", baseline=1.0, n=len(qs), baseline_name="exact", ef_search=40, **common)
        emit("ann_ef100_recall_at_10", recall100, "share", baseline=1.0, n=len(qs), baseline_name="exact", ef_search=100,
             **common)
        table.append({"size": total, "memory_search_p50_ms": percentile(lat, 50) * 1000,
                      "memory_search_p95_ms": percentile(lat, 95) * 1000,
                      "ann_p50_ms": percentile(ann_lat, 50) * 1000, "ann_p95_ms": percentile(ann_lat, 95) * 1000,
                      "exact_p50_ms": percentile(ex_lat, 50) * 1000, "exact_p95_ms": percentile(ex_lat, 95) * 1000,
                      "ann_recall_at_10": recall, "hnsw_build_s": build_s, "select_p50_ms": percentile(sel, 50) * 1000})

    per_user = []
    with connection.cursor() as cur:  # the probes below measure memory_search, which does not use HNSW
        cur.execute(f"DROP INDEX IF EXISTS memvec_hnsw_{DIM}")
    for p in (100, 1000, 10000):
        uid = loader.add_users(1, p, f"probe{p}")[0]
        loader.finish()
        with connection.cursor() as cur:
            cur.execute("ANALYZE profiles_memoryvector")
            cur.execute("ANALYZE profiles_lexicalposting")
        user = get_user_model().objects.get(pk=uid)
        n = max(10, args.queries // (5 if p >= 10000 else 2))
        lat = _search_latency([user], rng, n)
        latency_figures(f"memory_search_user_{p}", lat, per_user_chunks=p, size=sum(loader.users.values()),
                        db="postgresql", embedder="hashing-256")
        per_user.append({"per_user_chunks": p, "p50_ms": percentile(lat, 50) * 1000, "p95_ms": percentile(lat, 95) * 1000})
    emit("search_messages_total", Message.objects.count(), "rows")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "search_scale.json").write_text(json.dumps({"sizes": table, "per_user": per_user,
                                                       "per_user_default": args.per_user}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
