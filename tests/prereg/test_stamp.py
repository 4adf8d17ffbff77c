"""RFC 3161 timestamps of the preregistration, against a real local Time-Stamping Authority.

No network: each test makes a throwaway CA and TSA certificate (``cryptography``; the TSA's with
a critical extendedKeyUsage timeStamping) and serves POSTs on 127.0.0.1 with a small
``http.server`` that pipes each query through ``openssl ts -reply``, the TSA of Debian's openssl.
"""

from __future__ import annotations

import contextlib
import datetime
import http.server
import json
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from study.cli import main
from study.prereg import amend
from study.prereg.files import is_frozen_path, sha256_bytes
from study.prereg.records import canonical_bytes

from .conftest import TREE

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command (its ts TSA)")

STAMPS = "preregistration/stamps"


@dataclass
class LocalTsa:
    """A throwaway TSA: its folder holds ``ca.pem`` (the root), ``tsa.pem``, ``tsa.key`` and the
    ``openssl ts`` configuration; ``name`` is in both subjects."""

    folder: Path
    name: str

    @property
    def ca(self) -> Path:
        return self.folder / "ca.pem"

    @property
    def subject(self) -> str:
        return f"CN={self.name} TSA"


def make_tsa(folder: Path, name: str, *, send_root: bool = True, digests: str = "sha256, sha384, sha512") -> LocalTsa:
    """A CA and a TSA certificate it issued, and an ``openssl ts -reply`` configuration for them.

    With ``send_root`` the response carries the CA certificate after the TSA's (``certs``). The
    CA's long name makes its certificate sort after the TSA's, so the CMS certificate set that
    openssl writes in chain order is in DER order too (rfc3161-client reads strict DER only)."""
    folder.mkdir(parents=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{name} CA"), x509.NameAttribute(
        NameOID.ORGANIZATION_NAME, "Throwaway test CA, whose long name sorts it last")])
    ca_key, tsa_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())

    def certificate(subject, issuer, key, signer, *extensions):
        builder = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer)
                   .public_key(key.public_key()).serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(days=1)).not_valid_after(now + datetime.timedelta(days=30)))
        for extension, critical in extensions:
            builder = builder.add_extension(extension, critical=critical)
        return builder.sign(signer, hashes.SHA256())

    ca = certificate(ca_name, ca_name, ca_key, ca_key,
                     (x509.BasicConstraints(ca=True, path_length=None), True),
                     (x509.KeyUsage(False, False, False, False, False, True, True, False, False), True),
                     (x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False))
    tsa = certificate(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, f"{name} TSA")]), ca_name, tsa_key, ca_key,
                      (x509.BasicConstraints(ca=False, path_length=None), True),
                      (x509.KeyUsage(True, False, False, False, False, False, False, False, False), True),
                      (x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), True),
                      (x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False))
    (folder / "ca.pem").write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    (folder / "tsa.pem").write_bytes(tsa.public_bytes(serialization.Encoding.PEM))
    (folder / "tsa.key").write_bytes(tsa_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    (folder / "serial").write_text("01\n")
    (folder / "ts.cnf").write_text(f"""[ tsa ]
default_tsa = test_tsa
[ test_tsa ]
dir = {folder}
serial = $dir/serial
crypto_device = builtin
signer_cert = $dir/tsa.pem
{"certs = $dir/ca.pem" if send_root else ""}
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.2.3.4.1
other_policies = 1.2.3.4.5
digests = {digests}
accuracy = secs:1
ordering = yes
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
""")
    return LocalTsa(folder, name)


@contextlib.contextmanager
def serving(tsa: LocalTsa, answer: str = "reply"):
    """Serve the TSA on 127.0.0.1; yields its URL. ``answer``: ``reply`` (openssl ts -reply),
    ``garbage`` (HTTP 200 with a page that is no response) or ``error`` (HTTP 500)."""
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            query = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if answer == "error":
                self.send_error(500, "TSA out of order")
                return
            if answer == "garbage":
                body, kind = b"<html>Welcome to our time service</html>", "text/html"
            else:
                assert self.headers["Content-Type"] == "application/timestamp-query"
                with lock:
                    (tsa.folder / "query.tsq").write_bytes(query)
                    subprocess.run(["openssl", "ts", "-reply", "-config", str(tsa.folder / "ts.cnf"),
                                    "-queryfile", str(tsa.folder / "query.tsq"), "-out", str(tsa.folder / "reply.tsr")],
                                   check=True, capture_output=True)
                    body, kind = (tsa.folder / "reply.tsr").read_bytes(), "application/timestamp-reply"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/tsr"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def tsa_a(tmp_path) -> LocalTsa:
    return make_tsa(tmp_path / "tsa-a", "Test A")


@pytest.fixture
def project(frozen, study_root, monkeypatch):
    """The frozen test tree as the ``study`` commands' project; no proxy between them and 127.0.0.1."""
    monkeypatch.setenv("no_proxy", "127.0.0.1,localhost")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.delenv("STUDY_TSA_CA_FILE", raising=False)
    return study_root(frozen)


def study(*args: str):
    return CliRunner().invoke(main, list(args))


def anchor(root: Path) -> str:
    line = study("prereg", "show", "--anchor").output
    return line.split("manifest_sha256=")[-1].strip()


def stamp(url: str, *extra: str):
    return study("prereg", "stamp", "--tsa", url, *extra)


def test_stamp_then_verify_says_what_the_token_proves(project, tsa_a, git):
    freeze = json.loads((project / "preregistration/freeze.json").read_text(encoding="utf-8"))
    expected = anchor(project)
    # the anchor is the sha256 of the canonical form of the chain's last record: here freeze.json
    assert expected == freeze["sha256"] == sha256_bytes(canonical_bytes(freeze))
    with serving(tsa_a) as url:
        done = stamp(url, "--ca-file", str(tsa_a.ca))
    assert done.exit_code == 0, done.output
    record = json.loads((project / STAMPS / "1.json").read_text(encoding="utf-8"))
    assert record["anchor"] == expected and record["record"] == "the freeze"
    assert record["tsa_url"] == url and record["tsa"] == tsa_a.subject
    assert record["git_commit"] == freeze["git_commit"] and record["serial"].startswith("0x")
    assert int(record["nonce"], 16) > 0
    assert sorted(p.name for p in (project / STAMPS).iterdir()) == ["1.json", "1.pem", "1.tsr"]
    assert f"Stamped the freeze ({expected}) at {record['time']} by {tsa_a.subject}." in done.output

    # by hand, with nothing of ours: the command the README gives
    by_hand = subprocess.run(["openssl", "ts", "-verify", "-digest", expected, "-in", f"{STAMPS}/1.tsr",
                              "-CAfile", str(tsa_a.ca), "-untrusted", f"{STAMPS}/1.pem"],
                             cwd=project, capture_output=True, text=True)
    assert "Verification: OK" in by_hand.stdout, by_hand.stdout + by_hand.stderr
    text = subprocess.run(["openssl", "ts", "-reply", "-in", f"{STAMPS}/1.tsr", "-text"], cwd=project,
                          capture_output=True, text=True).stdout
    assert f"Serial number: {record['serial']}" in text.replace("0x0", "0x")

    verified = study("prereg", "verify", "--ca-file", str(tsa_a.ca))
    assert verified.exit_code == 0, verified.output
    assert (f"stamp    1: stamped {record['time']} by {tsa_a.subject}; covers the preregistration as frozen at "
            f"{freeze['git_commit'][:12]}/{expected}: the state in effect") in verified.output
    assert f"checked against the CA file {tsa_a.ca}" in verified.output
    assert ", 0 added." in verified.output and "REFUSED" not in verified.output
    assert "The preregistration holds." in verified.output

    # without a CA file: the token's own certificates, said plainly
    own = study("prereg", "verify")
    assert own.exit_code == 0, own.output
    assert "checked only against the certificates the TSA sent with it" in own.output
    assert "not who the TSA is" in own.output
    # the CA file from the environment
    assert f"the CA file {tsa_a.ca}" in CliRunner().invoke(
        main, ["prereg", "verify"], env={"STUDY_TSA_CA_FILE": str(tsa_a.ca)}).output

    # committed, the stamp is a record of the freeze: the history and the code version stay clean
    git(project, "add", STAMPS)
    git(project, "commit", "-qm", "timestamp the preregistration")
    after = study("prereg", "verify", "--ca-file", str(tsa_a.ca))
    assert after.exit_code == 0 and "BROKEN" not in after.output, after.output


def test_stamp_files_are_records_not_frozen_files(project, tsa_a):
    for name in ("1.tsr", "1.pem", "1.json", "12.tsr"):
        assert not is_frozen_path(f"{STAMPS}/{name}")
    for name in ("notes.md", "1.txt", "0.tsr", "x/1.tsr"):
        assert is_frozen_path(f"{STAMPS}/{name}")
    with serving(tsa_a) as url:
        assert stamp(url).exit_code == 0
        assert stamp(url).exit_code == 0
    first = (project / STAMPS / "1.tsr").read_bytes()
    assert sorted(p.name for p in (project / STAMPS).iterdir()) == [
        "1.json", "1.pem", "1.tsr", "2.json", "2.pem", "2.tsr"]
    verified = study("prereg", "verify")
    assert verified.exit_code == 0 and ", 0 added." in verified.output, verified.output
    assert "stamp    1: " in verified.output and "stamp    2: " in verified.output
    refused = study("prereg", "amend", "--reason", "x", f"{STAMPS}/1.json")
    assert refused.exit_code == 2 and "is not a frozen file" in refused.output
    assert (project / STAMPS / "1.tsr").read_bytes() == first     # a stamp never overwrites another

    (project / STAMPS / "notes.md").write_text("not a stamp\n", encoding="utf-8")
    added = study("prereg", "verify")
    assert added.exit_code == 1 and f"added    {STAMPS}/notes.md" in added.output


def test_no_stamp_is_a_note_not_a_failure(project):
    verified = study("prereg", "verify")
    assert verified.exit_code == 0, verified.output
    assert "note     no RFC 3161 timestamp" in verified.output


def _flip(data: bytes, old: bytes, new: bytes) -> bytes:
    assert data.count(old) == 1
    return data.replace(old, new)


def test_a_tampered_token_is_refused_with_the_reason(project, tsa_a):
    with serving(tsa_a) as url:
        assert stamp(url, "--ca-file", str(tsa_a.ca)).exit_code == 0
    path = project / STAMPS / "1.tsr"
    genuine = path.read_bytes()
    record = json.loads((project / STAMPS / "1.json").read_text(encoding="utf-8"))
    stated = record["time"].replace("-", "").replace(":", "").replace("T", "").encode()   # GeneralizedTime
    minute = int(stated[10:12])
    earlier = stated[:10] + b"%02d" % ((minute + 59) % 60) + stated[12:]     # another minute, as signed

    path.write_bytes(_flip(genuine, stated, earlier))
    for command in (["prereg", "verify", "--ca-file", str(tsa_a.ca)], ["prereg", "verify"]):
        done = study(*command)
        assert done.exit_code == 1, done.output
        assert (f"REFUSED  stamp 1 ({STAMPS}/1.tsr) is refused: its CMS signature does not match its content: "
                "the token was altered after the TSA signed it") in done.output
        assert "but a stored timestamp is refused" in done.output and "stamp    1:" not in done.output

    imprint = bytes.fromhex(record["anchor"])
    path.write_bytes(_flip(genuine, imprint, bytes([imprint[0] ^ 1]) + imprint[1:]))
    done = study("prereg", "verify", "--ca-file", str(tsa_a.ca))
    assert done.exit_code == 1
    assert f"{STAMPS}/1.json says it stamped {record['anchor']}, but the token covers" in done.output
    (project / STAMPS / "1.json").unlink()          # the token on its own: its signature gives it away
    done = study("prereg", "verify", "--ca-file", str(tsa_a.ca))
    assert done.exit_code == 1 and "its CMS signature does not match its content" in done.output, done.output

    path.write_bytes(b"not a token at all")
    done = study("prereg", "verify")
    assert done.exit_code == 1 and "is refused: not an RFC 3161 timestamp response" in done.output


def test_an_edited_record_is_refused(project, tsa_a):
    with serving(tsa_a) as url:
        assert stamp(url).exit_code == 0
    path = project / STAMPS / "1.json"
    record = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**record, "time": "2020-01-01T00:00:00Z"}), encoding="utf-8")
    done = study("prereg", "verify")
    assert done.exit_code == 1
    assert f"{STAMPS}/1.json says time 2020-01-01T00:00:00Z, but the token states {record['time']}" in done.output


