"""Bounds a field's documentation declares where the service checks them itself, with a
reason of its own (issue 29): the document says what is accepted, the refusal stays the
service's. Spread into a field's `metadata`; apispec copies these keys into the schema."""

# An address (services/accounts.normalize_email reads it with email-validator).
EMAIL = {"format": "email", "minLength": 3}

# Text on one line with at least one character that is not a space.
ONE_LINE = r"^[^\r\n\u2028\u2029]*\S[^\r\n\u2028\u2029]*$"

# Text with at least one character that is not a space.
NOT_BLANK = r"\S"
