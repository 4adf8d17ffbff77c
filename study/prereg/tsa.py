"""RFC 3161 timestamps: ask a Time-Stamping Authority (TSA) for a token, and check one offline.

The ASN.1 and CMS work is the library's: ``rfc3161-client`` (Trail of Bits, on ``cryptography``
and OpenSSL) builds the request (SHA-256 message imprint, a random nonce, certReq), reads the
response, and checks the CMS signature, the signer's certificate chain *at the time the token
states*, the signer's critical timeStamping key usage, the nonce and the message imprint. What is
written here is only what it does not do, each for the reason given:

- the transport: the library has none, so ``ask`` POSTs the request (``application/timestamp-query``)
  with the standard library;
- the choice of trust anchors: the library checks the chain against whatever roots it is given;
  deciding that these are the user's CA file or else (saying so) the self-signed certificates the
  token carries is ours;
- the reading of its errors: the library raises an OpenSSL error stack; ``check`` turns it into one
  line saying what is wrong (an altered token, a chain that does not reach the CA file, ...);
- putting the certificates the token carries in chain order (signer first) for a PEM file: the
  CMS ``SET OF`` has no order.

rfc3161-client before 1.0.9 added the certificates a token carries to the trusted ones, so a token
signed under any self-made CA passed against any CA file; ``check`` refuses to run on such a version.
"""

from __future__ import annotations

import http.client
import re
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.serialization import Encoding
from packaging.version import Version
from rfc3161_client import (
    HashAlgorithm, PKIStatus, TimestampRequestBuilder, TimeStampRequest, TimeStampResponse, VerificationError,
    VerifierBuilder, decode_timestamp_response,
)

from study.errors import StudyError

#: The message imprint's hash: the anchor it covers is a SHA-256.
SHA256_OID = x509.ObjectIdentifier("2.16.840.1.101.3.4.2.1")
#: The first rfc3161-client that trusts only the roots it is given (see the module docstring).
LIBRARY_MINIMUM = Version("1.0.9")
#: A timestamp response is a few kilobytes; anything far larger is not one.
_MAX_RESPONSE = 1 << 20
_TIMEOUT = 30.0


class TsaError(StudyError):
    """The TSA could not be asked, or did not answer with a token (nothing was stored)."""


class CaFileError(StudyError):
    """The CA file given cannot be read as certificates."""


class TokenRefused(StudyError):
    """A token that does not verify; the message is the reason, in one line."""


@dataclass(frozen=True)
class Trust:
    """What a token's certificate chain is checked against: the certificates of ``ca_file``, or
    (``ca_file`` None) the self-signed certificates the token carries itself."""

    ca_file: Path | None = None
    roots: tuple[x509.Certificate, ...] = ()

    @classmethod
    def from_ca_file(cls, path: Path | None) -> Trust:
        """Read ``path`` (PEM, one or more certificates; or one DER certificate); None: the token's own."""
        if path is None:
            return cls()
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            raise CaFileError(f"cannot read the CA file {path}: {exc.strerror}; give the TSA's CA certificate "
                             "(PEM) with --ca-file or STUDY_TSA_CA_FILE") from exc
        try:
            roots = (x509.load_pem_x509_certificates(data) if b"-----BEGIN" in data
                     else [x509.load_der_x509_certificate(data)])
        except ValueError as exc:
            raise CaFileError(f"{path} holds no certificate ({exc}); give the TSA's CA certificate (PEM) "
                             "with --ca-file or STUDY_TSA_CA_FILE") from exc
        return cls(Path(path), tuple(roots))

    def describe(self) -> str:
        if self.ca_file is not None:
            return f"its certificate chain checked against the CA file {self.ca_file}"
        return ("its certificate chain checked only against the certificates the TSA sent with it: this shows "
                "the token is intact, not who the TSA is (give the TSA's CA certificate with --ca-file or "
                "STUDY_TSA_CA_FILE to check that)")