def test_an_old_stamp_covers_an_earlier_state_and_says_so(project, tsa_a, git):
    freeze = json.loads((project / "preregistration/freeze.json").read_text(encoding="utf-8"))
    with serving(tsa_a) as url:
        assert stamp(url, "--ca-file", str(tsa_a.ca)).exit_code == 0
        (project / "preregistration/plan.md").write_text(TREE["preregistration/plan.md"] + "\nv2\n", encoding="utf-8")
        entry = amend(["preregistration/plan.md"], "clarify the plan", root=project)
        git(project, "commit", "-qam", "amend the plan")

        verified = study("prereg", "verify", "--ca-file", str(tsa_a.ca))
        assert verified.exit_code == 0, verified.output
        assert (f"covers the preregistration as frozen at {freeze['git_commit'][:12]}/{freeze['sha256']}: "
                f"an EARLIER state of the chain (the freeze), not the one in effect (amendment 1, {entry['sha256']})"
                ) in verified.output
        assert f"note     no stamp covers the state in effect (amendment 1, {entry['sha256']})" in verified.output

        again = stamp(url, "--ca-file", str(tsa_a.ca))
    assert again.exit_code == 0, again.output
    assert f"Stamped amendment 1 ({entry['sha256']})" in again.output
    second = json.loads((project / STAMPS / "2.json").read_text(encoding="utf-8"))
    assert second["anchor"] == entry["sha256"] == anchor(project) and second["amendments"] == 1
    verified = study("prereg", "verify", "--ca-file", str(tsa_a.ca))
    assert verified.exit_code == 0, verified.output
    assert (f"stamp    2: stamped {second['time']} by {tsa_a.subject}; covers the preregistration as amended by "
            f"amendment 1 at {entry['git_commit'][:12]}/{entry['sha256']}: the state in effect") in verified.output
    assert "an EARLIER state of the chain (the freeze)" in verified.output
    assert "no stamp covers the state in effect" not in verified.output


