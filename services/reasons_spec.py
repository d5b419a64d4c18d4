"""Reason codes named by the interface spec (section 7.2 and the endpoint sections), with their sentences.

The service's own additional codes live in services/reasons.py, which merges this table.
"""
from services.reason_types import Reason

SPEC_REASONS: dict[str, Reason] = {
    # --- Interface spec, section 7.2, in table order -----------------------
    # Account and sign-in
    "account_required": Reason(400, "That address cannot be saved to this session. Either it is not an email address we can use, so check it and try again, or it already belongs to a verified account, so use the sign-in link we have sent to it."),
    "invalid_link": Reason(303, "This sign-in link is not valid. Ask for a new one; each link works once and only for 15 minutes."),
    "no_account": Reason(401, "This action needs a signed-in account. Open the sign-in link we email you (saving your address sends one), then try again."),
    "no_account_yet": Reason(200, "There is nothing to show here yet. It fills in once you claim a product or save your email address."),
    "invalid_email": Reason(400, "That email address is missing or not valid. Check it and try again."),
    # Discovery, holds and claims
    "not_shown": Reason(409, "That product was not shown to you, so it cannot be claimed. Choose one of the products you have been shown."),
    "claimed_by_another_founder": Reason(409, "Another founder has claimed this product, so it is no longer available to you. Choose a different product."),
    "held_by_another_founder": Reason(409, "Another founder took this product a moment before you. Ask for a fresh product to look at."),
    "passed_by_you": Reason(409, "You passed on this product, and passing is final. Choose a different product."),
    "all_held": Reason(200, "Every product is being held by other founders right now. Check back later, when unclaimed holds have been released."),
    "passed_out": Reason(200, "You have passed on every product available to you. There is nothing new to show right now."),
    "catalog_exhausted": Reason(200, "There is nothing left in the catalogue to show you. Check back later for new products."),
    "claim_limit_reached": Reason(200, "You have claimed as many products as your allowance allows. Share your link to unlock one more."),
    "not_servable": Reason(200, "This product is no longer being offered. Choose a different product."),
    "unknown_product": Reason(400, "We could not find that product in the catalogue. Check it and try again."),
    "no_product": Reason(200, "You do not have a product yet. Find one and hold or claim it first."),
    "no_claim": Reason(400, "An outcome can only be recorded for a product you have claimed; holding it is not enough. Claim the product first."),
    "not_claimed": Reason(200, "You have not picked a product yet, so there is nothing to show. Find one to get started."),
    # Store
    "not_yet_researched": Reason(200, "Your store has not been started yet. Start building it to see it here."),
    "not_started": Reason(409, "Your store has not been built yet, so there is nothing to edit. Build it first."),
    "build_in_progress": Reason(200, "Your store is already being built. Wait for this build to finish before trying again."),
    "generation_failed": Reason(200, "We could not generate your store. Try building it again."),
    "verify_failed": Reason(500, "We could not re-check your store, so it has not been published. Try publishing again in a moment."),
    # Intents
    "unknown_section": Reason(200, "Your store has no section by that name to lead with. Choose one of the sections it has."),
    "no_section": Reason(400, "No section was named to put first. Name the section your store should lead with."),
    "not_an_intent": Reason(200, "That request gives exact sizes or colour codes rather than saying what you want to achieve. Describe the change in plain words, such as what should stand out more."),
    "no_row_justifies_this": Reason(200, "We have no dated evidence that supports this change, so we will not propose it."),
    "no_proposal_echoed": Reason(409, "The proposal to apply was missing from the request. Apply it from the proposal you were shown."),
    "stale_proposal": Reason(409, "The evidence behind this proposal has changed since it was made. Ask for a fresh proposal."),
    "nothing_to_apply": Reason(409, "This proposal would not change anything in your store, so there is nothing to apply."),
    "nothing_to_revert": Reason(409, "There is no applied change to undo."),
    "irreversible_without_confirmation": Reason(409, "This change cannot be undone once applied. Confirm that you want it before applying it."),
    "intents_book_unreadable": Reason(500, "We could not read the record of changes applied to your store. Try again in a moment."),
    "apply_build_raised": Reason(500, "Your store could not be rebuilt while applying this change. Try again in a moment."),
    "revert_build_raised": Reason(500, "Your store could not be rebuilt while undoing the change. Try again in a moment."),
    "order_build_raised": Reason(500, "Your store could not be rebuilt with the new leading section. Try again in a moment."),
    # Website editor
    "no_message": Reason(400, "Your edit request was empty. Describe the change you want."),
    "message_too_long": Reason(400, "Your instruction is too long. Shorten it and try again."),
    "cli_unavailable": Reason(200, "The editing assistant is not available right now, so nothing was changed. Try again later."),
    "cli_failed": Reason(200, "The editing assistant did not finish, so nothing was changed. Try again."),
    "editor_unavailable": Reason(200, "The editing assistant declined to make this change and explained why. Nothing was changed."),
    "unbacked_claim": Reason(200, "Your product's details do not support that wording, so it was not used. Rephrase it to match what the product record says."),
    # 200 from the store and ad editors (an edit naming a field the copy lacks); 400 from any route whose
    # JSON body names a field the route does not take (api/routing.py). Spec 7.2: "200 or 400".
    "unknown_field": Reason(200, "There is no field by that name here, so nothing was changed: your store has no "
                                 "field by that name to edit, or the request named a field it does not take."),
    "unknown_diff": Reason(200, "Your store has no record of that change."),
    "unknown_version": Reason(200, "Your store has no such version."),
    "no_diff": Reason(200, "Your store has no recorded change matching that edit."),
    "too_long": Reason(200, "That text is longer than this part of your store allows. Shorten it and try again."),
    "nothing_to_undo": Reason(200, "There is no earlier version to go back to."),
    "nothing_to_redo": Reason(200, "There is no later version to go forward to."),
    "no_history": Reason(200, "Your store has no saved versions yet, so there is nothing to move between."),
    "no_direction": Reason(200, "Say whether to go back or forward between versions."),
    # Growth
    "invalid_platform": Reason(400, "That platform is not supported here. Choose one of the platforms offered."),
    "invalid_editor_response": Reason(200, "The ad editor did not return any changes we could safely use, so nothing was changed."),
    # Limits
    "usage_limit_reached": Reason(429, "You have used this feature's allowance for the current five-hour window. It resets when the window ends; other features have their own allowances, and sharing or upgrading raises your limits."),
    "weekly_limit_reached": Reason(429, "You have used this feature's allowance for the week. It resets when the week ends; other features have their own allowances, and sharing or upgrading raises your limits."),
    # Billing and payments
    "unknown_tier": Reason(400, "We do not recognise that plan. Choose one of the plans offered."),
    "billing_unconfigured": Reason(500, "Payments are not set up on this service, so your plan was not changed."),
    "unsigned_callback": Reason(400, "This billing message was not signed, so it was ignored and nothing changed."),
    "payment_unavailable": Reason(200, "Your payment could not be started, so you have not been charged. Try again later."),
    "legacy_checkout_retired": Reason(410, "This checkout link is no longer in use and cannot add to your balance. Start a new top-up from your ad balance."),
    # Support desk
    "ticket_not_found": Reason(400, "We could not find that ticket on your support desk."),
    "unknown_action": Reason(400, "The support desk cannot do that. Choose to set a field, reply, add a note or draft a reply."),
    "bad_field": Reason(400, "Only a ticket's status, priority or category can be changed."),
    "resolution_required": Reason(400, "A ticket can only be closed with a resolution. Add one and try again."),
    "empty_reply": Reason(400, "Your reply is empty. Write a reply before sending it."),
    "empty_note": Reason(400, "Your note is empty. Write a note before saving it."),
    "unknown_op": Reason(400, "Keyword rules can only be added or deleted."),
    # Questions and research
    "no_question": Reason(200, "No question was asked. Type a question and try again."),
    "empty_question": Reason(200, "Your question is blank. Type a question and try again."),
    "no_query_terms": Reason(200, "Your question has no words we can search on. Try rephrasing it with more specific words."),
    # Founder product and outcome
    "invalid_name": Reason(400, "The product name is empty or too long. Check it and try again."),
    "invalid_description": Reason(400, "The product description is empty or too long. Check it and try again."),
    "invalid_price": Reason(400, "The price must be a positive amount within the allowed range. Check it and try again."),
    "invalid_images": Reason(400, "One or more images could not be used. Each image must be a supported picture that is safe and belongs to you."),
    "images_too_large": Reason(413, "The images you uploaded are too large. Use smaller files and try again."),
    "nothing_to_record": Reason(400, "There was nothing to record for this outcome. Add at least one figure, such as spend or revenue."),
    "invalid_outcome": Reason(400, "Spend and revenue must be numbers of zero or more."),
    "no_claim_record": Reason(400, "There is no claim on record to attach this outcome to. Claim the product first."),
    "nothing_to_analyze": Reason(400, "There is nothing to analyse. Send a product name or description."),
    "no_product_id": Reason(400, "No product was named. Choose a product and try again."),
    "not_presearch_qualified": Reason(200, "This product no longer has enough evidence behind it to be offered. Choose a different product."),
    "no_worker": Reason(200, "The 3D preview is not available right now, so your product is shown as a photograph."),
    # Empty surfaces
    "no_orders_yet": Reason(200, "You have no orders yet. They will appear here once customers buy."),
    "no_tickets_yet": Reason(200, "You have no support tickets yet. They will appear here when customers get in touch."),
    "nothing_to_watch": Reason(200, "There is nothing to watch for here; you can only be notified about products held or claimed by someone else."),
    # Orders, domains and Fix
    "order_not_found": Reason(400, "We could not find that order among your orders."),
    "not_available": Reason(200, "That domain is not available, or its price could not be confirmed. Try a different domain."),
    "unknown_event": Reason(400, "That event name is not one the Fix tool recognises."),
    # --- Named elsewhere in the spec and decisions.md (alphabetical) -------
    "bad_signature": Reason(403, "This billing message had an invalid or out-of-date signature, so it was refused and nothing changed."),
    "internal_error": Reason(500, "Something went wrong on our side. Try again in a moment, and contact support if it keeps happening."),
    "invalid_action": Reason(400, "That action is not one this request takes, so nothing was changed. Choose one of the actions it names."),
    "invalid_json": Reason(400, "We could not read that request, so nothing was changed. Check it and try again."),
    "launch_blocked": Reason(409, "Your product cannot take that launch step yet: some launch facts it needs are not true today. They are named with this answer, and the Launch screen says how to make each one true."),
    "not_found": Reason(404, "We could not find what you asked for. It may not have been created yet, or the address may be wrong."),
    "unknown_surface": Reason(200, "Your store has no area by that name to change. Choose one of the areas it has."),
}
