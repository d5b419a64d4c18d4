"""The ad artifact (spec 2.9, 4.5 GET /api/ad; decisions.md, Growth) and its two editors.

An `ad_build` job writes the ad of a founder's product once its store is built: the copy of
both platforms through the AI seam (the `ad_copy` kind, registered here; its finish drops a
sentence the product record cannot back, and one that shows shoppers a figure of the
founder's research: services/growth/ad_copy.py), and the images
(services/growth/ad_image.py). The build actor sends it after each store build; GET
/api/ad sends one when the store is built and there is none. It spends the `ad` bucket of
the store owner's account right before writing and keeps the charge only when the ad was
saved; a meter refusal ends the job `done` with the refusal as its result, which GET
/api/ad answers (429) until the window resets.

The founder changes the ad with POST /api/ad/edit (one field at a time, or back to the
written copy) and POST /api/growth/edit (plain language, the `ad_edit` kind, run as a job
on the ad's subject and waited on, like the store editor's edits). Both keep the founder's
values as overrides beside the written copy; a new headline makes new images.
"""
from __future__ import annotations

import secrets
from datetime import timedelta

from integrations import ai
from integrations.ai import claims
from models.ad import Ad, AdImage
from models.catalog import Product
from models.clock import clock, iso, utcnow
from models.db import transaction
from models.job import Job
from models.store import Store
from services import ai_facts, ai_tasks, plain_requests
from services.discovery import resolve
from services.errors import JobFailed, Refused, TransientError
from services.growth import ad_copy, ad_image
from services.growth.ad_limits import CALLS_TO_ACTION, FIELDS, LIMITS, PLATFORMS, SIZES, pass_criteria, too_long
from services.jobs import active_job, create_job, get_job
from services.meter import METER_REFUSALS, metered
from services.ownership import adopter, adoption_keys, owner_of, session_key
from services.store import builds, edits, policy, versions
from services.store import facts as store_facts

AD_BUILD = "ad_build"  # the job kind that writes the ad
AD_EDIT = "ad_edit"  # the job kind of a plain-language edit (and its AI task kind)
AD_BUCKET = "ad"
RETRY_SECONDS = 60  # a build that ended without an ad is tried again by a GET after this long
IMAGE_PREFIX = "/media/ad/"

ai.register(ai.Kind(ad_copy.AD_COPY_KIND, ad_copy.AD_COPY, ad_copy.ASKS_COPY, offline=ad_copy.write_ad_copy,
                    finish=ad_copy.backed_ad_copy))
ai.register(ai.Kind(AD_EDIT, ad_copy.AD_EDIT, ad_copy.ASKS_EDIT, offline=ad_copy.write_ad_edit, finish=ai.as_written,
                    check=ad_copy.reads_whole))

NO_AD = "Your ad is written once your store is built; it is not ready yet."
_AI_REFUSALS = {ai.errors.FAILED: "cli_failed", ai.errors.INVALID_OUTPUT: "invalid_editor_response"}


def subject(product_id: str) -> str:
    # One subject for a product's ad jobs (builds and edits): the runner runs them one at a time.
    return f"ad:{product_id}"


def _account_of(owner_key: str) -> int | None:
    kind, _, number = owner_key.partition(":")
    return int(number) if kind == "account" and number.isdigit() else None


# --- Building -------------------------------------------------------------------------------

def request_after_build(product_id: str) -> Job | None:
    """The ad job for the store's newest build (None when one is already queued or running)."""
    store = Store.get_or_none(Store.product == product_id)
    if store is None or store.version == 0 or not store.owner:
        return None
    with transaction():
        job, created = create_job(kind=AD_BUILD, subject=subject(product_id), max_attempts=ai_tasks.ATTEMPTS,
                                  payload={"product_id": product_id, "owner": store.owner,
                                           "store_version": store.version})
    return job if created else None


def request_when_store_copy_changed(product_id: str) -> Job | None:
    """After a publish: the ad job again when the published store's headline is no longer the
    one the ad was written from (the ad follows the store; None when it still does, or when
    there is no ad yet: GET /api/ad starts the first)."""
    store = Store.get_or_none(Store.product == product_id)
    ad = Ad.get_or_none(Ad.product == product_id)
    if store is None or ad is None or ad.owner != store.owner or not store.published_version:
        return None
    then = (versions.document_of(product_id, ad.store_version) or {}).get("copy") or {}
    now = (versions.document_of(product_id, store.published_version) or {}).get("copy") or {}
    if then.get("headline") == now.get("headline"):
        return None
    return request_after_build(product_id)


