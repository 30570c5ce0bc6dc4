"""``GET /api/v1/health``: the deployment's health for load balancers (``bizmemory/health.py``)."""

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from .api import ApiView
from .health import OK, SCOPES, health_report


class ComponentOut(serializers.Serializer):
    """One check. ``reason`` only when it failed; the other fields as the component has them."""

    status = serializers.ChoiceField(choices=["ok", "error"])
    reason = serializers.ChoiceField(choices=["unavailable", "timeout", "busy", "no_heartbeat"], required=False,
                                     help_text="Why it failed: unavailable (refused, unreachable, an error answer), "
                                               "timeout, busy (the previous check still waits), no_heartbeat.")
    kind = serializers.ChoiceField(choices=["redis", "orm"], required=False, help_text="broker: which one")
    clusters = serializers.IntegerField(required=False, help_text="worker: qclusters reporting Idle or Working now")
    workers = serializers.IntegerField(required=False, help_text="worker: their worker processes")
    last_seen_seconds = serializers.FloatField(required=False,
                                               help_text="worker: seconds since a live qcluster was last seen")
    max_age_seconds = serializers.IntegerField(required=False,
                                               help_text="worker: BIZMEMORY_HEALTH_WORKER_MAX_AGE_SECONDS")


class ChecksOut(serializers.Serializer):
    database = ComponentOut()
    broker = ComponentOut()
    worker = ComponentOut()


class HealthOut(serializers.Serializer):
    status = serializers.ChoiceField(choices=["ok", "error"])
    failing = serializers.ListField(child=serializers.ChoiceField(choices=["database", "broker", "worker"]))
    checks = ChecksOut()


_EXAMPLE_DOWN = {
    "status": "error", "failing": ["worker"],
    "checks": {"database": {"status": "ok"}, "broker": {"status": "ok", "kind": "redis"},
               "worker": {"status": "error", "reason": "no_heartbeat", "clusters": 0, "workers": 0,
                          "max_age_seconds": 30}},
}


class HealthQuery(serializers.Serializer):
    scope = serializers.ChoiceField(choices=sorted(SCOPES), default="all", required=False,
                                    help_text="all: database, broker and worker gate the status (monitoring); web: database "
                                              "and broker only, the worker still reported (a load balancer's probe)")


class HealthView(ApiView):
    """Health for load balancers: no key, no rate limit, never cached.

    200 when the database answers ``SELECT 1``, the django-q2 broker answers, and a qcluster has
    reported itself alive within ``BIZMEMORY_HEALTH_WORKER_MAX_AGE_SECONDS``; 503 otherwise, with
    ``failing`` naming the components. The body names no host, address or error text.
    """

    authentication_classes = []
    permission_classes = []
    throttle_classes = []

    @extend_schema(
        operation_id="health", auth=[{}],  # [{}]: no key (an empty list is dropped)
        parameters=[OpenApiParameter("scope", str, enum=sorted(SCOPES), required=False,
                                     description="all (default): database, broker and worker gate the status; web: "
                                                 "database and broker only, for a load balancer's probe (the worker is "
                                                 "still reported, and ingest only queues work while workers are down)")],
        responses={200: HealthOut, 503: HealthOut},
        description="Database, broker and worker heartbeat, each checked within BIZMEMORY_HEALTH_TIMEOUT_SECONDS. "
                    "200 when all three are ok, 503 (same body) when any is not; `failing` names them.",
        examples=[OpenApiExample("a qcluster has stopped", value=_EXAMPLE_DOWN, response_only=True,
                                 status_codes=["503"])],
    )
    def get(self, request):
        query = HealthQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        report = health_report(scope=query.validated_data["scope"])
        response = Response(report, status=200 if report["status"] == OK else 503)
        response["Cache-Control"] = "no-store"
        return response
