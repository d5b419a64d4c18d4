"""Every module of the service is one sitting long: at most MAX_LINES lines. A module past it
is split along a seam it already has (services/gltf_card.py from services/model3d.py, the
byte readers of services/image_files.py from services/images.py, the demo catalog's products
from the script that writes them), not trimmed to fit."""
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 450
SERVICE = ("api", "services", "integrations", "jobs", "workers", "models", "scripts", "config.py", "config_values.py")


def service_modules() -> list[Path]:
    found = []
    for name in SERVICE:
        path = ROOT / name
        found += [path] if path.is_file() else sorted(path.rglob("*.py"))
    return found


def test_no_module_of_the_service_is_longer_than_the_limit():
    lengths = {str(path.relative_to(ROOT)): len(path.read_text().splitlines()) for path in service_modules()}
    assert {path: count for path, count in lengths.items() if count > MAX_LINES} == {}


def test_the_check_reads_every_package_and_config():
    names = {str(path.relative_to(ROOT)) for path in service_modules()}
    assert {"config.py", "api/store.py", "services/model3d.py", "scripts/make_demo_catalog.py",
            "integrations/payments/stripe_provider.py", "jobs/store.py", "workers/broker.py",
            "models/db.py"} <= names
