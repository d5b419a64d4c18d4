"""A concurrency check that cannot pass by luck (issue 51 point 6; reliability.md "Races"):
the worker is held while the posts race, so no build can finish between them and let a
second one start legitimately (the spec allows a second build only once the first has
finished). Twenty concurrent POST /api/store for one product: exactly one job row and one
job id in every answer; once that build has finished, twenty more start exactly one new
build. The job table's partial unique index (one queued-or-running job per kind and
subject, models/job.py) decides, in every process; run against PostgreSQL as well."""
from __future__ import annotations

from models.job import Job
from services.store import builds
from tests.factories import claimed_founder
from tests.helpers import in_threads

RACERS = 20


def _race(founder, cookie) -> list[dict]:
    def build(_):
        other = founder()
        other.set_cookie("ff_session", cookie)
        response = other.post("/api/store")
        assert response.status_code == 200, response.get_data(as_text=True)
        return response.get_json()

    return in_threads(RACERS, build)


def _builds() -> list[Job]:
    return list(Job.select().where(Job.kind == builds.BUILD, Job.subject == builds.subject("p00"))
                .order_by(Job.created_at, Job.id))


def test_twenty_concurrent_builds_of_one_product_make_one_job_and_every_answer_names_it(founder, held_worker):
    client = claimed_founder(founder)
    answers = _race(founder, client.get_cookie("ff_session").value)
    jobs = _builds()
    assert len(jobs) == 1 and jobs[0].status == Job.QUEUED  # held: it cannot have finished meanwhile
    assert {(a["status"], a["stage"], a["job_id"]) for a in answers} == {("building", "queued", jobs[0].id)}


def test_once_the_build_finished_twenty_concurrent_posts_start_exactly_one_new_build(founder, held_worker, run_jobs):
    client = claimed_founder(founder)
    cookie = client.get_cookie("ff_session").value
    first = _race(founder, cookie)[0]["job_id"]
    held_worker.resume()
    run_jobs()
    assert [(job.id, job.status) for job in _builds()] == [(first, Job.DONE)]
    assert client.get("/api/store").get_json()["status"] == "built"
    held_worker.pause()
    answers = _race(founder, cookie)
    jobs = _builds()
    assert [job.id for job in jobs][0] == first and len(jobs) == 2 and jobs[1].status == Job.QUEUED
    assert {(a["status"], a["job_id"]) for a in answers} == {("building", jobs[1].id)}
    held_worker.resume()
    run_jobs()
    assert client.get("/api/store").get_json()["version"] == 2