def test_a_stamp_of_another_preregistration_is_refused(project, tsa_a, tmp_path, tree_copy):
    with serving(tsa_a) as url:
        assert stamp(url).exit_code == 0
    other = tree_copy(tmp_path / "other")
    shutil.copytree(project / STAMPS, other / STAMPS)
    foreign = json.loads((other / STAMPS / "1.json").read_text(encoding="utf-8"))["anchor"]
    done = CliRunner().invoke(main, ["prereg", "verify"], env={"STUDY_ROOT": str(other)})
    assert done.exit_code == 1, done.output
    assert (f"REFUSED  stamp 1 ({STAMPS}/1.tsr) is refused: it covers {foreign}, which is no record of this "
            "preregistration's chain") in done.output


@pytest.fixture
def tree_copy(git, freeze_tree):
    """``tree_copy(dest)``: another frozen checkout, its plan different from the test tree's."""
    def make(dest: Path) -> Path:
        for rel, text in TREE.items():
            path = dest / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text + ("\nanother study\n" if rel.endswith("plan.md") else ""), encoding="utf-8")
        from study.prereg.runtime import write_runtime
        write_runtime(dest)
        git(dest, "init", "-q")
        git(dest, "add", ".")
        git(dest, "commit", "-qm", "plan")
        return freeze_tree(dest)
    return make


