"""Peewee models, the database proxy and the migrations."""
from models.account import Account, BillingEvent, MeterUsage, Milestone, Referral, ReferralCode, SignInToken
from models.catalog import Evidence, Product
from models.discovery import Claim, ClaimAllowance, Hold, Passed, ProductGate, Seen, ShareAction, Watch
from models.job import Job, WorkerBeat
from models.model3d import Model3D
from models.research import Outcome
from models.session import Session

ALL_MODELS = [Session, Product, Evidence, Job, WorkerBeat, Account, SignInToken, Milestone, ReferralCode, Referral,
              MeterUsage, BillingEvent,
              ProductGate, Hold, Claim, ClaimAllowance, Seen, Passed, ShareAction, Watch, Outcome,
              Model3D]
