"""Refunds get their own state on the payment (refund_state and the columns around it,
services/commerce/payments.py) instead of living in `error`, which is only about the payment
again; the sandbox provider keeps one row per refund (idempotency key unique).

The refund marks that lived in `error` move over: refund_due -> due, refunding ->
refunding, refunded -> refunded, each as attempt 1, and `error` is cleared. A row that was
`refunding` is re-asked by the clock once it has been unchanged for a few minutes (counted
from this migration)."""
import peewee as pw
from playhouse.migrate import SchemaMigrator, migrate

from models.clock import utcnow
from models.migrations._frozen import frozen_base

# What `error` said before, and the refund_state it becomes.
MOVED = {"refund_due": "due", "refunding": "refunding", "refunded": "refunded"}


def upgrade(db):
    Base = frozen_base(db)

    class Payment(Base):
        id = pw.CharField(max_length=32, primary_key=True)
        error = pw.CharField(max_length=60, null=True)
        created_at = pw.DateTimeField()
        paid_at = pw.DateTimeField(null=True)
        refund_state = pw.CharField(max_length=12, null=True)
        refund_attempt = pw.IntegerField(default=0)
        refund_requested_at = pw.DateTimeField(null=True)
        refund_updated_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "payment"

    class SandboxRefund(Base):
        id = pw.CharField(max_length=40, primary_key=True)
        key = pw.CharField(max_length=255, unique=True)
        checkout = pw.CharField(max_length=40, index=True)
        payment_ref = pw.CharField(max_length=40)
        amount_minor = pw.BigIntegerField()
        state = pw.CharField(max_length=12)
        failure_reason = pw.CharField(max_length=60, null=True)
        created_at = pw.DateTimeField()
        settled_at = pw.DateTimeField(null=True)

        class Meta:
            table_name = "sandbox_refund"

    migrator = SchemaMigrator.from_database(db)
    migrate(
        migrator.add_column("payment", "refund_state", pw.CharField(max_length=12, null=True)),
        migrator.add_column("payment", "refund_attempt", pw.IntegerField(default=0)),
        migrator.add_column("payment", "refund_ref", pw.CharField(max_length=255, null=True)),
        migrator.add_column("payment", "refund_error", pw.CharField(max_length=255, null=True)),
        migrator.add_column("payment", "refund_requested_at", pw.DateTimeField(null=True)),
        migrator.add_column("payment", "refund_updated_at", pw.DateTimeField(null=True)),
        migrator.add_column("payment", "refund_retry_at", pw.DateTimeField(null=True)),
    )
    now = utcnow()
    for error, state in MOVED.items():
        (Payment.update(refund_state=state, refund_attempt=1, error=None,
                        refund_requested_at=pw.fn.COALESCE(Payment.paid_at, Payment.created_at),
                        refund_updated_at=now)
         .where(Payment.error == error).execute())
    db.execute(Payment.index(Payment.refund_state, Payment.refund_updated_at, name="payment_refund_open")
               .where(Payment.refund_state.is_null(False)))
    db.create_tables([SandboxRefund])
