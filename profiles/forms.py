"""Forms of the memory pages. Labels and help texts are translated (en, zh-hans)."""

from django import forms
from django.utils.translation import gettext_lazy as _


class ClearAllForm(forms.Form):
    """The confirmation step of "clear everything": the user must tick ``confirm``;
    ``include_history`` is the second, separate choice (conversation history too)."""

    confirm = forms.BooleanField(
        required=True, label=_("Yes, delete all of my long-term memory"),
        error_messages={"required": _("Tick the box to confirm.")},
    )
    include_history = forms.BooleanField(
        required=False, label=_("Also delete my conversation history (all sessions and messages)"),
    )


class SwitchesForm(forms.Form):
    """Memory on/off plus two checkboxes per expert agent: ``expert_<slug>`` (the expert may
    use memory) and ``exclude_<slug>`` (what the user says to it is not remembered).
    Unchecked boxes are absent from a POST, so every field is optional."""

    # The label states what ticking does, whatever the state (issue 17: "Memory is on" beside an
    # unticked box read as a fact); the page states the saved state apart from the box.
    memory_enabled = forms.BooleanField(required=False, label=_("Let agents use my memory and remember new things I say"))

    def __init__(self, *args, experts: list[dict], **kwargs):
        super().__init__(*args, **kwargs)
        self.experts = experts
        for e in experts:
            self.fields[f"expert_{e['slug']}"] = forms.BooleanField(required=False, initial=e["enabled"])
            self.fields[f"exclude_{e['slug']}"] = forms.BooleanField(required=False, initial=e["excluded"])

    def disabled_slugs(self) -> list[str]:
        return sorted(e["slug"] for e in self.experts if not self.cleaned_data.get(f"expert_{e['slug']}"))

    def excluded_slugs(self) -> list[str]:
        return sorted(e["slug"] for e in self.experts if self.cleaned_data.get(f"exclude_{e['slug']}"))

    def rows(self):
        """``(expert, enabled bound field, excluded bound field)`` per expert, for the template."""
        return [(e, self[f"expert_{e['slug']}"], self[f"exclude_{e['slug']}"]) for e in self.experts]


class DiffForm(forms.Form):
    """Two snapshot versions to compare (GET ``?old=&new=``)."""

    old = forms.IntegerField(min_value=1, label=_("Older version"))
    new = forms.IntegerField(min_value=1, label=_("Newer version"))
