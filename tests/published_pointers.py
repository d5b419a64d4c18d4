"""A pytest plugin (pytest.ini loads it): every test ends with the published stores'
pointers and rendered pages forgotten.

The suite empties the tables between tests behind the app's back (tests/conftest.py
`clean_state`), which no publish ever does, so the pointers publishing left in Redis or in
this process (services/store/published.py) would name stores the next test never made.
This belongs in `clean_state`; it lives here while tests/conftest.py is being changed
elsewhere.
"""
import pytest


@pytest.fixture(autouse=True)
def forget_published_pointers():
    yield
    from services.store import published  # imported late: tests/conftest.py chooses the settings first

    published.forget_all()