@dataclass(frozen=True)
class Token:
    """A verified timestamp: what the TSA signed, and who signed it."""

    #: The TSA's response as received (DER): status and token, what ``openssl ts -verify -in`` reads.
    response: bytes
    #: The message imprint (hex): the SHA-256 the token covers.
    imprint: str
    time: datetime
    serial: int
    nonce: int | None
    policy: str
    signer: x509.Certificate
    #: The certificates the token carries, signer first, then each one's issuer.
    certificates: tuple[x509.Certificate, ...]

    @property
    def tsa(self) -> str:
        """The signer's subject, e.g. ``CN=Example TSA,O=Example``."""
        return self.signer.subject.rfc4514_string()

    def certificates_pem(self) -> bytes:
        return b"".join(cert.public_bytes(Encoding.PEM) for cert in self.certificates)


def request_over(data: bytes) -> TimeStampRequest:
    """A timestamp request whose message imprint is SHA-256(``data``), with a nonce and certReq."""
    return (TimestampRequestBuilder().data(data).hash_algorithm(HashAlgorithm.SHA256)
            .nonce(nonce=True).cert_request(cert_request=True).build())


def ask(url: str, query: bytes) -> bytes:
    """POST ``query`` to the TSA at ``url``; the body of its answer. Raises ``TsaError``."""
    request = urllib.request.Request(url, data=query, method="POST", headers={
        "Content-Type": "application/timestamp-query", "Accept": "application/timestamp-reply"})
    try:
        with urllib.request.urlopen(request, timeout=_TIMEOUT) as answer:
            body = answer.read(_MAX_RESPONSE + 1)
    except urllib.error.HTTPError as exc:
        raise TsaError(f"the TSA at {url} answered HTTP {exc.code} {exc.reason}; nothing was stored "
                       "(check the URL, or try again later)") from exc
    except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise TsaError(f"could not reach the TSA at {url}: {reason}; nothing was stored") from exc
    if len(body) > _MAX_RESPONSE:
        raise TsaError(f"the TSA at {url} answered more than {_MAX_RESPONSE} bytes: not a timestamp response; "
                       "nothing was stored")
    return body


def read(data: bytes) -> TimeStampResponse:
    """Parse a timestamp response (DER); ``TokenRefused`` if it is not one, or holds no token."""
    try:
        response = decode_timestamp_response(data)
    except ValueError as exc:
        raise TokenRefused(f"not an RFC 3161 timestamp response ({_parse_error(exc)})") from exc
    if response.status != PKIStatus.GRANTED:     # the library verifies a plainly granted token only
        strings = "; ".join(response.status_string) if response.status_string else "no reason given"
        raise TokenRefused(f"the TSA refused: status {_status_name(response.status)} ({strings})")
    try:
        info = response.tst_info
    except ValueError as exc:
        raise TokenRefused(f"the response holds no readable token ({exc})") from exc
    if info.message_imprint.hash_algorithm != SHA256_OID:
        algorithm = info.message_imprint.hash_algorithm.dotted_string
        raise TokenRefused(f"its message imprint is not a SHA-256 (hash algorithm {algorithm})")
    return response


def imprint_of(response: TimeStampResponse) -> str:
    """The message imprint of a response ``read`` accepted, in hex."""
    return response.tst_info.message_imprint.message.hex()


def check(data: bytes, trust: Trust, digest: str, nonce: int | None = None) -> Token:
    """Verify the timestamp response ``data`` (DER) offline: it is a granted token whose CMS
    signature holds, whose signer has the critical timeStamping key usage and chains to ``trust``
    at the time the token states, whose imprint is ``digest`` (hex SHA-256) and, if given, whose
    nonce is ``nonce``. Returns the token; raises ``TokenRefused`` with the reason."""
    _library_trusts_only_its_roots()
    response = read(data)
    if imprint_of(response) != digest:
        raise TokenRefused(f"its message imprint is {imprint_of(response)}, not {digest}")
    if nonce is not None and response.tst_info.nonce != nonce:
        raise TokenRefused(f"its nonce is {_hex(response.tst_info.nonce)}, not the {_hex(nonce)} that was sent")
    carried = [x509.load_der_x509_certificate(der) for der in response.signed_data.certificates]
    roots = list(trust.roots) if trust.ca_file is not None else [c for c in carried if _self_signed(c)]
    if not roots:
        names = ", ".join(c.subject.rfc4514_string() for c in carried) or "none"
        raise TokenRefused(f"the token carries no root certificate (only: {names}), so its chain cannot be "
                           "checked offline; give the TSA's CA certificate with --ca-file or STUDY_TSA_CA_FILE")
    builder = VerifierBuilder()
    for root in _unique(roots):
        builder = builder.add_root_certificate(root)
    try:
        builder.build().verify(response, bytes.fromhex(digest))
    except VerificationError as exc:
        raise TokenRefused(_verification_error(str(exc), trust)) from exc
    signer = _signer(response, carried)
    info = response.tst_info
    return Token(response=data, imprint=digest, time=_utc(info.gen_time), serial=info.serial_number,
                 nonce=info.nonce, policy=info.policy.dotted_string, signer=signer,
                 certificates=tuple(_chain_order(signer, carried)))


