"""The SMTP transport against real aiosmtpd servers: STARTTLS with login, and smtps://."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from service.config import Config
from service.notify import mail
from service.ops.ports import free_port
from tests.notify.conftest import Mailbox


def _certificate(folder: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (the test's private CA)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=1))
            .not_valid_after(now + datetime.timedelta(hours=1))
            .add_extension(x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_path, key_path


def _authenticator(server, session, envelope, mechanism, auth_data) -> AuthResult:  # noqa: ARG001
    ok = isinstance(auth_data, LoginPassword) and auth_data == (b"parley", b"s3cret")
    return AuthResult(success=ok, handled=False)


def _message(config: Config):
    return mail.compose(config, to="ann@example.org", subject="hello", body="board\n",
                        message_id="m1", unsubscribe=None)


@pytest.fixture
def certs(tmp_path: Path) -> tuple[Path, ssl.SSLContext]:
    cert, key = _certificate(tmp_path)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return cert, context


def test_starttls_and_login(certs, monkeypatch) -> None:
    cert, context = certs
    box, port = Mailbox(), free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port, tls_context=context,
                            require_starttls=True, auth_required=True,
                            authenticator=_authenticator)
    controller.start()
    try:
        monkeypatch.setenv("PARLEY_SMTP_URL", f"smtp://parley:s3cret@127.0.0.1:{port}"
                                              f"?cafile={cert}")
        assert mail.send(Config(), _message(Config())) == "smtp:127.0.0.1"
        monkeypatch.setenv("PARLEY_SMTP_URL", f"smtp://parley:wrong@127.0.0.1:{port}"
                                              f"?cafile={cert}")
        with pytest.raises(Exception, match="535|uthentication"):
            mail.send(Config(), _message(Config()))
        monkeypatch.setenv("PARLEY_SMTP_URL", f"smtp://parley:s3cret@127.0.0.1:{port}")
        with pytest.raises(ssl.SSLError):  # an untrusted certificate is refused
            mail.send(Config(), _message(Config()))
    finally:
        controller.stop()
    assert len(box.messages) == 1 and box.messages[0]["Subject"] == "hello"
    assert box.envelopes[0][1] == ["ann@example.org"]


def test_smtps(certs, monkeypatch) -> None:
    cert, context = certs
    box, port = Mailbox(), free_port()
    controller = Controller(box, hostname="127.0.0.1", port=port, ssl_context=context)
    controller.start()
    try:
        monkeypatch.setenv("PARLEY_SMTP_URL", f"smtps://127.0.0.1:{port}?cafile={cert}")
        mail.send(Config(), _message(Config()))
    finally:
        controller.stop()
    assert [m["To"] for m in box.messages] == ["ann@example.org"]



def test_the_tls_settings_are_made_once() -> None:
    from service.notify import mail

    assert mail._tls(None) is mail._tls(None)  # about 25 ms each time they were made
