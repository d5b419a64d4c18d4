"""The mailer seam: templates, the outbox mailer, the SMTP mailer against a real local
SMTP server (aiosmtpd on loopback), and the choice between them from the settings."""
from __future__ import annotations

import logging
import socket
import ssl
import time
from pathlib import Path

import pytest
from aiosmtpd.smtp import AuthResult, LoginPassword

from config import JsonLogFormatter
from integrations.mail import MailRejected, MailUnavailable, Message, get_mailer
from integrations.mail.outbox import OutboxMailer, links_in
from integrations.mail.render import render
from integrations.mail.smtp import SmtpMailer, credentials_allowed
from tests.conftest import SETTINGS
from tests.helpers import in_threads
from tests.redis_server import free_port
from tests.stand_ins import Recorder, parse

LINK = "http://localhost/login?token=Zm9vYmFyLXNpZ24taW4tdG9rZW4&next=%2Fdashboard"

# A self-signed certificate for localhost / 127.0.0.1, used only by the loopback test
# server (the mailer does not verify certificates on loopback, by design).
TEST_KEY = """-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgNE0GaQrNCGUQoqZp
v4fY/Bqb268m5Tex99H0XbNaJ0ahRANCAAR+6NQUx6F0hVDR9KTk+TxbcQmAaZmD
sKOwsD9aTgOSgIKdr8tUWBEaDiuOp/PDidufuB9IdTIkbNX0CsNVBVCG
-----END PRIVATE KEY-----
"""
TEST_CERT = """-----BEGIN CERTIFICATE-----
MIIBnDCCAUGgAwIBAgIUP5zC0iHY9LoB1sMl8/c0TfjfuWYwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyMjExMTA1M1oYDzIxMjYxMDI5
MTExMDUzWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAAR+6NQUx6F0hVDR9KTk+TxbcQmAaZmDsKOwsD9aTgOSgIKdr8tUWBEa
DiuOp/PDidufuB9IdTIkbNX0CsNVBVCGo28wbTAdBgNVHQ4EFgQUro0s+1fhi7PE
cfUTTSFjErm7pWYwHwYDVR0jBBgwFoAUro0s+1fhi7PEcfUTTSFjErm7pWYwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSQAwRgIhAKIITtFusWgej1QxFc67qN9T+EyN9BEx2pd+bZSYmpBiAiEA
gUWd8W037Ti+ZVmXZjnrdwjXPsOjhEr1iMOR7UbKIuI=
-----END CERTIFICATE-----
"""


def sign_in_message(to="founder@example.com", link=LINK) -> Message:
    subject, text, html = render("sign_in", link=link, minutes=15, email=to)
    return Message(to=to, subject=subject, text=text, html=html)


def parts(mail) -> dict[str, str]:
    """The parts by type, with the CRLF line ends of the wire read back as \\n."""
    return {part.get_content_type(): part.get_content().replace("\r\n", "\n") for part in mail.iter_parts()}


# --- templates -----------------------------------------------------------------------


def test_sign_in_mail_has_a_subject_a_text_and_an_html_part():
    subject, text, html = render("sign_in", link=LINK, minutes=15, email="founder@example.com")
    assert subject == "Your sign-in link"
    assert LINK in text
    assert "works once" in text and "15 minutes" in text and "ignore" in text
    assert "founder@example.com" in text
    # In HTML the & of the query string is written as &amp;, which a browser reads back as &.
    assert f'href="{LINK.replace("&", "&amp;")}"' in html
    assert "works once" in html and "15 minutes" in html and "ignore" in html


def test_watch_available_mail_names_the_product_and_links_to_it():
    link = "http://localhost/products/p-42"
    subject, text, html = render("watch_available", product_name="Bamboo desk lamp", link=link, email="f@example.com")
    assert subject == "Bamboo desk lamp is available again"
    assert "Bamboo desk lamp" in text and link in text and "available" in text
    assert "Bamboo desk lamp" in html and f'href="{link}"' in html


def test_hostile_value_is_escaped_in_html_and_literal_in_text():
    hostile = '<script>alert("x")</script>'
    subject, text, html = render("watch_available", product_name=hostile, link="http://localhost/p/1", email="f@example.com")
    assert "<script>" not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html
    assert hostile in text
    assert hostile in subject


def test_subject_is_one_line_whatever_the_value():
    subject, _, _ = render("watch_available", product_name="Lamp\r\nBcc: victim@example.com\n", link="http://localhost/p/1",
                           email="f@example.com")
    assert subject == "Lamp Bcc: victim@example.com is available again"


def test_missing_template_value_is_an_error_not_a_blank():
    with pytest.raises(Exception, match="minutes"):
        render("sign_in", link=LINK, email="f@example.com")


