"""``meldcam serve --tls``: HTTPS for the phones on the LAN, with no other program.

Browsers open the camera in a page (the live view, ``webapp/static/livecam.js``) only in a
secure context: over HTTPS, or on this computer itself. ``--tls`` makes a self-signed
certificate on first use (``certificate``: the ``cryptography`` package, an EC P-256 key,
valid ten years, for ``localhost``, ``127.0.0.1``, this machine's name and its LAN address; kept
in the instance folder's ``tls/`` and made again when the LAN address changes) and answers
HTTPS on the port asked for (``Front``): each connection's TLS is ended here and its requests
handed to waitress on a port of the loopback, with ``X-Forwarded-For`` (the phone's address,
for rate limits) and ``X-Forwarded-Proto: https`` (https links, Secure cookies), which waitress
trusts from the loopback only; whatever ``X-Forwarded-*`` or ``Forwarded`` a phone sent is
dropped. Responses flow back as they come (event streams included).

A phone opening the address the first time warns that the certificate is not trusted (it is
signed by nobody but this server): see the README for what it asks.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import ipaddress
import os
import socket
import ssl
import threading
from pathlib import Path
from typing import IO, Any

CERT_NAME = "meldcam-cert.pem"
KEY_NAME = "meldcam-key.pem"
MAX_HEAD = 64 * 1024  # a request's line and headers, at most
MAX_CONNECTIONS = 256  # connections handled at once (a thread each)
HANDSHAKE_S = 20.0
DROPPED = (b"x-forwarded-", b"forwarded:")
_PLAIN_TEXT = b"This meldcam server answers HTTPS only: open its address with https:// in front.\n"
# what a browser that came with http:// is told (no redirect: its Host is not to be trusted)
PLAIN_HTTP_ANSWER = (
    b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(_PLAIN_TEXT), _PLAIN_TEXT)
)


def certificate_names(host: str, lan: str | None) -> list[str]:
    """What the certificate names: localhost, the loopback, this machine, its LAN address and
    the address served on (unless it is every interface)."""
    names = ["localhost", "127.0.0.1", socket.gethostname()]
    for extra in (lan, host):
        if extra and extra not in {"0.0.0.0", "::", ""} and extra not in names:
            names.append(extra)
    return names


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def certificate(folder: Path, names: list[str]) -> tuple[Path, Path]:
    """The certificate and key files in ``folder``, made now when missing or not naming every
    one of ``names`` (a new LAN address)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    cert_path, key_path = folder / CERT_NAME, folder / KEY_NAME
    if cert_path.exists() and key_path.exists():
        with contextlib.suppress(ValueError, x509.ExtensionNotFound):
            existing = x509.load_pem_x509_certificate(cert_path.read_bytes())
            alternative = existing.extensions.get_extension_for_class(x509.SubjectAlternativeName)
            held = {str(n) for n in alternative.value.get_values_for_type(x509.DNSName)}
            held |= {str(n) for n in alternative.value.get_values_for_type(x509.IPAddress)}
            if set(names) <= held:
                return cert_path, key_path
    folder.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"meldcam on {names[2]}")])
    now = datetime.datetime.now(datetime.UTC)
    alternative_names: list[x509.GeneralName] = [
        x509.IPAddress(ipaddress.ip_address(n)) if _is_ip(n) else x509.DNSName(n) for n in names
    ]
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=3650))
        .add_extension(x509.SubjectAlternativeName(alternative_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_bytes = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    descriptor = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as out:
        out.write(key_bytes)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


def fingerprint(cert_path: Path) -> str:
    """The certificate's SHA-256 fingerprint (AB:CD:...), to compare with what a phone shows."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes

    digest = x509.load_pem_x509_certificate(cert_path.read_bytes()).fingerprint(hashes.SHA256())
    return ":".join(f"{b:02X}" for b in digest)


class Front:
    """HTTPS on ``host:port``, each request handed to the app on ``127.0.0.1:backend_port``."""

    def __init__(self, host: str, port: int, context: ssl.SSLContext) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.listener = socket.socket(family, socket.SOCK_STREAM)
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, port))
        self.listener.listen(128)
        self.port = int(self.listener.getsockname()[1])
        self.context = context
        self.backend_port = 0
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)
        self.closed = False

    def start(self, backend_port: int) -> None:
        self.backend_port = backend_port
        threading.Thread(target=self._accept, name="meldcam-tls", daemon=True).start()

    def close(self) -> None:
        self.closed = True
        with contextlib.suppress(OSError):
            self.listener.close()

    def _accept(self) -> None:
        while not self.closed:
            try:
                raw, address = self.listener.accept()
            except OSError:
                if self.closed:
                    return
                continue
            if not self.slots.acquire(blocking=False):  # too many at once: this one waits no turn
                raw.close()
                continue
            threading.Thread(
                target=self._connection, args=(raw, address[0]), name="meldcam-tls", daemon=True
            ).start()

    def _connection(self, raw: socket.socket, client: str) -> None:
        backend: socket.socket | None = None
        secure: ssl.SSLSocket | None = None
        try:
            raw.settimeout(HANDSHAKE_S)
            if raw.recv(1, socket.MSG_PEEK) not in (b"\x16", b""):  # not a TLS handshake
                raw.sendall(PLAIN_HTTP_ANSWER)
                return
            secure = self.context.wrap_socket(raw, server_side=True)
            secure.settimeout(None)  # waitress ends idle connections: their end ends this one
            backend = socket.create_connection(("127.0.0.1", self.backend_port))
            threading.Thread(
                target=_pump, args=(backend, secure), name="meldcam-tls", daemon=True
            ).start()
            reader = secure.makefile("rb")
            while _forward_request(reader, backend, client):
                pass
        except (OSError, ValueError):
            pass
        finally:
            for end in (backend, secure or raw):
                if end is not None:
                    with contextlib.suppress(OSError):
                        end.close()
            self.slots.release()


def _pump(source: socket.socket, target: socket.socket) -> None:
    """The app's answers, as they come, until it closes the connection."""
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except (OSError, ValueError):
        pass
    finally:
        for end in (target, source):
            with contextlib.suppress(OSError):
                end.shutdown(socket.SHUT_RDWR)


def _forward_request(reader: IO[bytes], backend: socket.socket, client: str) -> bool:
    """One request from the phone to the app, its ``X-Forwarded-*`` replaced; False at the end
    of the connection."""
    line = reader.readline(MAX_HEAD)
    if not line:
        return False
    head = [line]
    size = len(line)
    length = 0
    chunked = False
    while True:
        header = reader.readline(MAX_HEAD)
        size += len(header)
        if not header or size > MAX_HEAD:
            return False
        if header in (b"\r\n", b"\n"):
            break
        lower = header.lower()
        if lower.startswith(DROPPED):
            continue
        if lower.startswith(b"content-length:"):
            length = int(header.split(b":", 1)[1].strip())
        elif lower.startswith(b"transfer-encoding:") and b"chunked" in lower:
            chunked = True
        head.append(header)
    head.append(f"X-Forwarded-For: {client}\r\nX-Forwarded-Proto: https\r\n\r\n".encode())
    backend.sendall(b"".join(head))
    if chunked:
        _forward_chunks(reader, backend)
    else:
        _forward_bytes(reader, backend, length)
    return True


def _forward_bytes(reader: IO[bytes], backend: socket.socket, count: int) -> None:
    while count > 0:
        data = reader.read(min(count, 65536))
        if not data:
            raise ValueError("the body ended early")
        backend.sendall(data)
        count -= len(data)


def _forward_chunks(reader: IO[bytes], backend: socket.socket) -> None:
    while True:
        line = reader.readline(1024)
        if not line:
            raise ValueError("the body ended early")
        backend.sendall(line)
        size = int(line.split(b";", 1)[0].strip() or b"0", 16)
        if size == 0:  # the trailers, up to the empty line
            while True:
                trailer = reader.readline(MAX_HEAD)
                if not trailer:
                    raise ValueError("the body ended early")
                backend.sendall(trailer)
                if trailer in (b"\r\n", b"\n"):
                    return
        _forward_bytes(reader, backend, size + 2)


def front(args: argparse.Namespace, instance_path: str, lan: str | None) -> tuple[Front, Any]:
    """The HTTPS front for ``meldcam serve --tls`` (listening already, on ``args.host`` and
    ``args.port``) and the arguments the app's own server then takes: the loopback, a free
    port, trusting the front's ``X-Forwarded-*``, https."""
    cert_path, key_path = certificate(
        Path(instance_path) / "tls", certificate_names(args.host, lan)
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert_path, key_path)
    listening = Front(args.host, args.port, context)
    inner = argparse.Namespace(**vars(args))
    inner.host, inner.port, inner.proxy, inner.https = "127.0.0.1", 0, "127.0.0.1", True
    print(
        f"meldcam: HTTPS with the self-signed certificate {cert_path} "
        f"(SHA-256 {fingerprint(cert_path)})",
        flush=True,
    )
    return listening, inner
