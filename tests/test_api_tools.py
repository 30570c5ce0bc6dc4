"""GET /api/v1/tools (manifest), the OpenAPI schema and the docs pages."""

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient


@pytest.fixture
def client():
    return APIClient()


def test_the_manifest_lists_exactly_the_three_read_tools(client, api_keys):
    r = client.get("/api/v1/tools", HTTP_X_API_KEY=api_keys["read"])
    tools = r.json()["tools"]
    assert r.status_code == 200
    assert [t["function"]["name"] for t in tools] == ["memory_search", "memory_get", "memory_items"]
    for t in tools:
        assert t["type"] == "function" and t["function"]["parameters"]["type"] == "object"
        assert t["function"]["description"]
    assert tools[0]["function"]["parameters"]["required"] == ["query"]


def test_the_manifest_needs_a_read_key(client, api_keys):
    assert client.get("/api/v1/tools").status_code == 403
    assert client.get("/api/v1/tools", HTTP_X_API_KEY=api_keys["ingest"]).status_code == 403


def test_the_schema_validates_and_names_every_operation(client, db, tmp_path):
    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    for op in ("context", "memory_search", "memory_get", "memory_items", "tools_manifest", "messages_create"):
        assert f"operationId: {op}" in text
    assert client.get("/api/v1/schema/").status_code == 200


def test_the_docs_pages_load_their_assets_locally(client, db):
    for path in ("/api/v1/docs/", "/api/v1/redoc/"):
        html = client.get(path).content.decode()
        assert "drf_spectacular_sidecar" in html, path
        assert "cdn.jsdelivr.net" not in html and "unpkg.com" not in html
