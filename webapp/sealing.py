"""Tokens kept in the session cookie, sealed so that the cookie does not show them.

Flask's session cookie is signed, not encrypted: anyone who sees it (a shared computer's
browser profile, a log that records cookies, a proxy) could read the edit token in it and keep
an edit link to the game for good. A browser that opened an edit link (or a seat's) keeps the
token here, sealed with AES-GCM (the ``cryptography`` package) under a key derived from the
app's ``SECRET_KEY`` by HKDF, a random 12-byte nonce each time, and what it is for (the game
and the kind of token) as associated data: a value sealed for one game does not open for
another. Nothing is stored on the server: every node that shares the secret opens it
(docs/deploy.md), and the host's page can still show the edit link it holds.

A token kept before sealing (a plain value, without the ``s2.`` mark) is still read, and sealed
the next time the session is written.
"""

from __future__ import annotations

import base64
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from flask import current_app

MARK = "s2."
NONCE_BYTES = 12
MAX_SEALED = 512  # characters: a longer value is none of ours


def _cipher() -> AESGCM:
    secret = str(current_app.config["SECRET_KEY"]).encode()
    key = HKDF(hashes.SHA256(), 32, salt=None, info=b"meldcam session seal").derive(secret)
    return AESGCM(key)


def seal(purpose: str, token: str) -> str:
    """``token`` sealed for ``purpose`` (e.g. ``"edit\\0<game id>"``)."""
    nonce = os.urandom(NONCE_BYTES)
    sealed = _cipher().encrypt(nonce, token.encode(), purpose.encode())
    return MARK + base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")


def unseal(purpose: str, value: object) -> str | None:
    """The token ``seal(purpose, token)`` made, a plain token kept before sealing as it is, or
    None for anything else (sealed for another purpose or key, changed, not ours)."""
    if not isinstance(value, str) or not value or len(value) > MAX_SEALED:
        return None
    if not value.startswith(MARK):
        return value  # kept before tokens were sealed
    text = value[len(MARK) :]
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        data = _cipher().decrypt(raw[:NONCE_BYTES], raw[NONCE_BYTES:], purpose.encode())
        return data.decode()
    except (ValueError, InvalidTag, UnicodeDecodeError):
        return None


def sealed_tokens(held: object, kind: str) -> tuple[dict[str, str], bool]:
    """A session's ``{game id: sealed token}`` opened: ``({game id: token}, whether any was
    kept plain and should be sealed again)``; what does not open is left out."""
    if not isinstance(held, dict):
        return {}, False
    found: dict[str, str] = {}
    plain = False
    for game_id, value in held.items():
        token = unseal(f"{kind}\0{game_id}", value)
        if isinstance(game_id, str) and token is not None:
            found[game_id] = token
            plain = plain or not str(value).startswith(MARK)
    return found, plain


def sealing(tokens: dict[str, str], kind: str) -> dict[str, str]:
    """``{game id: token}`` sealed, for the session."""
    return {game_id: seal(f"{kind}\0{game_id}", token) for game_id, token in tokens.items()}
