"""The campaign book (GET, POST /api/ads-manager; spec 2.10, decisions.md "Growth"): the
founder's ad campaigns and the settings new ones start from.

- The book never 404s: a founder without one is answered the empty book (no campaigns,
  `next` 1, the default settings) and nothing is written until the first save.
- Settings are merged key by key into the saved ones; campaigns are merged by `id` (a
  campaign without one is new and takes `next`; `{id, delete: true}` removes one), so a
  save that names one campaign leaves the others as they are.
- The book round-trips (issue 51.2): what GET answers can be posted back. A campaign whose
  id is the book's `next` is new and takes it, as one without an id does; any other id the
  book does not hold is `unknown_campaign`. Fields only the service writes (`key`,
  `paused_because`, `delivery`) are read past. A save carrying the `next` it read knows which
  of its ids it meant as new: when another save took such an id first, the same campaign
  again is that one (a retried or doubled save adds nothing), and a different one takes the
  book's `next` instead of overwriting it. A save that changes nothing writes nothing.
- `next` only moves forward, and a save takes the book's row before reading it (a
  conditional UPDATE that PostgreSQL holds until the commit; SQLite has one writer at a
  time), so two saves at once read each other's result and never hand out one identifier
  twice; an identifier of a removed campaign is not handed out again either.
- Everything a save carries is checked before anything is written: a refused save stores
  nothing.
"""
from __future__ import annotations

import re
import unicodedata

from models.ad_delivery import AdCampaignRun
from models.campaign_book import CampaignBook
from models.clock import iso, utcnow
from models.db import transaction
from models.session import Session
from services.errors import Refused
from services.growth import delivery
from services.growth.ad_limits import PLATFORMS  # the ad platforms a campaign runs on
from services.money import display
from services.ownership import adopter, adoption_keys, owner_of, session_key

STATUSES = ("draft", "active", "paused")
# What a campaign asks the platform to optimise for (Meta's outcome objectives and
# Google's campaign goals share these words).
OBJECTIVES = ("sales", "traffic", "leads", "awareness", "engagement")
# Who it is shown to: everyone the platform picks, people matched by interests, people
# like existing customers, or people who visited the store before.
AUDIENCES = ("broad", "interests", "lookalike", "retargeting")
# ISO 4217 codes the two platforms bill ad accounts in (a selection of the common ones).
CURRENCIES = ("USD", "EUR", "GBP", "CAD", "AUD", "NZD", "CHF", "SEK", "NOK", "DKK", "PLN", "CZK", "JPY", "SGD",
              "HKD", "INR", "BRL", "MXN", "ZAR")
MIN_DAILY_BUDGET_MINOR, MAX_DAILY_BUDGET_MINOR = 100, 1_000_000
MAX_CAMPAIGNS = 50
MAX_NAME_CHARS = 80

DEFAULT_SETTINGS = {"currency": "USD", "daily_budget_minor": 1000, "platform": "meta", "objective": "sales",
                    "audience": "broad"}
CAMPAIGN_FIELDS = ("name", "platform", "status", "daily_budget_minor", "objective", "audience", "pause_when_failing")
REQUIRED_FIELDS = ("name", "platform", "status", "daily_budget_minor")

# Marks that reorder text: a campaign name holding one could show reversed in the app.
_BIDI_CONTROLS = re.compile("[\u202a-\u202e\u2066-\u2069]")


def options() -> dict:
    """The values a book takes, for the screen's choices."""
    return {"platforms": list(PLATFORMS), "statuses": list(STATUSES), "objectives": list(OBJECTIVES),
            "audiences": list(AUDIENCES), "currencies": list(CURRENCIES),
            "daily_budget_min_minor": MIN_DAILY_BUDGET_MINOR, "daily_budget_max_minor": MAX_DAILY_BUDGET_MINOR,
            "max_campaigns": MAX_CAMPAIGNS, "name_max_chars": MAX_NAME_CHARS}


def book(*, session: Session) -> dict:
    """The founder's campaign book; the empty book when none was saved."""
    row = CampaignBook.get_or_none(CampaignBook.owner == owner_of(session).key)
    return _answer(row)