def test_a_token_from_a_tsa_the_ca_file_does_not_trust_is_refused(project, tsa_a, tmp_path):
    tsa_b = make_tsa(tmp_path / "tsa-b", "Test B")
    with serving(tsa_b) as url:
        refused = stamp(url, "--ca-file", str(tsa_a.ca))
        assert refused.exit_code == 1
        assert refused.output.count("\n") == 1 and refused.output.startswith("Error: ")
        assert (f"did not answer with a valid token: its signer's certificate chain does not verify against the CA "
                f"file {tsa_a.ca}") in refused.output
        assert not (project / STAMPS).exists()
        assert stamp(url).exit_code == 0          # kept on its own word ...
    done = study("prereg", "verify", "--ca-file", str(tsa_a.ca))   # ... which the CA file does not back
    assert done.exit_code == 1, done.output
    assert (f"REFUSED  stamp 1 ({STAMPS}/1.tsr) is refused: its signer's certificate chain does not verify "
            f"against the CA file {tsa_a.ca}") in done.output
    assert study("prereg", "verify", "--ca-file", str(tsa_b.ca)).exit_code == 0

    sessions = project / "sessions"
    sessions.mkdir()
    audited = study("audit", "--sessions", str(sessions), "--ca-file", str(tsa_a.ca))
    assert audited.exit_code == 1 and "REFUSED  stamp 1" in audited.output, audited.output
    assert "A stored timestamp is refused (REFUSED above): the audit fails." in audited.output
    trusted = study("audit", "--sessions", str(sessions), "--ca-file", str(tsa_b.ca))
    assert trusted.exit_code == 4 and f"stamp    1: stamped" in trusted.output, trusted.output


