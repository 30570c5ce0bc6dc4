"""Forms of the staff review pages."""

from django import forms

from .sanitizer import ENTITY_TYPES


class QuarantineFilterForm(forms.Form):
    """GET filters of the quarantine list: entity type, inclusive date range (YYYY-MM-DD), user id."""

    type = forms.ChoiceField(choices=[("", "any type")] + [(t, t) for t in ENTITY_TYPES], required=False)
    date_from = forms.DateField(required=False, label="from", widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(required=False, label="to", widget=forms.DateInput(attrs={"type": "date"}))
    user = forms.CharField(required=False, max_length=150)

    def clean(self):
        data = super().clean()
        if data.get("date_from") and data.get("date_to") and data["date_from"] > data["date_to"]:
            self.add_error("date_to", "must not be before 'from'")
        return data
