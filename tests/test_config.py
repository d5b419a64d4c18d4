"""Settings: read once from the environment; a malformed one stops the start with one line."""
import subprocess
import sys

import pytest

from config import ROOT, SettingsError, load_settings


def test_defaults_need_nothing_but_python():
    settings = load_settings({"SECRET_KEY": "x" * 32})
    assert settings.port == 8000
    assert settings.database_url.startswith("sqlite:///") and settings.database_url.endswith("var/app.db")
    assert settings.embedded and settings.redis_url is None
    assert settings.smtp_url is None
    assert settings.base_url == "http://127.0.0.1:8000"
    assert settings.catalog_path.endswith("scripts/data/demo_catalog.jsonl")
    assert settings.billing_webhook_secret is None and settings.admin_password is None
    assert settings.anon_session_days == 30
    assert settings.metrics_public is False and settings.worker_metrics_port == 9191
    assert settings.ai_backend == "offline" and settings.ai_timeout_seconds == 60
    assert settings.ai_base_url is None and settings.ai_model is None and settings.ai_api_key is None
    assert settings.ai_command is None
    assert settings.web_keepalive_seconds == 5


def test_keepalive_is_read_from_the_environment():
    assert load_settings({"SECRET_KEY": "x" * 32, "WEB_KEEPALIVE_SECONDS": "75"}).web_keepalive_seconds == 75


def test_shipping_countries_default_to_a_list_and_are_read_as_codes():
    assert load_settings({"SECRET_KEY": "x" * 32}).shipping_countries[:3] == ("US", "CA", "GB")
    settings = load_settings({"SECRET_KEY": "x" * 32, "SHIPPING_COUNTRIES": " jp, sg ,JP"})
    assert settings.shipping_countries == ("JP", "SG")


def test_base_url_follows_port_by_default():
    assert load_settings({"PORT": "8123", "SECRET_KEY": "x" * 32}).base_url == "http://127.0.0.1:8123"


@pytest.mark.parametrize("env, named", [
    ({"PORT": "eighty"}, "PORT"),
    ({"PORT": "70000"}, "PORT"),
    ({"DATABASE_URL": "mysql://x/y"}, "DATABASE_URL"),
    ({"DATABASE_URL": "sqlite://relative.db"}, "DATABASE_URL"),
    ({"REDIS_URL": "http://localhost"}, "REDIS_URL"),
    ({"REDIS_URL": "redis://127.0.0.1:6379/0", "SECRET_KEY": None}, "SECRET_KEY"),
    ({"SECRET_KEY": "short"}, "SECRET_KEY"),
    ({"WORKER_IN_PROCESS": "maybe"}, "WORKER_IN_PROCESS"),
    ({"SMTP_URL": "mail.example.com"}, "SMTP_URL"),
    ({"BASE_URL": "ftp://example.com"}, "BASE_URL"),
    ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL"),
    ({"DB_POOL_TIMEOUT": "0"}, "DB_POOL_TIMEOUT"),
    ({"AI_BACKEND": "hosted-somewhere"}, "AI_BACKEND"),
    ({"AI_BACKEND": "openai", "AI_MODEL": "llama3.1"}, "AI_BASE_URL"),
    ({"AI_BACKEND": "openai", "AI_BASE_URL": "http://127.0.0.1:11434/v1"}, "AI_MODEL"),
    ({"AI_BASE_URL": "localhost:11434/v1"}, "AI_BASE_URL"),
    ({"AI_BASE_URL": "ftp://models.example.com"}, "AI_BASE_URL"),
    ({"AI_BASE_URL": "http://[::1/v1"}, "AI_BASE_URL"),
    ({"AI_BACKEND": "command"}, "AI_COMMAND"),
    ({"AI_COMMAND": "llm -m 'unclosed"}, "AI_COMMAND"),
    ({"AI_TIMEOUT_SECONDS": "0"}, "AI_TIMEOUT_SECONDS"),
    ({"AI_TIMEOUT_SECONDS": "601"}, "AI_TIMEOUT_SECONDS"),
    ({"AI_TIMEOUT_SECONDS": "a minute"}, "AI_TIMEOUT_SECONDS"),
    ({"ANON_SESSION_DAYS": "0"}, "ANON_SESSION_DAYS"),
    ({"ANON_SESSION_DAYS": "a month"}, "ANON_SESSION_DAYS"),
    ({"METRICS_PUBLIC": "sometimes"}, "METRICS_PUBLIC"),
    ({"WORKER_METRICS_PORT": "70000"}, "WORKER_METRICS_PORT"),
    ({"WEB_KEEPALIVE_SECONDS": "0"}, "WEB_KEEPALIVE_SECONDS"),
    ({"WEB_KEEPALIVE_SECONDS": "5s"}, "WEB_KEEPALIVE_SECONDS"),
    ({"SHIPPING_COUNTRIES": "USA,GB"}, "SHIPPING_COUNTRIES"),
    ({"SHIPPING_COUNTRIES": "United Kingdom"}, "SHIPPING_COUNTRIES"),
    ({"SHIPPING_COUNTRIES": ",,"}, "SHIPPING_COUNTRIES"),
    ({"IMAP_URL": "pop3://user:pw@mail.example.com"}, "IMAP_URL"),
    ({"IMAP_URL": "imaps://mail.example.com/INBOX"}, "IMAP_URL"),
    ({"IMAP_URL": "imap://user:pw@mail.example.com/INBOX"}, "IMAP_URL"),
    ({"IMAP_URL": "imaps://user:pw@mail.example.com:99999/INBOX"}, "IMAP_URL"),
    ({"MAIL_POLL_SECONDS": "0"}, "MAIL_POLL_SECONDS"),
    ({"MAIL_POLL_SECONDS": "a minute"}, "MAIL_POLL_SECONDS"),
    ({"ADMIN_PASSWORD": "fifteen chars.."}, "ADMIN_PASSWORD"),
])
def test_malformed_setting_names_itself(env, named):
    merged = {k: v for k, v in {"SECRET_KEY": "x" * 32, **env}.items() if v is not None}
    with pytest.raises(SettingsError) as caught:
        load_settings(merged)
    message = str(caught.value)
    assert message.startswith(named) and "\n" not in message


