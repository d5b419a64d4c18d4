"""POST /api/ask: a question answered from the catalog (decisions.md "POST /api/ask").

The answer is built from the search results (services/search.py) with no AI: one plain
sentence naming the best matches with their ids, and those ids as citations, best first.
The search is the product-find engine's work, so a signed-in account pays for it from the
`find` bucket (spec 8.1 has no bucket of its own for asking); an anonymous session is not
metered (spec 5.11). A question that is refused or has nothing to search for spends nothing.
"""
from __future__ import annotations

from models.session import Session
from services import search
from services.discovery import METER_BUCKET
from services.errors import Refused
from services.meter import metered
from services.money import display_major
from services.ownership import owner_of

MAX_QUESTION = 500  # characters of a question; longer is 400 question_too_long
RESULTS = 5  # results an answer lists
CITED = 3  # of those, how many the answer names (and cites)

OK = "ok"
ABSTAINED = "abstained"


def ask(*, session: Session, question: str | None) -> dict:
    """Answers a question with the catalog products that match it, citing them by id."""
    if question is None:
        raise Refused("no_question", "Send a question, for example {\"question\": \"Which knives do you have?\"}.")
    text = question.strip()
    if not text:
        raise Refused("empty_question", "Your question is blank. Type a question and try again.")
    if len(text) > MAX_QUESTION:
        raise Refused("question_too_long", f"A question may be at most {MAX_QUESTION} characters; yours has "
                                           f"{len(text)}. Ask something shorter.")
    terms = search.query_terms(text)
    if not terms:
        return {"status": ABSTAINED, "reason": "no_query_terms",
                "explanation": "Your question has no words to search the catalog for (only short or very common "
                               "words). Name the kind of product you mean, for example \"dog bowl\"."}
    owner = owner_of(session)
    with metered(owner.account_id, METER_BUCKET):
        hits = search.search(text, limit=RESULTS, owner=owner)
    cited = hits[:CITED]
    return {
        "status": OK,
        "question": text,
        "terms": terms,
        "answer": answer_sentence(terms, cited),
        "citations": [hit.product_id for hit in cited],
        "results": [result(hit) for hit in hits],
    }


def answer_sentence(terms: list[str], cited: list[search.Hit]) -> str:
    """The answer: the cited products, best first, each with its id, category and price."""
    if not cited:
        return f"Nothing in the catalog matches your question (searched for: {', '.join(terms)})."
    named = [f"{hit.name} ({hit.product_id}; {hit.category}, {display_major(hit.price, hit.currency)})" for hit in cited]
    if len(named) == 1:
        return f"The catalog product that best matches your question is {named[0]}."
    listed = ", ".join(named[:-1]) + " and " + named[-1]
    return f"The catalog products that best match your question, best first, are {listed}."


def result(hit: search.Hit) -> dict:
    return {"product_id": hit.product_id, "name": hit.name, "category": hit.category, "price": hit.price,
            "currency": hit.currency, "score": hit.score, "snippet": hit.snippet}