def start_if_missing(*, session) -> list[Job]:
    """Sends the ad job when the founder's store is built and no ad, and no job that will
    write it, exists (GET /api/ad); returns the job created, to be sent after commit."""
    found = _mine(session)
    if found is None:
        return []
    store, ad, owner_key = found
    if ad is not None or store.version == 0:
        return []
    latest = _latest_job(store, owner_key)
    if latest is not None and (latest.status in Job.ACTIVE or not _worth_retrying(latest)):
        return []
    job = request_after_build(store.product_id)
    return [job] if job is not None else []


def _worth_retrying(job: Job) -> bool:
    refused = (job.result or {}).get("refused")
    if refused is not None:
        return clock.time() >= refused.get("resets_at", 0)
    return job.finished_at is not None and job.finished_at <= utcnow() - timedelta(seconds=RETRY_SECONDS)


def _latest_job(store: Store, owner_key: str) -> Job | None:
    """The newest ad build of this store's founder (jobs of a product's last founder do not count)."""
    jobs = (Job.select().where(Job.kind == AD_BUILD, Job.subject == subject(store.product_id),
                               Job.created_at >= store.created_at)
            .order_by(Job.created_at.desc(), Job.id.desc()).limit(5))
    return next((job for job in jobs if (job.payload or {}).get("owner") == owner_key), None)


def run(payload: dict, *, stage=lambda name: None, fenced=None) -> dict:
    """The ad_build job: writes and saves the ad, or records why not (a meter refusal)."""
    product_id, owner_key = payload["product_id"], payload["owner"]
    store = Store.get_or_none(Store.product == product_id)
    if store is None or store.owner != owner_key or store.version == 0:
        return {"product_id": product_id, "skipped": "the store is not this founder's, or not built"}
    ad = Ad.get_or_none(Ad.product == product_id)
    if ad is not None and ad.owner == owner_key and ad.store_version >= payload["store_version"]:
        return {"product_id": product_id, "skipped": "already written from this build", "version": ad.version}
    facts = store_facts.load(product_id)
    if facts is None:
        return {"product_id": product_id, "skipped": "the product left the catalog"}
    try:
        with metered(_account_of(owner_key), AD_BUCKET) as charge:
            number = _write(product_id, owner_key, store.version, facts, stage=stage, fenced=fenced)
            if charge is not None:
                charge.keep()
    except Refused as refused:
        if refused.reason not in METER_REFUSALS:  # the store changed hands while it was written
            return {"product_id": product_id, "skipped": refused.explanation}
        return {"product_id": product_id, "refused": {"reason": refused.reason, "explanation": refused.explanation,
                                                      **refused.fields}}
    return {"product_id": product_id, "version": number}


def _write(product_id: str, owner_key: str, store_version: int, facts, *, stage, fenced) -> int:
    stage("writing")
    known = ai_facts.facts_for(product=facts.product, evidence=facts.evidence, offer=facts.offer,
                               statements=facts.statements)
    document = versions.document_of(product_id, store_version) or {}
    store_copy = {"headline": (document.get("copy") or {}).get("headline")}
    try:
        answer = ai_tasks.write(ai.Task(kind=ad_copy.AD_COPY_KIND, facts=known, current={"store": store_copy}))
    except ai.AIError as exc:
        raise JobFailed("cli_failed" if exc.reason == ai.errors.FAILED else "generation_failed") from None
    stage("rendering")
    previous = Ad.get_or_none(Ad.product == product_id)
    overrides = previous.overrides if previous is not None and previous.owner == owner_key else {}
    copy = _effective(answer.copy, overrides)
    rendered = {platform: _render(platform, copy[platform]["headline"], facts.product) for platform in PLATFORMS}
    now = utcnow()
    with (fenced() if fenced else transaction()):
        # Written only while the store is still this founder's (a hold may have lapsed meanwhile).
        if not Store.select().where(Store.product == product_id, Store.owner == owner_key).exists():
            raise Refused("not_found", NO_AD, building=False)
        images = {platform: _save_images(product_id, platform, headline, files)
                  for platform, (headline, files) in rendered.items()}
        if previous is None:
            Ad.create(product=product_id, owner=owner_key, store_version=store_version, version=1,
                      written=answer.copy, overrides=overrides, images=images, dropped=answer.dropped,
                      created_at=now, updated_at=now)
            number = 1
        else:
            number = previous.version + 1
            moved = (Ad.update(owner=owner_key, store_version=store_version, version=number, written=answer.copy,
                               overrides=overrides, images=images, dropped=answer.dropped, updated_at=now)
                     .where(Ad.product == product_id, Ad.version == previous.version).execute())
            if moved != 1:
                # The founder changed the ad while it was written: written again shortly, from
                # their change, rather than over it (the charge is refunded meanwhile).
                raise TransientError("the ad changed while it was being written")
            _forget_images(previous.images, keep=images)
    return number


