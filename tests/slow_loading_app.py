"""The service's app, loaded slowly (as a whole-stack restart on a busy host loads it): for the
test that gunicorn takes connections only once the app can answer them
(tests/test_processes.py). SLOW_LOAD_SECONDS says how slowly."""
import os
import time

from api import create_app as create_service_app


def create_app():
    time.sleep(float(os.environ.get("SLOW_LOAD_SECONDS", "4")))
    return create_service_app()
