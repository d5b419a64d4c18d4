"""Peewee models, the database proxy and the migrations."""
from models.account import (
                            Account,
                            BillingEvent,
                            MeterUsage,
                            Milestone,
                            Referral,
                            ReferralCode,
                            SignInConfirmation,
                            SignInToken,
)
from models.ad import Ad, AdImage
from models.ad_balance import AdLedgerEntry, AdTopup
from models.ad_delivery import AdCampaignRun, AdDeliveryDay, AdSandboxCampaign
from models.brief import Brief, BriefGateState
from models.business import BusinessSettings, PayoutDestination, Todo
from models.campaign_book import CampaignBook
from models.catalog import Evidence, Product
from models.desk import KeywordRule, PublicAnswer, PublicQuestionDay, Ticket, TicketMessage
from models.discovery import Claim, ClaimAllowance, Hold, Passed, ProductGate, Seen, ShareAction, Watch
from models.domain import DomainOrder
from models.fix import FixEvent, FixMailDay, FixMailLink, FixPage, FixRun
from models.funnel import FunnelEvent, Presence
from models.job import Job, WorkerBeat
from models.launch import ProductLaunch
from models.model3d import Model3D
from models.organic import OrganicApproval, OrganicCampaign, OrganicResearch
from models.own_product import FounderImage, FounderProduct
from models.page import Page
from models.payment import (
                            CustomerOrder,
                            Payment,
                            RevenueCredit,
                            RevenueTotal,
                            SampleOrder,
                            SandboxCheckout,
                            SandboxNotification,
                            SandboxRefund,
)
from models.research import Outcome, Research
from models.retention import RetentionBacklog
from models.satisfaction import SatisfactionRating
from models.session import Session
from models.store import Store, StoreIntent, StoreVersion
from models.supplier import SupplierConnection
from models.walkthrough import JourneyCarrier, Walkthrough
from models.workspace import ResearchNote, SavedQuery, ShortlistEntry

ALL_MODELS = [Session, Product, Evidence, Job, WorkerBeat, Account, SignInToken, SignInConfirmation, Milestone,
              ReferralCode, Referral, MeterUsage, BillingEvent,
              ProductGate, Hold, Claim, ClaimAllowance, Seen, Passed, ShareAction, Watch, Outcome,
              Research, Brief, BriefGateState, ResearchNote, ShortlistEntry, SavedQuery, Model3D,
              Store, StoreVersion, StoreIntent, ProductLaunch, FounderProduct, FounderImage, FunnelEvent, Presence,
              Payment, CustomerOrder, RevenueCredit, RevenueTotal, SampleOrder, SandboxCheckout, SandboxNotification,
              SandboxRefund, SupplierConnection, DomainOrder, BusinessSettings, PayoutDestination, Todo, Ad, AdImage,
              OrganicResearch, OrganicCampaign, OrganicApproval, CampaignBook, AdTopup, AdLedgerEntry,
              AdCampaignRun, AdDeliveryDay, AdSandboxCampaign,
              Ticket, TicketMessage, KeywordRule, PublicAnswer, PublicQuestionDay, SatisfactionRating, FixRun, FixPage, FixEvent, FixMailLink, FixMailDay,
              Walkthrough, JourneyCarrier, Page, RetentionBacklog]
