"""Forms of the staff review pages."""

from django import forms
from django.utils.translation import gettext_lazy as _

from .labels import hit_type_name

from .sanitizer import ENTITY_TYPES


class QuarantineFilterForm(forms.Form):
    """GET filters of the quarantine list: entity type, inclusive date range (YYYY-MM-DD), user id.

    Type choices are the sanitizer's codes (``audit.sanitizer.ENTITY_TYPES``) shown under
    their readable, translated names (``audit.labels.HIT_TYPE_NAMES``)."""

    type = forms.ChoiceField(
        label=_("type"), choices=[("", _("any type"))] + [(t, hit_type_name(t)) for t in ENTITY_TYPES], required=False
    )
    date_from = forms.DateField(required=False, label=_("from"), widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label=_("to"), widget=forms.DateInput(attrs={"type": "date"}))
    user = forms.CharField(required=False, max_length=150, label=_("user"))

    def clean(self):
        data = super().clean()
        if data.get("date_from") and data.get("date_to") and data["date_from"] > data["date_to"]:
            self.add_error("date_to", _("must not be before 'from'"))
        return data