def save(*, session: Session, settings: dict | None = None, campaigns: list | None = None,
         read_next: int | None = None) -> dict:
    """Merges settings and campaigns into the founder's book and answers the whole book;
    `read_next` is the book's `next` as the caller read it (a book posted back)."""
    if not isinstance(settings, dict | None):
        raise Refused("invalid_setting", "The settings must be given as named values; nothing was saved.")
    if not isinstance(campaigns, list | None):
        raise Refused("invalid_campaign", "The campaigns must be given as a list; nothing was saved.")
    given_settings = _checked_settings(settings or {})
    changes = [_checked_change(entry, place) for place, entry in enumerate(campaigns or [], start=1)]
    if len(changes) > MAX_CAMPAIGNS:
        raise Refused("campaign_book_full", f"A campaign book keeps at most {MAX_CAMPAIGNS} campaigns, and this save "
                                            f"names {len(changes)}; nothing was saved.", max_campaigns=MAX_CAMPAIGNS)
    named = [change["id"] for change in changes if "id" in change]
    if len(named) != len(set(named)):
        raise Refused("invalid_campaign", "The same campaign is named twice in this save; nothing was saved.")
    owner, now = owner_of(session), utcnow()
    with transaction():
        CampaignBook.insert(owner=owner.key, session=session.id, account=session.account_id, campaigns=[], next_id=1,
                            settings={}, version=0, created_at=now, updated_at=now).on_conflict_ignore().execute()
        # Taking the row first: a second save waits here until this one commits, then
        # reads what it wrote (PostgreSQL); SQLite's transaction holds the write lock already.
        CampaignBook.update(version=CampaignBook.version + 1).where(CampaignBook.owner == owner.key).execute()
        row = CampaignBook.get(CampaignBook.owner == owner.key)
        merged_settings = {**row.settings, **given_settings}
        kept = {campaign["id"]: campaign for campaign in row.campaigns}
        next_id, added = row.next_id, 0
        defaults = {**DEFAULT_SETTINGS, **merged_settings}
        for place, change in enumerate(changes, start=1):
            # An id from the `next` the caller read on was meant as new. Taken since (this
            # save waited for the one that took it), it is that campaign when it holds the same
            # fields (a retried or doubled save adds nothing); another campaign takes `next`.
            meant_new = "id" in change and read_next is not None and change["id"] >= read_next
            if meant_new and change["id"] in kept and not change.get("delete"):
                if _same(kept[change["id"]], change["fields"]):
                    continue
                del change["id"]
            if "id" in change and change["id"] not in kept and (change["id"] != next_id or change.get("delete")):
                raise Refused("unknown_campaign", f"Your campaign book has no campaign number {change['id']}, and a "
                                                  f"new campaign takes number {next_id}; nothing was saved.",
                              campaign_id=change["id"], next=next_id)
            if "id" in change and change["id"] in kept:
                if change.get("delete"):
                    del kept[change["id"]]
                else:
                    kept[change["id"]] = _started({**kept[change["id"]], **change["fields"]}, kept[change["id"]],
                                                  owner, defaults["currency"])
                continue
            _check_new(change["fields"], place)
            kept[next_id] = _started({"id": next_id, "objective": defaults["objective"], "audience": defaults["audience"],
                                      **change["fields"]}, None, owner, defaults["currency"])
            next_id, added = next_id + 1, added + 1
        if added and len(kept) > MAX_CAMPAIGNS:
            raise Refused("campaign_book_full", f"Your campaign book already holds {len(kept) - added} campaigns and "
                                                f"keeps at most {MAX_CAMPAIGNS}: remove one before adding another. "
                                                "Nothing was saved.", max_campaigns=MAX_CAMPAIGNS)
        campaigns_now = [kept[key] for key in sorted(kept)]
        unchanged = (campaigns_now == row.campaigns and next_id == row.next_id
                     and {**DEFAULT_SETTINGS, **merged_settings} == {**DEFAULT_SETTINGS, **row.settings})
        if not unchanged:  # the book as it stands posted back changes nothing, not even updated_at
            CampaignBook.update(campaigns=campaigns_now, next_id=next_id, settings=merged_settings,
                                updated_at=now).where(CampaignBook.owner == owner.key).execute()
            row = CampaignBook.get(CampaignBook.owner == owner.key)
    return _answer(row)


def _same(campaign: dict, fields: dict) -> bool:
    """Whether a campaign already holds every field a save gives it."""
    return all(campaign.get(key) == value for key, value in fields.items())


def _check_new(fields: dict, place: int) -> None:
    missing = [key for key in REQUIRED_FIELDS if key not in fields]
    if missing:
        raise Refused("invalid_campaign", f"Campaign {place} of this save is new and needs a name, a platform, a "
                                          "status and a daily budget; nothing was saved.", campaign=place,
                      missing=missing)