def time_text(moment: datetime) -> str:
    """``2026-12-04T05:12:33Z`` (fractions of a second only when the token states them)."""
    spec = "microseconds" if moment.microsecond else "seconds"
    return moment.astimezone(timezone.utc).isoformat(timespec=spec).replace("+00:00", "Z")


def _hex(number: int | None) -> str:
    return "none" if number is None else f"0x{number:X}"


def _library_trusts_only_its_roots() -> None:
    try:
        installed = Version(version("rfc3161-client"))
    except PackageNotFoundError:     # imported from a source tree: trust the version the lock pins
        return
    if installed < LIBRARY_MINIMUM:
        raise StudyError(f"rfc3161-client {installed} trusts the certificates a token carries, so a forged token "
                         f"would pass; install rfc3161-client>={LIBRARY_MINIMUM}")


def _parse_error(exc: ValueError) -> str:
    text = str(exc)
    if "InvalidSetOrdering" in text and "certificates" in text:
        return ("its certificate set is not in DER order: rfc3161-client reads strict DER only; use a TSA "
                "whose responses are strict DER")
    kind = re.search(r"kind: (\w+)", text)
    where = re.search(r'location: \[([^\]]*)\]', text)
    if kind:
        return f"ASN.1 {kind.group(1)}" + (f" at {where.group(1).replace(chr(34), '')}" if where else "")
    return text.splitlines()[0] if text else type(exc).__name__


def _status_name(status: int) -> str:
    try:
        return PKIStatus(status).name
    except ValueError:
        return str(status)


def _verification_error(text: str, trust: Trust) -> str:
    """One line from the library's error (an OpenSSL error stack inside, for the CMS checks)."""
    if "digest failure" in text or "signature failure" in text:
        return "its CMS signature does not match its content: the token was altered after the TSA signed it"
    chain = re.search(r'Verify error: ([^"]+)"', text)
    if chain:
        against = f"the CA file {trust.ca_file}" if trust.ca_file is not None else "the certificates it carries"
        return f"its signer's certificate chain does not verify against {against}: {chain.group(1)}"
    if "Unable to verify pkcs7" in text:
        return "its CMS signature does not verify: " + text.rsplit("reason: ", 1)[-1].split(",")[0].strip('"')
    return text.rstrip(".")


def _self_signed(cert: x509.Certificate) -> bool:
    if cert.subject != cert.issuer:
        return False
    try:
        cert.verify_directly_issued_by(cert)
    except (InvalidSignature, ValueError, TypeError):
        return False
    return True


def _unique(certs: list[x509.Certificate]) -> list[x509.Certificate]:
    seen: list[x509.Certificate] = []
    for cert in certs:
        if cert not in seen:
            seen.append(cert)
    return seen


def _signer(response: TimeStampResponse, carried: list[x509.Certificate]) -> x509.Certificate:
    """The certificate the SignerInfo names (issuer and serial), as the library chose it."""
    info = next(iter(response.signed_data.signer_infos))
    return next(c for c in carried if c.issuer == info.issuer and c.serial_number == info.serial_number)


def _chain_order(signer: x509.Certificate, carried: list[x509.Certificate]) -> list[x509.Certificate]:
    ordered = [signer]
    rest = [c for c in carried if c != signer]
    while rest:
        issuer = next((c for c in rest if c.subject == ordered[-1].issuer), None)
        if issuer is None:
            break
        ordered.append(issuer)
        rest.remove(issuer)
    return ordered + rest


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