def test_error_never_prints_a_password():
    with pytest.raises(SettingsError) as caught:
        load_settings({"SECRET_KEY": "x" * 32, "REDIS_URL": "http://user:hunter2@host"})
    assert "hunter2" not in str(caught.value)
    for url in ("ftp://user:hunter2@host/v1", "http://user:hunter2@[::1/v1"):
        with pytest.raises(SettingsError) as caught:
            load_settings({"SECRET_KEY": "x" * 32, "AI_BASE_URL": url})
        assert "hunter2" not in str(caught.value)
    for url in ("imap://desk:hunter2@mail.example.com/INBOX", "imaps://desk:hunter2@mail.example.com:99999/"):
        with pytest.raises(SettingsError) as caught:
            load_settings({"SECRET_KEY": "x" * 32, "IMAP_URL": url})
        assert "hunter2" not in str(caught.value)


def test_inbound_mail_defaults_to_a_maildir_and_reads_an_imap_url():
    settings = load_settings({"SECRET_KEY": "x" * 32})
    assert settings.inbound_maildir.endswith("var/inbound") and settings.imap_url is None
    assert settings.mail_poll_seconds == 60
    settings = load_settings({"SECRET_KEY": "x" * 32, "IMAP_URL": "imaps://desk:hunter2@mail.example.com/Support",
                              "MAIL_POLL_SECONDS": "30", "INBOUND_MAILDIR": "var/other"})
    assert settings.imap_url.startswith("imaps://") and settings.mail_poll_seconds == 30
    assert settings.inbound_maildir.endswith("var/other")
    assert "hunter2" not in repr(settings)


def test_ai_backends_read_what_they_need():
    openai = load_settings({"SECRET_KEY": "x" * 32, "AI_BACKEND": "openai", "AI_BASE_URL": "https://api.example.com/v1",
                            "AI_MODEL": "gpt-4o-mini", "AI_API_KEY": "sk-hunter2", "AI_TIMEOUT_SECONDS": "90"})
    assert (openai.ai_backend, openai.ai_base_url, openai.ai_model) == ("openai", "https://api.example.com/v1",
                                                                        "gpt-4o-mini")
    assert openai.ai_api_key == "sk-hunter2" and openai.ai_timeout_seconds == 90
    assert "hunter2" not in repr(openai)  # settings get logged and printed; the key must not be
    command = load_settings({"SECRET_KEY": "x" * 32, "AI_BACKEND": "command", "AI_COMMAND": "llm -m 'my model'"})
    assert (command.ai_backend, command.ai_command) == ("command", "llm -m 'my model'")


def test_https_base_url_makes_cookies_secure():
    assert load_settings({"SECRET_KEY": "x" * 32, "BASE_URL": "https://shop.example.com"}).secure_cookies
    assert not load_settings({"SECRET_KEY": "x" * 32}).secure_cookies


def test_a_short_admin_password_stops_the_start_and_is_never_printed(tmp_path):
    assert load_settings({"SECRET_KEY": "x" * 32, "ADMIN_PASSWORD": "p" * 16}).admin_password == "p" * 16
    assert load_settings({"SECRET_KEY": "x" * 32, "ADMIN_PASSWORD": ""}).admin_password is None  # closed
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "ADMIN_PASSWORD": "hunter2hunter2"}
    done = subprocess.run([sys.executable, "-m", "flask", "--app", "api", "db", "upgrade"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "hunter2" not in done.stderr + done.stdout
    assert done.stderr.strip() == ("configuration error: ADMIN_PASSWORD must be at least 16 characters long, got 14; "
                                   "unset it to close the operator pages")


def test_entry_point_with_malformed_setting_prints_one_line_and_exits(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PORT": "not-a-port", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "flask", "--app", "api", "db", "upgrade"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == ["configuration error: PORT must be a whole number from 1 to 65535, got 'not-a-port'"]
