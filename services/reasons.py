"""The one registry of reason codes: every code the service can emit, with its sentence.

GET /api/reasons serves it. A test walks the source and proves that every code emitted
anywhere is registered here.
"""
from services.reason_types import Reason
from services.reasons_spec import SPEC_REASONS

# Codes the service adds to those the interface spec names.
SERVICE_REASONS: dict[str, Reason] = {
    "address_not_public": Reason(400, "Fix reads only public web pages on the usual web ports: that address points inside a private network, names a port or spelling Fix does not read, or carries a password. Nothing was fetched."),
    "no_page_intent": Reason(400, "Say which page to write, such as a returns policy, a shipping page, a privacy policy, an FAQ or a landing page for your product; nothing was written."),
    "unknown_page": Reason(200, "That does not name a page we can write. Ask for a landing page for your product, a returns, shipping or privacy policy, or an FAQ; nothing was written."),
    "fix_run_not_done": Reason(409, "That store check has not finished yet, so there are no repairs to apply. Wait for its report, then apply them; nothing was changed."),
    "nothing_to_apply": Reason(409, "This check found nothing your store's content can hold, so there is nothing to apply: what it found is listed with why and what you can do. Nothing was changed."),
    "ad_balance_too_low": Reason(409, "Your ad balance holds less than one day of this campaign's budget, so it cannot start: top it up on Growth first. Nothing was saved."),
    "ad_not_ready": Reason(409, "A campaign starts once your ad is written and your store is published, since its ad sends people there. Nothing was saved."),
    "ad_currency_differs": Reason(409, "Your ad balance is in US dollars, so campaigns are paid in US dollars: set your campaign plan's currency to USD to start one. Nothing was saved."),
    "ad_platform_refused": Reason(200, "The ad platform refused this campaign, so it is not running and nothing was spent."),
    "invalid_campaign_tag": Reason(400, "A campaign tag (the utm_campaign of the link a visitor arrived by) is 1 to 64 letters, digits, dashes or underscores; nothing was recorded."),
    "fix_runs_busy": Reason(429, "You already have 3 store checks waiting or running. Wait for one to finish, then start the next; nothing new was started."),
    "invalid_url": Reason(400, "Type your store's web address, such as https://yourstore.com; nothing was checked."),
    "not_a_web_page": Reason(200, "That address did not answer with a web page, so there was nothing to check. Type the address of your store's home page."),
    "page_too_large": Reason(200, "Your page is larger than the 2 MB Fix reads, so it was not checked. Try the address of a smaller page of your store."),
    "store_unreachable": Reason(200, "We could not read your store: it did not answer within 10 seconds, answered with an error, or sent us through too many redirects. Check the address opens in a browser, then try again."),
    "amount_out_of_bounds": Reason(400, "A top-up of your ad balance must be at least $5.00 and at most $5,000.00; nothing was charged."),
    "bound_to_another_account": Reason(409, "This session is signed in to another account, so that address cannot be saved to it; sign out first."),
    "campaign_book_full": Reason(409, "Your campaign book already holds as many campaigns as it keeps. Remove one before adding another; nothing was saved."),
    "claim_required": Reason(409, "Publishing, going live and taking money need the product to be yours alone: claim it first. Nothing was changed; building and editing its store need no claim."),
    "no_pass_to_undo": Reason(200, "There is no pass of yours to undo: you have not passed on that product, or its pass was undone already. Nothing was changed."),
    "undo_window_over": Reason(200, "A pass can be undone for one minute after it, and that minute is over: the pass is final now. Nothing was changed."),
    "claimed_by_you": Reason(409, "You have claimed this product, and a claim cannot be passed on; it stays yours."),
    "cross_site_request": Reason(403, "This request came from another site, so nothing was changed; use the service's own pages."),
    "database_unavailable": Reason(503, "The service cannot reach its database right now; nothing was changed. Try again in a moment."),
    "invalid_amount": Reason(400, "The top-up amount must be a whole number of cents, such as 2500 for $25.00; nothing was charged."),
    "invalid_campaign": Reason(400, "A campaign needs a name of 1 to 80 characters, a status of draft, active or paused, and a daily budget in whole cents within the allowed range; nothing was saved."),
    "invalid_confirmation": Reason(400, "This sign-in is no longer waiting for you: it was confirmed already, its few minutes have passed, or it was opened in another browser. Nothing was changed; open the sign-in link again, or ask for a new one."),
    "invalid_cost": Reason(400, "What one unit costs you must be an amount from 0 up in your store's currency, in whole cents, and only a product of your own takes it (a catalog product's cost is the catalog's). Nothing was saved."),
    "invalid_days": Reason(400, "days must be a whole number of days from 1 to 90; nothing was counted."),
    "invalid_domain": Reason(400, "That is not a domain name anyone could register: send one like yourbrand.com (letters, digits and hyphens, or Unicode, in labels of at most 63 characters); nothing was quoted or ordered."),
    "invalid_event": Reason(400, "That is not a store event: send page_view, add_to_cart, checkout or paid; nothing was recorded."),
    "invalid_payout": Reason(400, "That payout destination cannot be used: a bank payout needs the holder's name and an IBAN or account number, a PayPal payout the account's email address. Nothing was saved."),
    "invalid_setting": Reason(400, "One of your settings has a value it cannot take; the answer says which, and what it takes. Nothing was saved."),
    "invalid_rule": Reason(400, "A keyword rule needs a keyword of 1 to 100 characters and sets a ticket's category, priority or status (open or pending) to one of its values; a rule is named by its id. Nothing was changed."),
    "invalid_ticket_value": Reason(400, "That is not a value this ticket field takes: status is open, pending, solved or closed; priority low, normal, high or urgent; category question, order, shipping, return, billing or other. Nothing was changed."),
    "text_too_long": Reason(400, "That text is longer than the support desk keeps (20,000 characters for a reply or note, 2,000 for a resolution). Shorten it; nothing was changed."),
    "invalid_direction": Reason(400, "The walkthrough moves forward or back; nothing was changed."),
    "invalid_route": Reason(400, "A link to continue on another device carries a screen of this app (a route like #/app/home), never an outside address; nothing was issued."),
    "invalid_journey_data": Reason(400, "A link to continue on another device carries at most a small JSON object of data (2,048 bytes); nothing was issued."),
    "already_consumed": Reason(409, "This link to continue was opened already, so it has been used up. Make a new one on the device you came from."),
    "invalid_todo": Reason(400, "A task needs 1 to 300 characters of text, and is named by its id; nothing was changed."),
    "invalid_shipping_address": Reason(400, "The shipping address is incomplete or cannot be used: a name, an address line, a city, a postal code and one of the shop's countries are needed, each without control characters. Nothing was charged."),
    "invalid_scope": Reason(400, "An approval is for a whole campaign or for one post idea of it, named; nothing was approved."),
    "invalid_quantity": Reason(400, "quantity must be a whole number from 1 to 99; no order was opened."),
    "invalid_presence": Reason(400, "area and screen must each be 1 to 40 lowercase letters, digits, underscores or hyphens; nothing was recorded."),
    "invalid_query": Reason(400, "A saved query must be the words of a discovery query: not blank, and no longer than a discovery query may be. Nothing was saved."),
    "invalid_rating": Reason(400, "A rating is a score from 1 (very unhappy) to 5 (very happy), with an optional comment of at most 1,000 characters; nothing was recorded."),
    "invalid_request": Reason(400, "The request is missing a field or has a value of the wrong kind; nothing was changed."),
    "todo_limit_reached": Reason(409, "Your task list is full: delete some tasks you have done, then add more. Nothing was added."),
    "invalid_transition": Reason(409, "Your product's launch state does not allow that step now; nothing was changed. The answer names the state it is in and the steps it allows."),
    "invalid_session_id": Reason(400, "session_id must be the visitor's id: 8 to 64 letters, digits, underscores or hyphens; nothing was recorded."),
    "method_not_allowed": Reason(405, "This address does not accept that method; the Allow header lists the ones it does."),
    "admin_credentials_required": Reason(401, "The operator pages need the admin password, sent with HTTP Basic authentication; nothing was shown."),
    "admin_not_configured": Reason(403, "The operator pages are closed: no admin password (ADMIN_PASSWORD) is configured, so nobody may see them; nothing was shown."),
    "operator_password_throttled": Reason(429, "Too many wrong admin passwords came from your address, so no password from it is checked for a while; nothing was shown. Try again after the seconds Retry-After gives."),
    "invalid_page": Reason(400, "page must be a whole number from 1 to 1000; nothing was shown."),
    "invalid_search": Reason(400, "A search of the operator pages is at most 100 characters; nothing was shown."),
    "metrics_credentials_required": Reason(401, "The service's figures need the admin password, sent with HTTP Basic authentication; nothing was shown."),
    "metrics_not_public": Reason(403, "The service's figures are served only to this host (or to everyone when METRICS_PUBLIC is set), and no admin password is configured; nothing was shown."),
    "never_run": Reason(200, "No nightly research brief has been made yet: the service makes one every night."),
    "no_ratings_yet": Reason(200, "No customer has rated a reply yet: each reply you send carries a one-click rating link, and the ratings appear here."),
    "no_suppliers": Reason(200, "The supplier feed has no offer for that product or any product named like it; try other words for it."),
    "nothing_to_change": Reason(400, "Send at least one of name, description, price, images or cost to change; nothing was changed."),
    "not_published": Reason(200, "Events count only for a store that is published, and this product has none; nothing was recorded."),
    "not_in_store_facts": Reason(200, "The store's own facts (its product, price, FAQ, shipping, returns and contact details) do not answer this, so the support agent did not guess; nothing was charged."),
    "support_busy": Reason(429, "This shop's assistant cannot answer more questions just now. Please try again later, or write to the shop."),
    "note_too_long": Reason(400, "That note is longer than the research workspace keeps. Shorten it and try again; nothing was saved."),
    "no_samples_yet": Reason(200, "You have not ordered a sample yet: pick a supplier and order one."),
    "store_not_published": Reason(409, "That store is not published, so it takes no orders; nothing was charged."),
    "product_not_on_sale": Reason(409, "This product is not on sale right now, so no order was opened and nothing was charged."),
    "unknown_payment": Reason(200, "No payment of this service has that checkout, so the notification changed nothing."),
    "payload_too_large": Reason(413, "The request body is larger than the service accepts; nothing was stored."),
    # The buffering front's own answers (deploy/front.conf): it refuses before the app sees anything.
    "too_many_open_requests": Reason(429, "Too many requests from your address are open at once; nothing was changed. "
                                          "Wait for them to finish, then try again."),
    "service_restarting": Reason(503, "The service is restarting or too busy to answer; nothing was changed. "
                                      "Try again in a moment."),
    "queue_unavailable": Reason(503, "The service's work queue is not answering right now, so this could not be done. Try again in a moment."),
    "query_too_long": Reason(400, "The research question is longer than the service researches; nothing was researched. Ask something shorter."),
    "question_too_long": Reason(400, "The question is longer than the service searches; nothing was searched. Ask something shorter."),
    "suppliers_unavailable": Reason(200, "Supplier options cannot be read from the supplier feed this service is set up with, so none are given and no supplier can be connected."),
    "unknown_account": Reason(200, "No account has the email address this billing message names, so it was acknowledged and nothing changed."),
    "unknown_campaign": Reason(400, "Your campaign book has no campaign with that number, so nothing was saved. Add it as a new campaign instead."),
    "unknown_event_type": Reason(200, "This billing message is of a kind the service does not act on, so it was acknowledged and nothing changed."),
    "unknown_subject": Reason(404, "There is no lesson subject by that name; the Learn screen lists them all."),
    "unknown_offer": Reason(400, "That supplier has no offer line by that SKU, or offers several goods and the request did not say which; nothing was connected or ordered. Name one of the offer lines the supplier options list, by supplier and SKU."),
    "unknown_supplier": Reason(400, "The supplier feed has no supplier by that name, so nothing was connected or ordered. Pick one of the suppliers the Suppliers screen lists."),
    "unknown_workspace_op": Reason(400, "The research workspace does not know that operation. It can add or delete a note, shortlist or unshortlist a product, and save or delete a query; nothing was changed."),
    "workspace_full": Reason(409, "Your research workspace already holds as many entries of that kind as it keeps. Delete one first; nothing was added."),
}

REASONS: dict[str, Reason] = {**SPEC_REASONS, **SERVICE_REASONS}


def sentence(code: str) -> str:
    return REASONS[code].sentence


def default_status(code: str) -> int:
    return REASONS[code].status
