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
    ({"ANON_SESSION_DAYS": "0"}, "ANON_SESSION_DAYS"),
    ({"ANON_SESSION_DAYS": "a month"}, "ANON_SESSION_DAYS"),
    ({"METRICS_PUBLIC": "sometimes"}, "METRICS_PUBLIC"),
    ({"WORKER_METRICS_PORT": "70000"}, "WORKER_METRICS_PORT"),
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


def test_https_base_url_makes_cookies_secure():
    assert load_settings({"SECRET_KEY": "x" * 32, "BASE_URL": "https://shop.example.com"}).secure_cookies
    assert not load_settings({"SECRET_KEY": "x" * 32}).secure_cookies


def test_entry_point_with_malformed_setting_prints_one_line_and_exits(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "PORT": "not-a-port", "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "flask", "--app", "api", "db", "upgrade"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == ["configuration error: PORT must be a whole number from 1 to 65535, got 'not-a-port'"]