def _started(campaign: dict, before: dict | None, owner, currency: str) -> dict:
    """A campaign going active: it starts only when the ad balance holds a day of its budget
    and its ad is written for a published store (services/growth/delivery.py launches it),
    and it gets the key its delivery is recorded under. A campaign the service paused is
    started again only this way, by its founder."""
    if campaign.get("status") != "active" or (before is not None and before.get("status") == "active"):
        return campaign
    balance, budget = delivery.balance_minor(owner), campaign["daily_budget_minor"]
    if currency != delivery.BALANCE_CURRENCY:
        raise Refused("ad_currency_differs", campaign_id=campaign["id"])
    if balance < budget:
        raise Refused("ad_balance_too_low", f"\u201c{campaign['name']}\u201d spends up to {display(budget, 'USD')} a "
                                            f"day and your ad balance holds {display(balance, 'USD')}: top it up with "
                                            "at least one day of its budget, then start it. Nothing was saved.",
                      campaign_id=campaign["id"], balance_minor=balance, daily_budget_minor=budget)
    if delivery.owner_ad(owner.key) is None or not delivery.published_store(owner.key):
        raise Refused("ad_not_ready", campaign_id=campaign["id"])
    started = {key: value for key, value in campaign.items() if key != "paused_because"}
    return {**started, "key": started.get("key") or delivery.new_key()}


def _answer(row: CampaignBook | None) -> dict:
    if row is None:
        return {"status": "ok", "book": {"campaigns": [], "next": 1, "settings": dict(DEFAULT_SETTINGS)},
                "options": options()}
    return {"status": "ok", "book": {"campaigns": delivery.with_delivery(row.campaigns), "next": row.next_id,
                                     "settings": {**DEFAULT_SETTINGS, **row.settings}},
            "updated_at": iso(row.updated_at), "options": options()}


# --- Checking what a save carries ------------------------------------------------------------

def _is_integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _budget_ok(value) -> bool:
    return _is_integer(value) and MIN_DAILY_BUDGET_MINOR <= value <= MAX_DAILY_BUDGET_MINOR


def _checked_settings(given: dict) -> dict:
    """The known settings given, checked (unknown keys are ignored, as unknown fields are)."""
    checked = {}
    for key in DEFAULT_SETTINGS:
        if key not in given:
            continue
        value = given[key]
        if key == "platform" and value not in PLATFORMS:
            raise Refused("invalid_platform", "Ads run on Meta or Google here: choose one of them. Nothing was saved.",
                          setting=key, platforms=list(PLATFORMS))
        if key == "currency":
            value = value.upper() if isinstance(value, str) else value
            if value not in CURRENCIES:
                raise Refused("invalid_setting", "That currency is not one your ad budgets can be set in; choose one of "
                                                 "the currencies offered. Nothing was saved.", setting=key)
        if key == "daily_budget_minor" and not _budget_ok(value):
            raise Refused("invalid_setting", _budget_sentence("The default daily budget"), setting=key)
        if key == "objective" and value not in OBJECTIVES:
            raise Refused("invalid_setting", "Choose what your campaigns aim for from the objectives offered; nothing "
                                             "was saved.", setting=key)
        if key == "audience" and value not in AUDIENCES:
            raise Refused("invalid_setting", "Choose who your campaigns reach from the audiences offered; nothing was "
                                             "saved.", setting=key)
        checked[key] = value
    return checked


def _budget_sentence(what: str) -> str:
    return (f"{what} is given in cents, as a whole number from {MIN_DAILY_BUDGET_MINOR} to {MAX_DAILY_BUDGET_MINOR:,} "
            f"({MIN_DAILY_BUDGET_MINOR / 100:.2f} to {MAX_DAILY_BUDGET_MINOR / 100:,.2f} a day); nothing was saved.")


def _checked_change(entry, place: int) -> dict:
    """One campaign of a save, checked: {id?, delete?, fields}."""
    if not isinstance(entry, dict):
        raise Refused("invalid_campaign", f"Campaign {place} of this save is not a campaign; nothing was saved.",
                      campaign=place)
    change: dict = {"fields": {}}
    if "id" in entry:
        if not _is_integer(entry["id"]) or entry["id"] < 1:
            raise Refused("invalid_campaign", f"Campaign {place} of this save has a number that is not one of a "
                                              "campaign; nothing was saved.", campaign=place)
        change["id"] = entry["id"]
    if entry.get("delete") is True:
        if "id" not in change:
            raise Refused("invalid_campaign", f"Campaign {place} of this save is to be removed but names no campaign; "
                                              "nothing was saved.", campaign=place)
        change["delete"] = True
        return change
    if "id" not in change:
        _check_new(entry, place)
    for key in CAMPAIGN_FIELDS:
        if key in entry:
            change["fields"][key] = _checked_field(key, entry[key], place)
    return change


