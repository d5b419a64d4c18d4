"""Bare Flask app: the reference the service's figures are divided by.

One route, no session, no database, no middleware: whatever it costs under
gunicorn is the floor that Flask + gunicorn impose.  Run it with the same
gunicorn settings as the service (bench/compare.py does this).
"""

from flask import Flask, jsonify

app = Flask(__name__)


@app.get("/api/bare")
def bare():
    return jsonify(status="ok")