def _render(platform: str, headline: str, product: dict) -> tuple[str, list]:
    return headline, ad_image.images_for(sizes=SIZES[platform], headline=headline, product=product)


def _save_images(product_id: str, platform: str, headline: str, files: list) -> dict:
    saved = []
    for width, height, png in files:
        image_id = secrets.token_hex(16)
        AdImage.create(id=image_id, product=product_id, platform=platform, width=width, height=height, data=png,
                       created_at=utcnow())
        saved.append({"id": image_id, "width": width, "height": height})
    return {"headline": headline, "files": saved}


def _forget_images(old: dict, *, keep: dict) -> None:
    kept = {f["id"] for entry in keep.values() for f in entry["files"]}
    gone = [f["id"] for entry in (old or {}).values() for f in entry.get("files", []) if f["id"] not in kept]
    if gone:
        AdImage.delete().where(AdImage.id.in_(gone)).execute()


# --- Reading -------------------------------------------------------------------------------

def _mine(session) -> tuple[Store, Ad | None, str] | None:
    """The founder's store (built by them), their ad of it if any, and their owner key."""
    resolved = resolve(session)
    if resolved is None:
        return None
    owner_key = owner_of(session).key
    store = Store.get_or_none(Store.product == resolved.product_id)
    if store is None or store.owner != owner_key:
        return None
    ad = Ad.get_or_none(Ad.product == store.product_id)
    return store, (ad if ad is not None and ad.owner == owner_key else None), owner_key


def own_ad(session) -> Ad:
    """The founder's ad; 404 not_found (with `building`) when there is none."""
    found = _mine(session)
    if found is None:
        raise Refused("not_found", "You have no ad yet: pick a product and build its store first; the ad is written "
                                   "once the store is built.", building=False)
    store, ad, owner_key = found
    if ad is not None:
        return ad
    latest = _latest_job(store, owner_key) if store.version else None
    refused = (latest.result or {}).get("refused") if latest is not None and latest.status == Job.DONE else None
    if refused is not None and clock.time() < refused.get("resets_at", 0):
        raise Refused(**refused)
    # The job read above is the answer when it is still running: read again, it may have
    # finished (refused) in between, and "not found, not being written" would be said of an
    # ad whose job just ran.
    building = (latest is not None and latest.status in Job.ACTIVE) or active_job(
        kind=AD_BUILD, subject=subject(store.product_id)) is not None or builds.busy(store.product_id)
    raise Refused("not_found", NO_AD + (" It is being written now." if building else ""), building=building)


def read(*, session, platform: str) -> dict:
    """GET /api/ad: the founder's ad on one platform."""
    return answer(own_ad(session), platform)


def _effective(written: dict, overrides: dict) -> dict:
    return {platform: {**written[platform], **(overrides or {}).get(platform, {})} for platform in PLATFORMS}


def answer(ad: Ad, platform: str, status: str = "ok") -> dict:
    copy = _effective(ad.written, ad.overrides)[platform]
    images = [{"width": f["width"], "height": f["height"], "url": f"{IMAGE_PREFIX}{f['id']}.png"}
              for f in (ad.images or {}).get(platform, {}).get("files", [])]
    product = Product.get_or_none(Product.product_id == ad.product_id)
    return {"status": status, "product_id": ad.product_id, "platform": platform, **copy,
            "image": images[0]["url"] if images else None, "images": images,
            "pass_criteria": pass_criteria(platform, product.category if product else None),
            "version": ad.version, "limits": dict(LIMITS[platform]), "call_to_action_options": list(CALLS_TO_ACTION),
            "overridden": [f for f in FIELDS if f in (ad.overrides or {}).get(platform, {})],
            "platforms": list(PLATFORMS), "updated_at": iso(ad.updated_at)}


def image(name: str) -> bytes | None:
    """The PNG of an ad image by its id (32 hex digits), or None."""
    if len(name) != 32 or any(c not in "0123456789abcdef" for c in name):
        return None
    row = AdImage.get_or_none(AdImage.id == name)
    return bytes(row.data) if row is not None else None


# --- Changing -------------------------------------------------------------------------------

