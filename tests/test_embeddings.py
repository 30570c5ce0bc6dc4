"""profiles.embeddings: the hashing, USE and OpenAI-compatible embedders and the vector byte format."""

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import pytest

from profiles.embeddings import (
    EmbedderError, HashingEmbedder, OpenAIEmbedder, USEEmbedder, from_bytes, get_embedder, to_bytes,
)


def test_hashing_is_deterministic_normalised_and_lexical():
    e = HashingEmbedder(dim=256)
    m = e.embed(["我住在上海", "我住在上海", "完全不同的句子", ""])
    assert m.shape == (4, 256) and m.dtype == np.float32
    assert np.allclose(np.linalg.norm(m[:3], axis=1), 1.0) and not m[3].any()
    assert m[0] @ m[1] == pytest.approx(1.0) and m[0] @ m[2] < 0.5
    assert e.name == "hashing-char3-256"


def test_vectors_round_trip_as_float32_bytes():
    v = HashingEmbedder(dim=64).embed(["abc"])[0]
    assert len(to_bytes(v)) == 256 and np.array_equal(from_bytes(to_bytes(v), 64), v)
    with pytest.raises(ValueError):
        from_bytes(to_bytes(v), 32)


def test_use_embeds_chinese_and_english_into_one_space():
    e = USEEmbedder(threads=2)
    m = e.embed(["我对花生过敏", "peanut allergy", "我住在上海"])
    assert m.shape == (3, 512) and e.dim == 512
    assert m[0] @ m[1] > m[0] @ m[2]


def test_the_setting_selects_the_embedder(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=128)
    assert get_embedder().dim == 128
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="word2vec")
    with pytest.raises(EmbedderError, match="BIZMEMORY_EMBEDDER"):
        get_embedder()


class _FakeEmbeddings(BaseHTTPRequestHandler):
    """A local OpenAI-compatible endpoint: 3-dim vectors, echoes the model."""

    seen: list = []

    def do_POST(self):  # noqa: N802 - http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _FakeEmbeddings.seen.append((self.path, self.headers.get("Authorization"), body))
        data = [{"index": i, "embedding": [float(len(t)), 1.0, 0.0]} for i, t in enumerate(body["input"])]
        out = json.dumps({"data": list(reversed(data)), "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


def test_openai_compatible_endpoint_is_called_and_rows_are_ordered():
    server = HTTPServer(("127.0.0.1", 0), _FakeEmbeddings)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        e = OpenAIEmbedder(base_url=f"http://127.0.0.1:{server.server_port}/v1", api_key="sk-test", model="emb-small")
        m = e.embed(["a", "bbb"])
        assert e.dim == 3 and e.name == "openai:emb-small"
        assert m[1][0] > m[0][0]  # index order restored
        path, auth, body = _FakeEmbeddings.seen[-1]
        assert path == "/v1/embeddings" and auth == "Bearer sk-test" and body == {"model": "emb-small", "input": ["a", "bbb"]}
    finally:
        server.shutdown()
    with pytest.raises(EmbedderError):
        OpenAIEmbedder(base_url="http://127.0.0.1:9/v1", api_key="", model="m", timeout=1).embed(["x"])
