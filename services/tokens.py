"""Hashing of the secrets the service hands out (cookie values, sign-in tokens).

Only the SHA-256 of a secret is stored, so a leaked table opens nothing; every lookup
hashes the presented value the same way, here.
"""
import hashlib


def hash_token(raw: str) -> str:
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()
