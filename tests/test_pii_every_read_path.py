"""No PII reaches an agent by any read path (issue 14): every form the attack run used is posted
through the ingest API, extracted and consolidated as the pipeline does, and then every
agent-visible output — the context (with and without the session, with a query), memory_search
over both scopes (REST and the MCP tools, in-process), memory_get of MEMORY.md, a line range and
every item, the memory/items list — is read. No value may appear, in any of its written forms, and no output may hold
a run of 7+ digits or an e-mail / handle shape (``audit.floor``'s test)."""

from __future__ import annotations

import datetime as dt
import pytest
from rest_framework.test import APIClient

from audit.floor import mask_floor
from audit.normalize import normalize
from consolidation.consolidate import consolidation_run
from consolidation.extraction import extraction_run
from consolidation.models import Session
from profiles.mcp_server import tool_call
from profiles.models import MemoryItem, MemoryVector, VectorSource

T0 = dt.datetime.now(dt.timezone.utc) - dt.timedelta(hours=2)
USER, AGENT, SESSION = "u-pii-forms", "main", "pii-s1"

# (value, the user's sentence stating it): every form of issue 14.
FORMS = [
    ("zhangwei_1988", "加我微信zhangwei_1988，方便联系"),
    ("853729461", "我QQ号853729461，晚上在线"),
    ("京A12345", "我的车牌号是京A12345，帮我登记一下"),
    ("１３８１２３４５６７８", "我换号了，新号码１３８１２３４５６７８"),
    ("幺三九八七六五四三二一", "我的电话是幺三九八七六五四三二一，记一下"),
    ("one five zero one two three four five six seven eight", "Call me on one five zero one two three four five six seven eight please."),
    ("zhang at example dot com", "Email me at zhang at example dot com with the details."),
    ("li.na[at]example[dot]org", "备用邮箱 li.na[at]example[dot]org"),
    ("6222021234567890124", "转账到6222021234567890124就行"),
    ("4392 4761 0528 9857", "Use 4392 4761 0528 9857 for the refund."),
    ("E12345678", "我护照号是E12345678，办签证用"),
    ("677429026", "My passport number is 677429026."),
    ("110105194912310021", "我身份证号110105194912310021，帮我填一下表"),
    ("+91-39941 98087", "You can reach me at +91-39941 98087 most evenings."),
    ("+86 11251 2534", "我在国外的号码是+86 11251 2534，打这个。"),
    ("(95) 94215-7906", "Call me on (95) 94215-7906 when you land."),
    ("南湖新村521室", "我住在南湖新村521室，快递放门口"),
    ("52219 Roach Cove", "I live at 52219 Roach Cove, the blue door."),
    ("12 Old Mill Walks", "Send the parcel to 12 Old Mill Walks please."),
    ("7 Lake Ferry", "The invoice goes to 7 Lake Ferry."),
    ("08063 Swanson Pines", "Ship it to 08063 Swanson Pines."),
]
CLEAN = ["我住在杭州，在一家银行做产品经理。", "I work as a product manager and I love hiking.", "以后回答我直接给结论就行。"]
QUERIES = ["微信", "电话", "邮箱", "车牌", "护照", "身份证", "地址", "passport", "phone", "email", "address", "refund",
           "杭州", "product manager", "invoice", "parcel"]


def _messages():
    out = []
    for i, (value, sentence) in enumerate(FORMS):
        out.append({"role": "user", "content": sentence, "message_id": f"u{i}"})
        # The assistant echoes it and a tool prints it: neither is ever indexed, and the context's
        # recent turns still pass the floor.
        out.append({"role": "assistant", "content": f"好的，已记下：{value}", "message_id": f"a{i}"})
        if i % 5 == 0:
            out.append({"role": "tool", "content": f"lookup result: {value}", "message_id": f"t{i}"})
    for j, sentence in enumerate(CLEAN):
        out.append({"role": "user", "content": sentence, "message_id": f"c{j}"})
        out.append({"role": "assistant", "content": "好的。", "message_id": f"ca{j}"})
    return out


def _forms_of(value: str) -> set[str]:
    norm = normalize(value).text
    forms = {value, norm}
    digits = "".join(ch for ch in norm if ch.isdigit())
    if len(digits) >= 7:
        forms.add(digits)
    return forms


@pytest.fixture(autouse=True)
def _hashing(settings):
    settings.BIZMEMORY = dict(settings.BIZMEMORY, EMBEDDER="hashing", EMBEDDER_DIM=128, MESSAGE_RETENTION_DAYS=3650)


@pytest.fixture
def ingested(db, api_keys):
    client = APIClient()
    body = {"user": USER, "session": SESSION, "agent": AGENT, "messages": [
        {**m, "created_at": (T0 + dt.timedelta(seconds=n)).isoformat()} for n, m in enumerate(_messages())
    ]}
    r = client.post("/api/v1/messages", body, format="json", HTTP_X_API_KEY=api_keys["ingest"])
    assert r.status_code == 201, r.content
    return client


