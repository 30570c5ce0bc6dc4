"""Readable, translated names of the sanitizer's entity types, for the staff review pages and
the user's "kept out" page."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

# Readable names of the sanitizer's entity types (audit.sanitizer.ENTITY_TYPES).
HIT_TYPE_NAMES = {
    "CN_RESIDENT_ID": _("ID card number"),
    "NATIONAL_ID": _("ID card number"),
    "BANK_CARD": _("bank card number"),
    "CREDIT_CARD": _("credit card number"),
    "CN_MOBILE": _("mobile phone number"),
    "CN_LANDLINE": _("landline phone number"),
    "PHONE_NUMBER": _("phone number"),
    "EMAIL_ADDRESS": _("email address"),
    "CN_PASSPORT": _("passport number"),
    "PASSPORT": _("passport number"),
    "US_SSN": _("social security number"),
    "IBAN_CODE": _("bank account (IBAN)"),
    "IP_ADDRESS": _("IP address"),
    "CN_ADDRESS": _("home address"),
    "EN_STREET_ADDRESS": _("street address"),
    "WECHAT_ID": _("WeChat ID"),
    "QQ_NUMBER": _("QQ number"),
    "LICENSE_PLATE": _("licence plate"),
    "CREDENTIAL": _("password or secret key"),
    "SENSITIVE_WORD": _("sensitive word"),
}


def hit_type_name(code: str):
    """Readable (translatable) name of a sanitizer entity type; unknown codes are returned as they are."""
    return HIT_TYPE_NAMES.get(code, code)
