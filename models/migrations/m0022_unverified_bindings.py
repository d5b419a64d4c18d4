"""An address saved but not yet proven no longer makes a session act for its account.

`session.account_id` now names only a verified account (one the session proved with a
sign-in link); an address saved and not proven moves to `session.saved_account_id`, and
what such sessions did goes back to being theirs alone (their rows lose the account they
were adopted into), to be adopted again when the address is proven in that browser. A
new table holds the confirmations that a sign-in link opened in another browser waits for.
"""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate

from models.migrations._frozen import frozen_base

# Tables whose rows carry the session that made them and the account that adopted them.
_ADOPTED_BY_ACCOUNT = ("product_claim", "product_hold", "product_seen", "product_pass", "share_action",
                       "product_watch", "domain_order", "sample_order")
_UNVERIFIED = "SELECT id FROM account WHERE NOT verified"


def upgrade(db):
    migrator = SchemaMigrator.from_database(db)
    migrate(migrator.add_column("session", "saved_account_id", pw.BigIntegerField(null=True)),
            migrator.add_index("session", ("saved_account_id",), False))
    db.execute_sql(f"UPDATE session SET saved_account_id = account_id, account_id = NULL "
                   f"WHERE account_id IN ({_UNVERIFIED})")
    for table in _ADOPTED_BY_ACCOUNT:
        db.execute_sql(f"UPDATE {table} SET account_id = NULL "
                       f"WHERE session_id IS NOT NULL AND account_id IN ({_UNVERIFIED})")
    # Claim allowances and supplier connections are keyed 'account:<id>' and cannot be told
    # apart by session: they stay with the unverified account and reach the founder who
    # proves the address.

    Base = frozen_base(db)

    class Session(Base):
        id = pw.BigAutoField()

    class SignInToken(Base):
        id = pw.BigAutoField()

        class Meta:
            table_name = "sign_in_token"

    class SignInConfirmation(Base):
        id = pw.BigAutoField()
        code_hash = pw.CharField(max_length=64, unique=True)
        token = pw.ForeignKeyField(SignInToken, on_delete="CASCADE", index=True)
        session = pw.ForeignKeyField(Session, on_delete="CASCADE", index=True)
        created_at = pw.DateTimeField()
        expires_at = pw.DateTimeField()
        spent_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "sign_in_confirmation"

    db.create_tables([SignInConfirmation])