def _apply(ad: Ad, changes: dict, *, reset: str | None = None, fenced=None) -> int:
    """Writes the founder's values (changes: {platform: {field: value}}; a value equal to the
    written copy clears the override) or clears a platform's (reset), re-rendering the images
    of a platform whose headline changed; returns the new version (the old one when nothing moved)."""
    overrides = {p: dict(v) for p, v in (ad.overrides or {}).items()}
    if reset:
        overrides[reset] = {}
    for platform, fields in changes.items():
        mine = overrides.setdefault(platform, {})
        for field, value in fields.items():
            if value == ad.written[platform][field]:
                mine.pop(field, None)
            else:
                mine[field] = value
    overrides = {p: v for p, v in overrides.items() if v}
    if overrides == (ad.overrides or {}):
        return ad.version
    before, after = _effective(ad.written, ad.overrides), _effective(ad.written, overrides)
    facts = store_facts.load(ad.product_id)
    product = facts.product if facts is not None else {"product_id": ad.product_id, "images": []}
    rendered = {p: _render(p, after[p]["headline"], product) for p in PLATFORMS
                if after[p]["headline"] != before[p]["headline"]}
    with (fenced() if fenced else transaction()):
        images = dict(ad.images or {})
        for platform, (headline, files) in rendered.items():
            images[platform] = _save_images(ad.product_id, platform, headline, files)
        moved = (Ad.update(overrides=overrides, images=images, version=Ad.version + 1, updated_at=utcnow())
                 .where(Ad.product == ad.product_id, Ad.version == ad.version, Ad.owner == ad.owner).execute())
        if moved != 1:  # changed meanwhile (another edit, a new build): nothing of this one is kept
            raise Refused("build_in_progress", "Your ad changed while this change was being made, so nothing was "
                                               "changed. Try again.")
        _forget_images(ad.images, keep=images)
    return ad.version + 1


def edit_field(*, session, platform: str, field: str | None, value, reset: bool) -> dict:
    """POST /api/ad/edit: one field of one platform set to the founder's words, or the platform's copy reset."""
    ad = own_ad(session)
    if reset:
        _apply(ad, {}, reset=platform)
        return answer(Ad.get(Ad.product == ad.product_id), platform, "reset")
    if field not in FIELDS:
        named = f"An ad has no part called {field[:40]!r}" if field else "Say which part of the ad to change"
        raise Refused("unknown_field", f"{named}: it has a headline, a main text, a description and a button "
                                       "(headline, primary_text, description, call_to_action); nothing was changed.",
                      known_fields=list(FIELDS))
    text = " ".join(str(value or "").split())
    _check(platform, field, text)
    _apply(ad, {platform: {field: text}})
    return answer(Ad.get(Ad.product == ad.product_id), platform, "edited")


def _check(platform: str, field: str, text: str) -> None:
    if not text:
        raise Refused("invalid_editor_response", "That would leave the ad with an empty field, so nothing was changed.")
    if field == "call_to_action" and text not in CALLS_TO_ACTION:
        raise Refused("invalid_editor_response", f"The button can say {', '.join(CALLS_TO_ACTION)}; nothing was "
                                                 "changed.", call_to_action_options=list(CALLS_TO_ACTION))
    if too_long(platform, field, text):
        limit = LIMITS[platform][field]
        raise Refused("too_long", f"On {_NAMES[platform]} that part of the ad shows at most {limit} characters; "
                                  f"yours has {len(text)}. Shorten it; nothing was changed.", limit=limit,
                      length=len(text))


_NAMES = {"meta": "Facebook and Instagram", "google": "Google"}


def start_edit(*, session, message: str, platform: str | None) -> Job:
    """Creates the plain-language edit's job on the founder's ad; refuses while the ad is being written."""
    ad = own_ad(session)
    created = False
    if active_job(kind=AD_BUILD, subject=subject(ad.product_id)) is None:
        with transaction():
            job, created = create_job(kind=AD_EDIT, subject=subject(ad.product_id), max_attempts=ai_tasks.ATTEMPTS,
                                      payload={"product_id": ad.product_id, "owner": ad.owner, "message": message,
                                               "platform": platform})
    if not created:
        raise Refused("build_in_progress", "Your ad is being written or changed right now; nothing was changed. "
                                           "Try again in a moment.")
    return job


def run_edit(payload: dict, *, stage=lambda name: None, fenced=None) -> dict:
    """The ad_edit job: {version, diff, skipped}, or {refused: {...}} for the waiting route."""
    try:
        return _edit(payload, stage=stage, fenced=fenced)
    except Refused as refused:
        return {"refused": {"reason": refused.reason, "explanation": refused.explanation, **refused.fields}}