def _extract_and_consolidate():
    session = Session.objects.get(external_id=SESSION)
    extraction_run(session_id=session.pk, now=T0 + dt.timedelta(minutes=30), trigger="session_end")
    consolidation_run(user_id=session.user_id, now=T0 + dt.timedelta(minutes=40), force=True)
    return session.user


def _rest_outputs(client, key) -> list[tuple[str, str]]:
    def get(path, **params):
        r = client.get(path, {"user": USER, "agent": AGENT, **params}, HTTP_X_API_KEY=key)
        assert r.status_code == 200, (path, params, r.content)
        return r.json()

    out = []
    for params in ({}, {"session": SESSION}, {"session": SESSION, "query": "电话 邮箱 地址"}, {"query": "passport"}):
        ctx = get("/api/v1/context", budget=8000, **params)
        out.append((f"context {params}", ctx["text"]))
    item_ids = set()
    for scope in ("memory", "sessions"):
        for q in QUERIES + [v for v, _ in FORMS]:
            res = get("/api/v1/memory/search", query=q, scope=scope, top_k=50)
            out.extend((f"search {scope} {q!r}", h["text"]) for h in res["hits"])
            if scope == "memory":
                item_ids.update(h["id"] for h in res["hits"])
    doc = get("/api/v1/memory")
    out.append(("memory_get MEMORY.md", doc["text"]))
    if doc["total_lines"]:
        out.append(("memory_get lines", get("/api/v1/memory", from_line=1, to_line=doc["total_lines"])["text"]))
    for item_id in item_ids:
        got = get("/api/v1/memory", item_id=item_id)
        out.append((f"memory_get item {item_id}", f"{got['item']['value']}\n{got['item']['text']}"))
    page = get("/api/v1/memory/items", limit=100)
    assert page["items"] and {i["id"] for i in page["items"]} >= item_ids  # every item search found is listed
    out.extend((f"memory/items {i['id']}", f"{i['value']}\n{i['text']}") for i in page["items"])
    return out


def _mcp_outputs(user) -> list[tuple[str, str]]:
    out = []
    for scope in ("memory", "sessions"):
        for q in QUERIES + [v for v, _ in FORMS]:
            res = tool_call("memory_search", {"query": q, "scope": scope, "top_k": 50}, user=user, agent_slug=AGENT)
            out.extend((f"mcp search {scope} {q!r}", h["text"]) for h in res["hits"])
    out.append(("mcp memory_get", tool_call("memory_get", {}, user=user, agent_slug=AGENT)["text"]))
    for item in MemoryItem.objects.current().filter(user=user):
        got = tool_call("memory_get", {"item_id": item.pk}, user=user, agent_slug=AGENT)
        out.append((f"mcp memory_get item {item.pk}", f"{got['item']['value']}\n{got['item']['text']}"))
    page = tool_call("memory_items", {"limit": 100}, user=user, agent_slug=AGENT)
    assert page["items"]
    out.extend((f"mcp memory_items {i['id']}", f"{i['value']}\n{i['text']}") for i in page["items"])
    return out


def _leaks(outputs: list[tuple[str, str]]) -> list[str]:
    found = []
    for where, text in outputs:
        for value, _ in FORMS:
            for form in _forms_of(value):
                if form in text or form in normalize(text).text:
                    found.append(f"{where}: {form!r}")
        if mask_floor(text) != text:
            found.append(f"{where}: a 7+ digit run or an address shape in {text[:200]!r}")
    return found


def test_the_context_before_extraction_shows_no_pii(ingested, api_keys):
    # Turns not yet extracted are already in the context's recent turns: the floor covers them.
    r = ingested.get("/api/v1/context", {"user": USER, "agent": AGENT, "session": SESSION, "budget": 8000},
                     HTTP_X_API_KEY=api_keys["read"])
    assert r.status_code == 200 and r.json()["message_ids"]
    assert _leaks([("context before extraction", r.json()["text"])]) == []


def test_no_pii_value_reaches_an_agent_by_any_read_path(ingested, api_keys):
    user = _extract_and_consolidate()
    outputs = _rest_outputs(ingested, api_keys["read"]) + _mcp_outputs(user)
    assert any(text for where, text in outputs if where.startswith("search sessions")), "session search found nothing"
    assert any("杭州" in text for _, text in outputs), "the clean facts should still reach the agent"
    assert _leaks(outputs) == []


def test_only_user_turns_are_indexed_and_their_chunks_hold_no_pii(ingested):
    user = _extract_and_consolidate()
    chunks = list(MemoryVector.objects.filter(user=user, source=VectorSource.MESSAGE).values_list("kind", "text"))
    assert chunks and {kind for kind, _ in chunks} == {"user"}
    assert _leaks([("chunk", text) for _, text in chunks]) == []