def test_a_token_without_its_root_needs_the_ca_file(project, tmp_path):
    leaf_only = make_tsa(tmp_path / "tsa-c", "Test C", send_root=False)
    with serving(leaf_only) as url:
        refused = stamp(url)
        assert refused.exit_code == 1 and "the token carries no root certificate" in refused.output
        assert not (project / STAMPS).exists()
        assert stamp(url, "--ca-file", str(leaf_only.ca)).exit_code == 0
    assert study("prereg", "verify", "--ca-file", str(leaf_only.ca)).exit_code == 0
    unchecked = study("prereg", "verify")
    assert unchecked.exit_code == 1 and "give the TSA's CA certificate with --ca-file" in unchecked.output


@pytest.mark.parametrize("answer, says", [
    ("garbage", "did not answer with a valid token: not an RFC 3161 timestamp response"),
    ("error", "answered HTTP 500"),
    ("rejection", "did not answer with a valid token: the TSA refused: status REJECTION"),
])
def test_a_tsa_that_fails_stores_nothing(project, tmp_path, answer, says):
    tsa = make_tsa(tmp_path / "tsa", "Test", digests="sha384" if answer == "rejection" else "sha256")
    with serving(tsa, "reply" if answer == "rejection" else answer) as url:
        done = stamp(url)
    assert done.exit_code == 1, done.output
    assert done.output.startswith("Error: ") and done.output.count("\n") == 1, done.output
    assert says in done.output and "nothing was stored" in done.output
    assert not (project / STAMPS).exists()


def test_stamp_refuses_bad_input_before_asking(project, tmp_path):
    assert "is not an http:// or https:// URL" in stamp("ftp://example.org/tsr").output
    assert stamp("ftp://example.org/tsr").exit_code == 2
    unreachable = stamp("http://127.0.0.1:9/tsr")
    assert unreachable.exit_code == 1 and "could not reach the TSA" in unreachable.output
    not_pem = tmp_path / "ca.pem"
    not_pem.write_text("no certificate here\n", encoding="utf-8")
    bad = stamp("http://127.0.0.1:9/tsr", "--ca-file", str(not_pem))
    assert bad.exit_code == 2 and "holds no certificate" in bad.output
    assert not (project / STAMPS).exists()