def _edit(payload: dict, *, stage, fenced) -> dict:
    ad = Ad.get_or_none(Ad.product == payload["product_id"])
    facts = store_facts.load(payload["product_id"])
    if ad is None or ad.owner != payload["owner"] or facts is None:
        raise Refused("not_found", NO_AD, building=False)
    stage("writing")
    current = _effective(ad.written, ad.overrides)
    # A policy the request states is the founder's (services/store/policy.py), saved with the change.
    parsed = plain_requests.parse(payload["message"])
    stated = policy.stated_in_requests(parsed)
    known = ai_facts.facts_for(product=facts.product, evidence=facts.evidence, offer=facts.offer,
                               statements=policy.with_stated(facts.statements, stated))
    task = ai.Task(kind=AD_EDIT, facts=known, instructions=payload["message"],
                   current={"copy": current, "platform": payload.get("platform"),
                            **policy.parsed_context(parsed)})
    try:
        written = ai_tasks.write(task).copy
    except ai.AIError as exc:
        raise Refused(_AI_REFUSALS.get(exc.reason, "cli_failed"), "The ad editor gave no answer that could be used, "
                                                                  "so nothing was changed.") from None
    stage("verifying")
    safe, skipped, unbacked = _safe_changes(current, written, known)
    if not safe and not skipped:
        raise Refused("no_diff", "That would leave your ad exactly as it is, so nothing was changed or charged. The "
                                 f"editor understands, for example: {ad_copy.UNDERSTOOD}.")
    if not safe:
        if unbacked:
            raise Refused("unbacked_claim", f"Your product's record cannot back “{unbacked[0]['sentence'][:200]}”, so "
                                            "nothing was changed. Rephrase it to match what the record says.",
                          unbacked=unbacked)
        raise Refused("invalid_editor_response", "None of the changes could be used safely (too long for the "
                                                 "platform, or empty), so nothing was changed.", skipped=skipped)
    changes: dict = {}
    for change in safe:
        changes.setdefault(change["platform"], {})[change["field"]] = change["after"]
    number = _apply(ad, changes, fenced=fenced)
    if stated:
        policy.save_stated(payload["product_id"], stated)
    return {"version": number, "diff": safe, "skipped": skipped}


def _safe_changes(current: dict, written: dict, facts: ai.Facts) -> tuple[list, list, list]:
    """The changed fields that may be used, those that may not (and why), and the unbacked sentences."""
    index = claims.index(facts)
    safe, skipped, unbacked = [], [], []
    for platform in PLATFORMS:
        for field in FIELDS:
            before, after = current[platform][field], " ".join(written[platform][field].split())
            if after == before:
                continue
            try:
                _check(platform, field, after)
            except Refused as refused:
                skipped.append({"platform": platform, "field": field, "why": refused.reason})
                continue
            already = {s.strip() for s, _ in claims.sentences(before)}
            found = [{"field": f"{platform}.{field}", "sentence": s.strip(), "why": why}
                     for s, _ in claims.sentences(after) if s.strip() and s.strip() not in already
                     and (why := claims.why_unbacked(s, index))]
            if found:
                unbacked += found
                skipped.append({"platform": platform, "field": field, "why": "unbacked_claim"})
                continue
            safe.append({"platform": platform, "field": field, "before": before, "after": after})
    return safe, skipped, unbacked


def edit_result(job_id: str) -> dict:
    """POST /api/growth/edit's answer once its job finished; a refusal is raised (and refunded)."""
    outcome = edits.result(job_id)  # the store editor's wait: the same job life, the same refusals
    if outcome.get("status") == "edited":
        done = get_job(job_id)
        outcome["skipped"] = (done.result or {}).get("skipped", []) if done is not None else []
    return outcome


def _ads_held(session_id: int) -> list[str]:
    rows = (Product.select(Product.name).join(Ad, on=(Ad.product == Product.product_id))
            .where(Ad.owner == session_key(session_id)).order_by(Product.name))
    return [f"your ads for {row.name}" for row in rows]


@adopter(kind="ads", held=_ads_held)
def adopt_ads(session_id: int, account_id: int) -> dict:
    """Ads of stores the session built become its account's (as its stores do)."""
    session_key, account_key = adoption_keys(session_id, account_id)
    Ad.update(owner=account_key).where(Ad.owner == session_key).execute()
    return {}