def test_templates_load_no_external_resources():
    for name, context in (("sign_in", {"link": LINK, "minutes": 15, "email": "f@example.com"}),
                          ("watch_available", {"product_name": "Lamp", "link": "http://localhost/p/1", "email": "f@example.com"})):
        _, _, html = render(name, **context)
        assert "<img" not in html and "<link" not in html and "<script" not in html and "url(" not in html


# --- the outbox mailer -----------------------------------------------------------------


def test_outbox_writes_one_parseable_eml_with_both_parts(tmp_path):
    outbox = tmp_path / "outbox"  # does not exist yet: the mailer makes it
    mailer = OutboxMailer(outbox, from_address="no-reply@localhost")
    message = sign_in_message()
    mailer.send(message)

    [path] = list(outbox.iterdir())
    assert path.suffix == ".eml"
    mail = parse(path.read_bytes())
    assert mail["To"] == "founder@example.com"
    assert mail["Subject"] == "Your sign-in link"
    assert mail["From"] == "no-reply@localhost"
    assert mail["Date"] is not None and mail["Message-ID"].endswith("@localhost>")
    assert mail.get_content_type() == "multipart/alternative"
    body = parts(mail)
    assert body["text/plain"] == message.text
    assert body["text/html"] == message.html


def test_outbox_logs_the_link_on_the_outbox_logger(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    mailer = OutboxMailer(tmp_path, from_address="no-reply@localhost")
    mailer.send(sign_in_message())

    [line] = [r for r in caplog.records if r.getMessage() == "mail written to outbox"]
    assert line.name == "outbox" and line.levelno == logging.INFO
    assert line.fields["to"] == "founder@example.com"
    assert line.fields["subject"] == "Your sign-in link"
    assert line.fields["links"] == [LINK]
    assert Path(line.fields["file"]).is_file() and Path(line.fields["file"]).parent == tmp_path
    assert LINK in JsonLogFormatter().format(line)


def test_outbox_log_links_are_the_urls_of_the_text_without_sentence_punctuation():
    text = "Open https://a.example/x?t=1. Or (http://b.example/y), then https://a.example/x?t=1 again; ftp://c.example/z."
    assert links_in(text) == ["https://a.example/x?t=1", "http://b.example/y"]


def test_outbox_writes_international_addresses_and_encodes_other_headers(tmp_path):
    mailer = OutboxMailer(tmp_path, from_address="no-reply@localhost")
    mailer.send(Message(to="jörg@exämple.com", subject="Grüße", text="ü", html="<p>ü</p>"))
    mailer.send(Message(to="Jörg <j@example.com>", subject="Grüße", text="ü", html="<p>ü</p>"))
    by_to = {}
    for path in tmp_path.glob("*.eml"):
        raw = path.read_bytes()
        by_to[parse(raw)["To"]] = raw
    assert set(by_to) == {"jörg@exämple.com", "Jörg <j@example.com>"}
    assert parse(by_to["jörg@exämple.com"])["Subject"] == "Grüße"
    # Only the address that needs it gets raw UTF-8 headers; the other stays 7-bit (RFC 2047).
    assert by_to["Jörg <j@example.com>"].split(b"\r\n\r\n")[0].isascii()


def test_a_header_with_a_line_break_is_rejected_not_written(tmp_path):
    with pytest.raises(MailRejected):
        OutboxMailer(tmp_path, from_address="no-reply@localhost").send(
            Message(to="a@example.com", subject="Hi\nBcc: b@example.com", text="t", html="h"))
    assert list(tmp_path.iterdir()) == []


def test_outbox_takes_its_default_sender_from_the_base_url(tmp_path):
    OutboxMailer(tmp_path).send(sign_in_message())
    [path] = tmp_path.glob("*.eml")
    assert parse(path.read_bytes())["From"] == "no-reply@localhost"  # SETTINGS.base_url is http://localhost


def test_outbox_is_accepting_when_its_folder_is_writable(tmp_path):
    assert OutboxMailer(tmp_path / "new" / "outbox").accepting() is True
    assert (tmp_path / "new" / "outbox").is_dir()


def test_unwritable_outbox_is_not_accepting_and_send_raises_mail_unavailable(tmp_path, caplog):
    # A folder below a regular file can never be made, not even by root.
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    mailer = OutboxMailer(blocker / "outbox", from_address="no-reply@localhost")
    assert mailer.accepting() is False
    with pytest.raises(MailUnavailable):
        mailer.send(sign_in_message())
    assert not [r for r in caplog.records if r.getMessage() == "mail written to outbox"]
    assert LINK not in "\n".join(JsonLogFormatter().format(r) for r in caplog.records)


def test_concurrent_sends_write_one_whole_file_each_and_no_temporary_file(tmp_path):
    mailer = OutboxMailer(tmp_path, from_address="no-reply@localhost")
    in_threads(20, lambda i: mailer.send(sign_in_message(to=f"f{i}@example.com")))
    files = list(tmp_path.iterdir())
    assert len(files) == 20 and all(f.suffix == ".eml" for f in files)
    assert sorted(parse(f.read_bytes())["To"] for f in files) == sorted(f"f{i}@example.com" for i in range(20))


# --- the SMTP mailer, against a real SMTP server on loopback -------------------------


@pytest.fixture
def server_tls(tmp_path):
    (tmp_path / "key.pem").write_text(TEST_KEY)
    (tmp_path / "cert.pem").write_text(TEST_CERT)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    return context


class Authenticator:
    """Accepts one login and password; records each attempt and whether it came over TLS."""

    def __init__(self, user: str, password: str):
        self.user, self.password = user.encode(), password.encode()
        self.attempts = []

    def __call__(self, server, session, envelope, mechanism, auth_data):
        assert isinstance(auth_data, LoginPassword)
        ok = (auth_data.login, auth_data.password) == (self.user, self.password)
        self.attempts.append((auth_data.login, ok, server.transport.get_extra_info("ssl_object") is not None))
        return AuthResult(success=ok, handled=False)  # handled=False: the server answers 535 itself


def test_smtp_delivers_both_parts_to_the_server(smtp_server):
    handler = Recorder()
    server = smtp_server(handler)
    mailer = SmtpMailer(f"smtp://127.0.0.1:{server.port}", from_address="no-reply@localhost")
    message = sign_in_message()
    mailer.send(message)

    [got] = handler.received
    assert got["mail_from"] == "no-reply@localhost"
    assert got["rcpt_tos"] == ["founder@example.com"]
    mail = parse(got["content"])
    assert (mail["To"], mail["Subject"], mail["From"]) == ("founder@example.com", "Your sign-in link", "no-reply@localhost")
    assert mail.get_content_type() == "multipart/alternative"
    assert parts(mail) == {"text/plain": message.text, "text/html": message.html}
    assert mailer.accepting() is True


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_smtp_logs_in_with_the_percent_encoded_credentials_of_the_url(smtp_server):
    handler, auth = Recorder(), Authenticator("mailer", "p@ss:w/rd")
    server = smtp_server(handler, auth_required=True, auth_require_tls=False, authenticator=auth)
    mailer = SmtpMailer(f"smtp://mailer:p%40ss%3Aw%2Frd@127.0.0.1:{server.port}", from_address="no-reply@localhost")
    mailer.send(sign_in_message())
    assert auth.attempts == [(b"mailer", True, False)]
    assert len(handler.received) == 1
    assert "p@ss" not in repr(mailer) and "p%40ss" not in repr(mailer)


@pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS")
def test_smtp_wrong_password_is_unavailable_not_rejected(smtp_server):
    server = smtp_server(Recorder(), auth_required=True, auth_require_tls=False, authenticator=Authenticator("mailer", "right"))
    mailer = SmtpMailer(f"smtp://mailer:wrong@127.0.0.1:{server.port}", from_address="no-reply@localhost")
    assert mailer.accepting() is False
    with pytest.raises(MailUnavailable):
        mailer.send(sign_in_message())


def test_smtp_uses_starttls_when_offered_and_logs_in_inside_it(smtp_server, server_tls):
    handler, auth = Recorder(), Authenticator("mailer", "secret")
    server = smtp_server(handler, tls_context=server_tls, require_starttls=True, auth_required=True,
                         auth_require_tls=True, authenticator=auth)
    mailer = SmtpMailer(f"smtp://mailer:secret@127.0.0.1:{server.port}", from_address="no-reply@localhost")
    mailer.send(sign_in_message())
    assert auth.attempts == [(b"mailer", True, True)]
    [got] = handler.received
    assert got["tls"] is True


def test_smtps_speaks_tls_from_the_first_byte(smtp_server, server_tls):
    handler = Recorder()
    server = smtp_server(handler, ssl_context=server_tls)
    mailer = SmtpMailer(f"smtps://127.0.0.1:{server.port}", from_address="no-reply@localhost")
    assert mailer.accepting() is True
    mailer.send(sign_in_message())
    [got] = handler.received
    assert got["tls"] is True


def test_smtp_closed_port_is_unavailable_and_not_accepting():
    mailer = SmtpMailer(f"smtp://127.0.0.1:{free_port()}", from_address="no-reply@localhost")
    assert mailer.accepting() is False
    with pytest.raises(MailUnavailable):
        mailer.send(sign_in_message())


def test_smtp_server_that_never_answers_is_unavailable_within_the_timeout():
    with socket.socket() as silent:  # listens, never accepts, never greets
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        mailer = SmtpMailer(f"smtp://127.0.0.1:{port}", from_address="no-reply@localhost", timeout=0.5, probe_timeout=0.5)
        began = time.monotonic()
        with pytest.raises(MailUnavailable):
            mailer.send(sign_in_message())
        assert mailer.accepting() is False
        assert time.monotonic() - began < 5


@pytest.mark.parametrize("stage, reply, raised", [
    ("RCPT", "550 5.1.1 No such user here", MailRejected),
    ("RCPT", "451 4.3.0 Try again later", MailUnavailable),
    ("DATA", "554 5.6.0 Message refused", MailRejected),
    ("DATA", "451 4.3.0 Local problem, try later", MailUnavailable),
    ("MAIL", "530 5.7.0 Authentication required", MailUnavailable),
])
def test_smtp_reply_decides_between_rejected_and_unavailable(smtp_server, stage, reply, raised):
    handler = Recorder(refuse={stage: reply})
    server = smtp_server(handler)
    mailer = SmtpMailer(f"smtp://127.0.0.1:{server.port}", from_address="no-reply@localhost")
    with pytest.raises(raised):
        mailer.send(sign_in_message())
    assert handler.received == []


def test_smtp_accepting_is_cached_for_thirty_seconds(smtp_server):
    now = [1000.0]
    server = smtp_server(Recorder())
    mailer = SmtpMailer(f"smtp://127.0.0.1:{server.port}", from_address="no-reply@localhost", monotonic=lambda: now[0])
    handler = server.handler
    assert mailer.accepting() is True
    assert handler.noops == 1
    server.stop()
    now[0] += 29
    assert mailer.accepting() is True  # the cached answer
    now[0] += 2
    assert mailer.accepting() is False  # asked again: the server is gone


def test_smtp_accepting_answers_concurrent_callers_from_one_probe(smtp_server):
    handler = Recorder()
    server = smtp_server(handler)
    mailer = SmtpMailer(f"smtp://127.0.0.1:{server.port}", from_address="no-reply@localhost")
    assert in_threads(20, lambda i: mailer.accepting()) == [True] * 20
    assert handler.noops == 1


def test_credentials_only_travel_inside_tls_or_to_this_machine():
    assert credentials_allowed("smtp.example.com", tls=True)
    assert credentials_allowed("127.0.0.1", tls=False) and credentials_allowed("localhost", tls=False)
    assert credentials_allowed("::1", tls=False)
    assert not credentials_allowed("smtp.example.com", tls=False)
    assert not credentials_allowed("10.0.0.5", tls=False)


def test_smtp_logs_neither_link_nor_password_nor_body(smtp_server, caplog):
    caplog.set_level(logging.DEBUG)
    handler = Recorder(refuse={"DATA": "451 4.3.0 Try later"})
    server = smtp_server(handler)
    mailer = SmtpMailer(f"smtp://127.0.0.1:{server.port}", from_address="no-reply@localhost")
    with pytest.raises(MailUnavailable):
        mailer.send(sign_in_message())
    closed = SmtpMailer(f"smtp://mailer:hunter2-secret@127.0.0.1:{free_port()}", from_address="no-reply@localhost")
    with pytest.raises(MailUnavailable):
        closed.send(sign_in_message())
    ours = [r for r in caplog.records if r.name == "mail"]
    assert {r.getMessage() for r in ours} == {"mail not sent"}
    logged = "\n".join(JsonLogFormatter().format(r) for r in ours)
    assert "token=" not in logged and "hunter2" not in logged and "works once" not in logged


# --- choosing the mailer -----------------------------------------------------------------


def test_get_mailer_is_the_outbox_without_smtp_url():
    mailer = get_mailer(SETTINGS)
    assert isinstance(mailer, OutboxMailer)
    assert mailer.directory == Path(SETTINGS.outbox_dir)
    assert mailer.from_address == "no-reply@localhost"
    assert get_mailer(SETTINGS) is mailer


def test_get_mailer_is_smtp_with_smtp_url():
    settings = SETTINGS.but(smtp_url="smtps://mailer:secret@127.0.0.1:2465")
    mailer = get_mailer(settings)
    assert isinstance(mailer, SmtpMailer)
    assert (mailer.host, mailer.port, mailer.implicit_tls) == ("127.0.0.1", 2465, True)
    assert get_mailer(settings) is mailer
    assert get_mailer(SETTINGS.but(smtp_url="smtp://127.0.0.1")).port == 25
    assert get_mailer(SETTINGS.but(smtp_url="smtps://127.0.0.1")).port == 465
    assert isinstance(get_mailer(SETTINGS), OutboxMailer)