def _checked_field(key: str, value, place: int):
    if key == "name":
        text = " ".join(value.split()) if isinstance(value, str) else ""
        if not 1 <= len(text) <= MAX_NAME_CHARS or _BIDI_CONTROLS.search(text) or any(
                unicodedata.category(ch) in ("Cc", "Cs") for ch in text):
            raise Refused("invalid_campaign", f"Campaign {place} of this save needs a name of 1 to {MAX_NAME_CHARS} "
                                              "characters, without control characters; nothing was saved.",
                          campaign=place, field=key)
        return text
    if key == "platform" and value not in PLATFORMS:
        raise Refused("invalid_platform", f"Campaign {place} of this save runs on a platform not offered here: "
                                          "choose Meta or Google. Nothing was saved.", campaign=place,
                      platforms=list(PLATFORMS))
    if key == "status" and value not in STATUSES:
        raise Refused("invalid_campaign", f"Campaign {place} of this save must be a draft, active or paused; nothing "
                                          "was saved.", campaign=place, field=key)
    if key == "daily_budget_minor" and not _budget_ok(value):
        raise Refused("invalid_campaign", _budget_sentence(f"The daily budget of campaign {place}"), campaign=place,
                      field=key)
    if key == "objective" and value not in OBJECTIVES:
        raise Refused("invalid_campaign", f"Campaign {place} of this save aims for an objective not offered; nothing "
                                          "was saved.", campaign=place, field=key)
    if key == "audience" and value not in AUDIENCES:
        raise Refused("invalid_campaign", f"Campaign {place} of this save reaches an audience not offered; nothing "
                                          "was saved.", campaign=place, field=key)
    if key == "pause_when_failing" and not isinstance(value, bool):
        raise Refused("invalid_campaign", f"Campaign {place} of this save says whether to pause it when it misses its "
                                          "bars with true or false; nothing was saved.", campaign=place, field=key)
    return value


# --- A session's book joins its account's ------------------------------------------------------

def _book_held(session_id: int) -> list[str]:
    book = CampaignBook.get_or_none(CampaignBook.owner == session_key(session_id))
    if book is None:
        return []
    count = len(book.campaigns)
    if count:
        return [f"your campaign plan with {count} campaign{'' if count == 1 else 's'}"]
    return ["your campaign plan's settings"] if book.settings else []


@adopter(kind="campaign_book", held=_book_held)
def adopt_campaign_book(session_id: int, account_id: int) -> dict:
    """A session's campaign book becomes its account's. When the account has one already, it
    keeps its settings and gains the session's campaigns under new numbers of its own, up to
    MAX_CAMPAIGNS (a book past that is not carried further)."""
    session_key, account_key = adoption_keys(session_id, account_id)
    # The campaigns it launched go with it (services/growth/delivery.py): they are found by key.
    (AdCampaignRun.update(account=account_id)
     .where(AdCampaignRun.session == session_id, AdCampaignRun.account.is_null()).execute())
    mine = CampaignBook.get_or_none(CampaignBook.owner == session_key)
    if mine is None:
        return {}
    theirs = CampaignBook.get_or_none(CampaignBook.owner == account_key)
    if theirs is None:
        (CampaignBook.update(owner=account_key, account=account_id, version=CampaignBook.version + 1)
         .where(CampaignBook.owner == session_key).execute())
        return {"campaign_book": [campaign["id"] for campaign in mine.campaigns]}
    campaigns, next_id, moved = list(theirs.campaigns), theirs.next_id, []
    for campaign in mine.campaigns:
        if len(campaigns) >= MAX_CAMPAIGNS:
            break
        campaigns.append({**campaign, "id": next_id})
        moved.append(next_id)
        next_id += 1
    (CampaignBook.update(campaigns=campaigns, next_id=next_id, version=CampaignBook.version + 1, updated_at=utcnow())
     .where(CampaignBook.owner == account_key).execute())
    CampaignBook.delete().where(CampaignBook.owner == session_key).execute()
    return {"campaign_book": moved} if moved else {}
