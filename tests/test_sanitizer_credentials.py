"""Tests for audit.sanitizer: credentials (a secret after a keyword, well-known secret formats),
masked completely, and talk about credentials that is none.

Plain pytest, no database, no Django settings; helpers in ``tests/sanitizer_helpers.py``.
"""

import pytest

from audit.sanitizer import analyze, mask
from tests.sanitizer_helpers import found


# ---------------------------------------------------------------- CREDENTIAL


@pytest.mark.parametrize(
    "text, value",
    [
        ("my password is hunter2", "hunter2"),
        ("我的密码是Abc123456", "Abc123456"),
        ("我的密码是Abc123456，别告诉别人", "Abc123456"),
        ("pwd: x9Yk!Lm", "x9Yk!Lm"),
        ("Password: S3cret-pass.", "S3cret-pass"),
        ("wifi 口令 abc12345", "abc12345"),
        ("银行卡取款密码 864213", "864213"),
        ("my PIN is 4821", "4821"),
        ("PIN码：0937", "0937"),
        ("验证码 123456", "123456"),
        ("你的验证码123456，5分钟内有效", "123456"),
        ("the verification code is 884120.", "884120"),
        ("api key sk-abcdefghijklmnopqrstuvwxyz12", "sk-abcdefghijklmnopqrstuvwxyz12"),
        ("token: ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"),
        ("secret key = 9f8e7d6c5b4a39281706", "9f8e7d6c5b4a39281706"),
        ("密钥是 Zx81kLmq0PzT", "Zx81kLmq0PzT"),
        # Spanish, Portuguese, French (blind 14: a Monterrey team lead pasted her dialer login)
        ("Mi usuario es mgarza y el password es Norte#2026mx, ¿dónde lo pongo?", "Norte#2026mx"),
        ("me llegó este código de verificación: 583920, ¿dónde lo pongo?", "583920"),
        ("minha senha é Qv7!pl22", "Qv7!pl22"),
        ("mon mot de passe est Lune2026!", "Lune2026!"),
    ],
)
def test_it_finds_the_secret_after_a_credential_keyword(text, value):
    hits = analyze(text)
    assert ("CREDENTIAL", value) in found(text)
    masked = mask(text, hits)
    assert value not in masked
    # Only the value is masked, never the keyword before it.
    for keyword in ("password", "密码", "pwd", "口令", "PIN", "验证码", "verification code", "api key", "token", "密钥"):
        if keyword in text:
            assert keyword in masked


@pytest.mark.parametrize(
    "text, value",
    [
        ("用这个 sk-proj-AbCdEfGhIjKlMnOpQrStUvWx 调接口", "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx"),
        ("export GH=ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", "ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"),
        ("aws id AKIAIOSFODNN7EXAMPLE here", "AKIAIOSFODNN7EXAMPLE"),
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl",
         "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl"),
    ],
)
def test_it_finds_well_known_secret_formats_anywhere(text, value):
    assert ("CREDENTIAL", value) in found(text)


def test_it_masks_credentials_completely_even_when_long():
    text = "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789"
    masked = mask(text, analyze(text))
    assert masked == "token: " + "*" * (len(text) - 7)


@pytest.mark.parametrize(
    "text",
    [
        "password policy requires 12 characters",
        "我忘了密码怎么办",
        "the token bucket algorithm",
        "the password is correct now",
        "密码长度至少12位，必须包含字母",
        "验证码已发送，请查收",
        "reset your password at https://example.com/reset?id=123",
        "max_tokens: 4096, temperature 0.2",
        "PIN the tab to keep it open",
        "请输入 6 位验证码",
        "API key rotation is scheduled for Friday",
        "la clave es importante para el equipo",
        "¿cuál es la contraseña del wifi?",
        # a signed image link someone shared (seen in LoCoMo): not a secret they typed
        "look https://images.example.com/f/d5.png?token=eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1cm46YXBw.3OweRTbk",
    ],
)
def test_it_does_not_take_talk_about_credentials_for_a_credential(text):
    assert analyze(text) == []


# A one-time code said a few words after "code" (blind 15); zip, error and status codes are not secrets.
def test_a_code_said_a_few_words_later_is_a_credential():
    text = "Sorry, the e-services portal just sent me a code to link my account, it's 482913, can you enter it for me?"
    assert ("CREDENTIAL", "482913") in found(text)


@pytest.mark.parametrize("text", ["The zip code is 10001.", "The error code is 4012, what does it mean?", "Status code: 404",
                                  "the code review took 2 hours", "our area code is 0207"])
def test_other_codes_with_numbers_are_not_credentials(text):
    assert not [h for h in analyze(text) if h.entity_type == "CREDENTIAL"]
