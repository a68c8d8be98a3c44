"""``Idempotency-Key`` on writes: a retry of a write that was done answers as the first time.

A phone that saved a hand just as the server died (or the network dropped) never heard back;
it sends the same request again with the same key, and the hand is stored once. The JSON API
takes the key in the ``Idempotency-Key`` header, the pages' forms in a hidden ``idempotency_key``
field. Within ``LIFETIME`` of the first write, the same key on the same method and path answers
the stored status and body (or redirect) with ``Idempotent-Replayed: true``; the same key with a
different request is a 422. Only writes that succeeded are remembered: a refused request changed
nothing, so it may be retried with the same key after a fix.

The record is written in the write's own transaction, so the write and its record are kept or
lost together (a crash between the two cannot happen). Two copies of one request racing each
other: one commits, the other's commit fails on the record's key and it answers the stored one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import current_app, request
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from werkzeug.exceptions import BadRequest, UnprocessableEntity

from webapp.db import WriteRecord, reading, transaction
from webapp.i18n import lazy_gettext

HEADER = "Idempotency-Key"
FORM_FIELD = "idempotency_key"
REPLAYED_HEADER = "Idempotent-Replayed"
LIFETIME = timedelta(days=1)
KEY_PATTERN = re.compile(r"[\x21-\x7e]{8,128}")  # visible ASCII: a UUID, a random token...


@dataclass(frozen=True)
class Answer:
    """What a write answered: a status with a JSON body (API) or a redirect (pages)."""

    status: int
    body: dict[str, Any] | None = None
    location: str | None = None
    replayed: bool = False


def _checked(raw: str | None) -> str | None:
    if raw is None or raw == "":
        return None
    if not KEY_PATTERN.fullmatch(raw):
        raise BadRequest(
            lazy_gettext(
                "%(header)s must be 8-128 visible ASCII characters (a UUID will do)", header=HEADER
            )
        )
    return raw


def header_key() -> str | None:
    """The API request's ``Idempotency-Key`` header, checked, or None."""
    return _checked(request.headers.get(HEADER))


def form_key() -> str | None:
    """The page form's hidden key (or the header, for a script that sends one), or None."""
    return _checked(request.form.get(FORM_FIELD) or request.headers.get(HEADER))


def scoped(client_key: str) -> str:
    """The stored key: the client's key tied to this method and path, hashed."""
    text = f"{request.method} {request.path} {client_key}"
    return hashlib.sha256(text.encode()).hexdigest()


def fingerprint(*parts: str | bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()


def form_fingerprint(*extra: str) -> str:
    """What a page form sent, less its CSRF token and key (both change between page loads)."""
    fields = sorted(
        (name, value)
        for name, values in request.form.lists()
        if name not in {"csrf_token", FORM_FIELD}
        for value in values
    )
    return fingerprint(repr(fields), *extra)


def created_token(made: list[str], client_key: object) -> str:
    """The edit token a create answers with: the one its work ``made`` now, or, on a replay
    (which runs no work), the same token made again from the client's key."""
    return made[0] if made else derived_token(scoped(str(client_key)))


def derived_token(stored_key: str) -> str:
    """An edit token made from the write's key and the app's secret: a retried "new game"
    answers the same token without the token ever being stored."""
    secret = str(current_app.config["SECRET_KEY"]).encode()
    mac = hmac.new(secret, b"edit-token\0" + stored_key.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:24]).decode().rstrip("=")


def _cutoff() -> datetime:
    return datetime.now(UTC) - LIFETIME


def find(session: Session, key: str, sent: str) -> Answer | None:
    record = session.scalar(
        select(WriteRecord).where(WriteRecord.key == key, WriteRecord.created_at >= _cutoff())
    )
    if record is None:
        return None
    if not hmac.compare_digest(record.fingerprint, sent):
        raise UnprocessableEntity(
            lazy_gettext(
                "this %(header)s was already used for a different request: send a new key",
                header=HEADER,
            )
        )
    return Answer(record.status, record.body, record.location, replayed=True)


def remember(session: Session, key: str, sent: str, answer: Answer) -> None:
    session.execute(delete(WriteRecord).where(WriteRecord.created_at < _cutoff()))
    session.add(
        WriteRecord(
            key=key,
            fingerprint=sent,
            status=answer.status,
            body=answer.body,
            location=answer.location,
        )
    )


def run(client_key: str | None, sent: str, work: Callable[[Session, str | None], Answer]) -> Answer:
    """``work(session, stored_key)`` in one transaction, remembered under ``client_key``; a key
    seen within a day answers what it answered then, without running ``work`` again."""
    if client_key is None:
        with transaction() as session:
            return work(session, None)
    key = scoped(client_key)
    try:
        with transaction() as session:
            found = find(session, key, sent)
            if found is not None:
                return found
            answer = work(session, key)
            remember(session, key, sent, answer)
            session.flush()
            return answer
    except IntegrityError:  # the same request, racing: answer the one that was stored
        with reading() as session:
            found = find(session, key, sent)
        if found is None:
            raise
        return found
