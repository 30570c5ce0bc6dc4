"""Agent read API (read-scope keys only). Agents never get a write endpoint."""

from django.conf import settings
from django.contrib.auth import get_user_model
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import APIView

from .permissions import HasReadKey
from .selectors import memory_context


class ContextQuery(serializers.Serializer):
    user = serializers.CharField(max_length=150)
    agent = serializers.SlugField(max_length=64)
    budget = serializers.IntegerField(min_value=1, max_value=32000, required=False)
    temporary = serializers.BooleanField(required=False, default=False)


class ContextOut(serializers.Serializer):
    text = serializers.CharField()
    tokens = serializers.IntegerField()
    budget = serializers.IntegerField()
    item_ids = serializers.ListField(child=serializers.IntegerField())
    reason = serializers.CharField()


class ContextView(APIView):
    """GET /api/v1/context?user=&agent=&budget= — the memory text to inject.

    ``budget`` is in tiktoken tokens (default ``BIZMEMORY['CONTEXT_DEFAULT_TOKENS']``);
    the text never exceeds it. Unknown user → 404. Response: ``ContextOut``.
    """

    permission_classes = [HasReadKey]

    def get(self, request):
        q = ContextQuery(data=request.query_params)
        q.is_valid(raise_exception=True)
        data = q.validated_data
        user = get_user_model().objects.filter(username=data["user"]).first()
        if user is None:
            raise NotFound("unknown user")
        ctx = memory_context(
            user=user,
            agent_slug=data["agent"],
            budget=data.get("budget") or settings.BIZMEMORY["CONTEXT_DEFAULT_TOKENS"],
            temporary=data["temporary"],
        )
        return Response(ContextOut(ctx).data)
