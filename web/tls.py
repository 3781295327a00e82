"""HTTPS for `tableref serve --https`: browsers give a page the camera only over HTTPS (or on this computer).

Without ``--cert``/``--key`` a self-signed certificate is made on first use (``cryptography``) and kept in
the user's data directory (``tls/``); it names this computer's host name, ``localhost``, the loopback
addresses and the local network address phones use, and is made again when that address is not among its
names. Phones warn about it once per browser (:data:`SELF_SIGNED_WARNING` says why, in plain words).
"""
from __future__ import annotations

import datetime
import ipaddress
import socket
import ssl
from pathlib import Path

from web.http import is_ip

#: What the terminal and the phone page say about the browser's warning.
SELF_SIGNED_WARNING = ("The phone's browser will warn that the connection is not private. That is because this "
                       "computer made its own certificate instead of buying one: the connection is still "
                       "encrypted. Tap \"Advanced\" (or \"Show details\"), then \"Proceed\" (or \"visit this "
                       "website\"). Do it only on your own network, at this address.")
CERT_NAME, KEY_NAME = "cert.pem", "key.pem"
VALID_DAYS = 825


class CertificateError(ValueError):
    """A certificate or key given with --cert/--key cannot be used."""


def lan_address() -> str | None:
    """This computer's address on the local network (the one its default route leaves from); None when it has
    none. Nothing is sent: connecting a UDP socket only picks the route."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never reached, only routed
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if ipaddress.ip_address(address).is_loopback else address


def phone_address(listen: str, port: int, https: bool) -> str | None:
    """The URL of the phone page phones on the local network open; None when the server listens on this
    computer only (``listen`` loopback) or no network address is found."""
    listen = listen.strip("[]")
    if listen in ("0.0.0.0", "::", ""):
        host = lan_address()
    else:
        try:
            host = None if ipaddress.ip_address(listen).is_loopback else listen
        except ValueError:
            host = None if listen == "localhost" else listen
    if host is None:
        return None
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if https else 'http'}://{shown}:{port}/phone"


def _names(extra: list[str]) -> list[object]:
    """The certificate's names: this computer's, loopback's and ``extra`` (addresses or host names)."""
    from cryptography import x509

    dns = sorted({"localhost", socket.gethostname(), *(name for name in extra if not is_ip(name))})
    ips = sorted({"127.0.0.1", "::1", *(name for name in extra if is_ip(name))})
    return [x509.DNSName(name) for name in dns] + [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ips]


def _covers(cert_file: Path, names: list[str]) -> bool:
    """True when the certificate in ``cert_file`` reads, is valid for a month more and carries every ``names``."""
    from cryptography import x509

    try:
        cert = x509.load_pem_x509_certificate(cert_file.read_bytes())
        alternative = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (OSError, ValueError, x509.ExtensionNotFound):
        return False
    named = {str(ip) for ip in alternative.get_values_for_type(x509.IPAddress)}
    named |= set(alternative.get_values_for_type(x509.DNSName))
    fresh = cert.not_valid_after_utc > datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=30)
    return fresh and all(name in named for name in names)


def self_signed(folder: Path, names: list[str]) -> tuple[Path, Path]:
    """The self-signed certificate and key kept in ``folder`` (made, or made again, when missing, unreadable,
    near its end or not carrying every address or host name in ``names``); returns their paths."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    folder.mkdir(parents=True, exist_ok=True)
    cert_file, key_file = folder / CERT_NAME, folder / KEY_NAME
    if key_file.exists() and _covers(cert_file, names):
        return cert_file, key_file
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"tableref on {socket.gethostname()}")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=VALID_DAYS))
            .add_extension(x509.SubjectAlternativeName(_names(names)), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    key_file.touch(mode=0o600)
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_file, key_file


def server_context(cert_file: Path, key_file: Path) -> ssl.SSLContext:
    """An SSL context serving ``cert_file`` with ``key_file``; :class:`CertificateError` saying what is wrong."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    for path in (cert_file, key_file):  # the ssl module's own error names no file
        if not Path(path).exists():
            raise CertificateError(f"no such file: {path}")
    try:
        context.load_cert_chain(str(cert_file), str(key_file))
    except (ssl.SSLError, OSError) as exc:
        raise CertificateError(f"the certificate {cert_file} and key {key_file} cannot be used: {exc}") from None
    return context
