"""POST /api/ask (spec 4.7; decisions.md "POST /api/ask"): a question answered from the catalog."""
from marshmallow import Schema, fields

from api.routing import Blueprint
from api.session import current_session
from services import ask as asking
from services import search
from services.meter import BUCKETS, METER_REFUSALS

bp = Blueprint("ask", __name__, description="Questions answered from the catalog.")

_FIND = BUCKETS[asking.METER_BUCKET]

DECISIONS: list[str] = [
    "POST /api/ask {question} (any session, no account needed) answers 200 {status: ok, question (trimmed), terms, "
    "answer, citations: [product_id], results: [{product_id, name, category, price, currency, score, snippet}]}. "
    f"results are the {asking.RESULTS} best catalog matches, best first (ties by product_id); answer is one "
    f"deterministic sentence (no AI) naming the best {asking.CITED} with their ids, category and price, and "
    "citations are exactly those ids in that order. When nothing matches: status ok, an answer saying nothing in "
    "the catalog matches (naming the words searched), citations [] and results []. score is comparable within one "
    "answer only; snippet is plain text (no markup) from the product's description.",
    "Searching: the question's words of letters and digits, lower-cased, without English stop words, question "
    f"filler (product, find, show, best, ...) and one-character words, each once, at most {search.MAX_TERMS} "
    "(`terms`); a product matches any of them (OR), stemmed (English), and a word also matches its irregular "
    "other number (knives/knife, teeth/tooth). A match in the name weighs most, then the category, then the "
    "description. Search syntax typed into a question (quotes, OR, *, NEAR, parentheses) is never interpreted.",
    "Ranking: on SQLite (FTS5) bm25 over every match, which also weighs how rare a word is in the catalog; on "
    f"PostgreSQL ts_rank_cd over at most {search.CANDIDATES} of the matches: those matching every word first, "
    "then those whose name matches a word, then the best in catalog rank (ts_rank_cd recomputes each product's text vector, so ranking every match of a "
    "common word in a large catalog would take seconds). A question matching fewer products is ranked in full on "
    "both, and the two backends agree on which products match.",
    "Refusals, all HTTP 200: {status: refused, reason: no_question} when question is missing or null, "
    "{status: refused, reason: empty_question} when it is blank, {status: abstained, reason: no_query_terms} when "
    f"no searchable word is left. A question longer than {asking.MAX_QUESTION} characters (after trimming) is "
    "400 `question_too_long`; a question that is not a string is 400 `invalid_request`.",
    "What an ask may cite: catalog products served by the evidence gate today and claimed by no one, and the "
    "asker's own claimed product; a product claimed by another founder is never cited or listed. Products held "
    "by others may be listed (a hold is not ownership).",
    f"Metering: spec 8.1 has no bucket for asking; an ask by a signed-in account is the product find engine's "
    f"work and spends the `{_FIND.id}` bucket ({_FIND.cost} credits, 429 usage_limit_reached / "
    "weekly_limit_reached when exhausted). An ask that is refused or abstains spends nothing; one that searched "
    "spends even when nothing matched. Anonymous sessions are not metered (spec 5.11).",
]


class AskBody(Schema):
    question = fields.String(allow_none=True, load_default=None,
                             metadata={"description": f"At most {asking.MAX_QUESTION} characters"})


class ResultSchema(Schema):
    product_id = fields.String(required=True)
    name = fields.String(required=True)
    category = fields.String(required=True)
    price = fields.Float(required=True)
    currency = fields.String(required=True)
    score = fields.Float(required=True, metadata={"description": "Higher is better; comparable within one answer"})
    snippet = fields.String(required=True, metadata={"description": "Plain-text excerpt of the description"})


class AskAnswer(Schema):
    status = fields.String(required=True, metadata={"enum": [asking.OK, asking.ABSTAINED]})
    question = fields.String()
    terms = fields.List(fields.String(), metadata={"description": "The words searched for"})
    answer = fields.String()
    citations = fields.List(fields.String(), metadata={"description": "Product ids the answer names, best first"})
    results = fields.List(fields.Nested(ResultSchema))
    reason = fields.String()
    explanation = fields.String()


@bp.post("/api/ask")
@bp.declare(changes_state=True,  # it spends credits
            refuses={200: ["no_question", "empty_question", "no_query_terms"], 400: ["question_too_long"],
                     429: list(METER_REFUSALS)})
@bp.arguments(AskBody)
@bp.response(200, AskAnswer)
def ask(body):
    """Answers a question from the catalog: the best matching products, cited by id.

    Metered under the find bucket for a signed-in account.
    """
    return asking.ask(session=current_session(), question=body["question"])
