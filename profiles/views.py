"""End-user pages (server-rendered). Users see only their own memory."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from .selectors import user_memory_page


@login_required
def my_memory(request):
    """GET /memory/ — the logged-in user's current memory, grouped, and MEMORY.md as agents see it."""
    return render(request, "profiles/my_memory.html", user_memory_page(user=request.user))
