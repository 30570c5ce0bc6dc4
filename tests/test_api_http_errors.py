"""Every error under /api/ is JSON, also the ones Django or the front server answer (issue 15)."""

import json
import runpy
from pathlib import Path

import pytest
from django.test import Client
from gunicorn.config import Config
from gunicorn.http.errors import LimitRequestLine
from gunicorn.http.parser import RequestParser

from bizmemory.http_errors import API_MAX_QUERY_STRING

ROOT = Path(__file__).resolve().parent.parent


def _json_error(r, status):
    assert r.status_code == status, r.content[:300]
    assert r["Content-Type"] == "application/json"
    error = json.loads(r.content)["error"]
    assert set(error) == {"code", "message", "field"}
    return error


@pytest.mark.parametrize("key", [None, "read"])
def test_a_100_kb_query_string_is_a_json_414(db, api_keys, key):
    headers = {"HTTP_X_API_KEY": api_keys[key]} if key else {}
    r = Client().get("/api/v1/context?user=" + "x" * 100_000 + "&agent=main", **headers)
    assert _json_error(r, 414)["code"] == "uri_too_long"


def test_a_long_but_legitimate_query_is_answered_by_the_view(db, api_keys):
    # 2000 four-byte characters: the longest `query` a search may carry, ~24 KB percent-encoded.
    r = Client().get("/api/v1/memory/search", {"user": "u1", "agent": "main", "query": "😀" * 2000},
                     HTTP_X_API_KEY=api_keys["read"])
    assert len(r.request["QUERY_STRING"]) < API_MAX_QUERY_STRING
    assert r.status_code == 200, r.content[:300]


def test_a_long_query_string_elsewhere_is_left_to_the_page(db):
    assert Client().get("/accounts/login/?next=" + "x" * 100_000).status_code == 200


def test_too_many_query_parameters_is_a_json_400(db, api_keys, settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 100
    query = "&".join(f"p{i}=1" for i in range(101))
    r = Client().get(f"/api/v1/context?user=u1&agent=main&{query}", HTTP_X_API_KEY=api_keys["read"])
    assert _json_error(r, 400)["code"] == "bad_request"


def test_a_wrong_method_and_an_unknown_path_are_json(db, api_keys):
    assert _json_error(Client().post("/api/v1/context", HTTP_X_API_KEY=api_keys["read"]), 405)
    assert _json_error(Client().delete("/api/v2/nothing"), 404)["code"] == "not_found"


def test_django_s_own_404_under_api_is_json_and_elsewhere_html(rf):
    from django.http import Http404

    from bizmemory.http_errors import page_not_found

    r = page_not_found(rf.get("/api/v1/context"), Http404("x"))
    assert _json_error(r, 404)["field"] is None
    assert page_not_found(rf.get("/memory/nope"), Http404("x"))["Content-Type"].startswith("text/html")


def test_a_server_error_under_api_is_a_json_500_without_the_exception_text(db, monkeypatch):
    from bizmemory.api import ApiRoot

    def boom(self, request):
        raise RuntimeError("secret detail")

    monkeypatch.setattr(ApiRoot, "get", boom)
    r = Client(raise_request_exception=False).get("/api/v1/")
    assert _json_error(r, 500)["code"] == "server_error"
    assert b"secret detail" not in r.content


def _parse(cfg, line: bytes):
    return next(RequestParser(cfg, iter([line + b" HTTP/1.1\r\nHost: x\r\n\r\n"]), ("127.0.0.1", 1)))


def test_the_gunicorn_config_lets_a_long_request_line_reach_django():
    line = b"GET /api/v1/context?user=" + b"x" * 100_000
    with pytest.raises(LimitRequestLine):  # gunicorn's default: its own plain-text 400, before Django
        _parse(Config(), line)
    cfg = Config()
    for name, value in runpy.run_path(str(ROOT / "gunicorn.conf.py")).items():
        if name in cfg.settings:
            cfg.set(name, value)
    assert cfg.limit_request_line == 0
    assert len(_parse(cfg, line).query) == 100_005
