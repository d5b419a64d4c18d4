"""The Dramatiq broker of this process: Redis when REDIS_URL is set, in-process otherwise.

Importing this module sets the broker (jobs/__init__.py imports it before declaring any
actor; Dramatiq would otherwise quietly make a default one) and, in a worker process,
opens the database and the logs.

The functions at the end read and drive dramatiq's Redis layout directly (what the broker
holds, a process's broker heartbeat, the requeue of a lost worker's messages): they are
written against dramatiq 2.2.1, pinned in requirements.txt, and tests/test_reaper.py fails
if that layout changes.
"""
import weakref

import dramatiq
import redis
from dramatiq.brokers.redis import RedisBroker
from dramatiq.brokers.stub import StubBroker
from dramatiq.common import current_millis, dq_name
from dramatiq.errors import DecodeError

from config import configure_logging, settings_or_exit
from integrations.redis_client import bound_redis_waits, new_redis
from models.db import init_db
from workers.metrics import WorkerMetricsOnBoot
from workers.middleware import BeatOnBoot, DatabaseConnection

QUEUES = ("default",)
NAMESPACE = "ff-jobs"

# GET /api/health must answer within a second or two with Redis gone or hung (a probe
# gives up otherwise): it pings through a client of its own with a short timeout.
PING_TIMEOUT_SECONDS = 0.5
_pingers: "weakref.WeakKeyDictionary[RedisBroker, redis.Redis]" = weakref.WeakKeyDictionary()


# Lua over dramatiq's layout (below): ids are taken from the head of "<ns>:<queue>" (LPOP) and
# enqueued at its tail (RPUSH). TO_FRONT moves messages just put back at the tail to the head,
# in the order given; RESCUE_LOST does what dramatiq's maintenance does for the messages of
# lost workers, but puts them at the head.
TO_FRONT = """
for i = #ARGV, 1, -1 do
    if redis.call("lrem", KEYS[1], -1, ARGV[i]) > 0 then
        redis.call("lpush", KEYS[1], ARGV[i])
    end
end
"""
RESCUE_LOST = """
local namespace, queue_name, timestamp, heartbeat_timeout = KEYS[1], ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local queue_full_name = namespace .. ":" .. queue_name
local lost = redis.call("zrangebyscore", namespace .. ":__heartbeats__", 0, timestamp - heartbeat_timeout)
local moved = 0
for _, worker_id in ipairs(lost) do
    local acks = namespace .. ":__acks__." .. worker_id .. "." .. queue_name
    local message_ids = redis.call("smembers", acks)
    for i = #message_ids, 1, -1 do
        if redis.call("hexists", queue_full_name .. ".msgs", message_ids[i]) > 0 then
            redis.call("lpush", queue_full_name, message_ids[i])
            moved = moved + 1
        end
    end
    redis.call("del", acks)
end
return moved
"""


class JobBroker(RedisBroker):
    """dramatiq's Redis broker, except that a message going back to its queue because its
    worker stopped goes to the head of the queue, where it was taken from, and not behind
    a backlog: with 40 builds queued, a stopped worker's builds would otherwise wait for all
    of them. The reaper and a hand-back send at the head too (enqueue_first)."""

    def __init__(self, **options):
        super().__init__(**options)
        self.to_front = self.client.register_script(TO_FRONT)
        self.rescue_lost = self.client.register_script(RESCUE_LOST)

    def do_requeue(self, queue_name: str, *message_ids: str):
        # dramatiq's requeue (a stopping worker's prefetched messages) pushes at the tail.
        self._dispatch("requeue")(queue_name, *message_ids)
        self.to_front(keys=[f"{self.namespace}:{queue_name}"], args=list(message_ids))


def enqueue_first(of: dramatiq.Broker, message: dramatiq.Message) -> dramatiq.Message:
    """Enqueues `message` at the head of its queue: a job that a lost or stopped worker had
    started, or whose message was lost, is next rather than last. (In-process, where there
    is one worker and no backlog to jump, it is enqueued as usual.)"""
    sent = of.enqueue(message)
    if isinstance(of, JobBroker):
        of.to_front(keys=[f"{of.namespace}:{sent.queue_name}"], args=[sent.options["redis_message_id"]])
    return sent


def redis_broker(url: str, *, lost_seconds: float) -> JobBroker:
    """A Redis broker (no middleware yet) that takes a process whose broker heartbeat is
    `lost_seconds` old for lost: the reaper's maintenance gives what it took back to the
    queue. Its calls wait at most the process's bound (integrations/redis_client.py), so a
    Redis that stops answering (rather than refusing) fails a call instead of hanging a web
    request, the clock or a worker."""
    client = new_redis(url)
    made = JobBroker(client=client, namespace=NAMESPACE, heartbeat_timeout=int(lost_seconds * 1000))
    _pingers[made] = redis.Redis.from_url(url, socket_connect_timeout=PING_TIMEOUT_SECONDS,
                                          socket_timeout=PING_TIMEOUT_SECONDS)
    return made


def build_broker(settings) -> dramatiq.Broker:
    if settings.embedded:
        broker = StubBroker()
    else:
        broker = redis_broker(settings.redis_url, lost_seconds=settings.worker_lost_seconds)
    broker.add_middleware(DatabaseConnection(settings.worker_db_wait_seconds))
    broker.add_middleware(BeatOnBoot())
    broker.add_middleware(WorkerMetricsOnBoot(settings))
    for queue in QUEUES:
        broker.declare_queue(queue)
    return broker


settings = settings_or_exit()
configure_logging(settings)
init_db(settings.database_url, pool_size=settings.db_pool_size, pool_timeout=settings.db_pool_timeout,
        statement_timeout=settings.worker_db_wait_seconds)
# A worker's or the clock's bound on one Redis call; the web said its own shorter one first.
bound_redis_waits(settings.worker_redis_wait_seconds)
broker = build_broker(settings)
dramatiq.set_broker(broker)


def broker_status(of: dramatiq.Broker | None = None) -> dict:
    """The broker's backend and whether it answers (within PING_TIMEOUT_SECONDS, for a broker
    that redis_broker made)."""
    of = of or broker
    if isinstance(of, StubBroker):
        return {"backend": "embedded", "ok": True}
    try:
        _pingers.get(of, of.client).ping()
        return {"backend": "redis", "ok": True}
    except Exception:  # any failure to reach Redis reads as "not ok"
        return {"backend": "redis", "ok": False}


def queue_depths(of: dramatiq.Broker | None = None, queues=QUEUES) -> dict[str, dict[str, int]]:
    """Messages per queue of this process's broker (or `of`): ready (waiting for a worker),
    delayed (waiting for their time) and in_flight (taken by a worker, running or
    prefetched, not yet acknowledged)."""
    of = of or broker
    depths = {}
    for queue in queues:
        if isinstance(of, StubBroker):
            ready_queue, delay_queue = of.queues[queue], of.queues[dq_name(queue)]
            ready = ready_queue.qsize()
            # A message stays unfinished from its enqueue until a worker acknowledges it.
            depths[queue] = {"ready": ready, "delayed": delay_queue.unfinished_tasks,
                             "in_flight": max(0, ready_queue.unfinished_tasks - ready)}
        else:
            # dramatiq's Redis layout: "<ns>:<queue>" lists the ids not yet taken,
            # "<ns>:<queue>.msgs" holds every message not yet acknowledged, and the
            # delay queue "<queue>.DQ" the same for delayed ones. One MULTI reads all three.
            prefix = f"{of.namespace}:"
            with of.client.pipeline(transaction=True) as pipe:
                pipe.llen(prefix + queue)
                pipe.hlen(f"{prefix}{queue}.msgs")
                pipe.hlen(f"{prefix}{dq_name(queue)}.msgs")
                ready, stored, delayed = pipe.execute()
            depths[queue] = {"ready": ready, "delayed": delayed, "in_flight": max(0, stored - ready)}
    return depths


# dramatiq 2.2.1's Redis layout (brokers/redis/dispatch.lua), which the functions below use:
# every call of the dispatch script takes ARGV [command, timestamp, queue_name, broker_id,
# heartbeat_timeout, dead_message_ttl, do_maintenance, max_unpack_size, ...] and KEYS
# [namespace]; each call records the caller's broker id in "<ns>:__heartbeats__" (a zset
# scored by milliseconds). A message taken by a consumer sits in the set
# "<ns>:__acks__.<broker_id>.<queue>" until acknowledged, and stays in "<ns>:<queue>.msgs"
# (id -> encoded message) until then. A call with do_maintenance=1 puts back in the queue
# what brokers silent for heartbeat_timeout took from that queue; dramatiq itself does so
# on one call in a thousand, by chance. tests/test_reaper.py checks this layout.
def _dispatch(of: RedisBroker, command: str, queue_name: str, *, maintenance: bool, args=()):
    return of.scripts["dispatch"](keys=[of.namespace], args=[
        command, current_millis(), queue_name, of.broker_id, of.heartbeat_timeout, of.dead_message_ttl,
        int(maintenance), of._max_unpack_size(), *args])


def keep_broker_heartbeat(of: dramatiq.Broker) -> None:
    """Refreshes this process's broker heartbeat with one cheap call. A worker whose threads
    all run long jobs (its prefetch full) fetches nothing, and would otherwise be taken for
    lost after WORKER_LOST_SECONDS. Nothing to do in-process."""
    if isinstance(of, RedisBroker):
        _dispatch(of, "qsize", QUEUES[0], maintenance=False)


def requeue_lost_messages(of: dramatiq.Broker) -> list[str]:
    """Puts back at the head of their queues the messages taken by consumers whose broker
    heartbeat is older than the broker's heartbeat_timeout (a lost worker), on every
    declared queue and its delay queue, now rather than by chance; then lets dramatiq's
    maintenance forget the lost worker. Returns the queues looked at."""
    if not isinstance(of, JobBroker):
        return []  # in-process, a lost worker is a lost process: its messages went with it
    queues = sorted(of.get_declared_queues() | of.get_declared_delay_queues())
    for queue in queues:
        of.rescue_lost(keys=[of.namespace], args=[queue, current_millis(), of.heartbeat_timeout])
        _dispatch(of, "qsize", queue, maintenance=True)
    return queues


def held_job_ids(of: RedisBroker) -> set[str]:
    """The job ids (a job actor's args[0]) of every message the broker holds on its declared
    queues and their delay queues: waiting, delayed, or taken and not yet acknowledged.
    One MULTI reads every hash, so a message moving between a queue and its delay queue
    (a retry, a delay running out) is seen on one side or the other."""
    names = sorted(of.get_declared_queues() | of.get_declared_delay_queues())
    with of.client.pipeline(transaction=True) as pipe:
        for name in names:
            pipe.hvals(f"{of.namespace}:{name}.msgs")
        stored = pipe.execute()
    ids = set()
    for encoded in (data for values in stored for data in values):
        try:
            args = dramatiq.Message.decode(encoded).args
        except DecodeError:  # not a message of ours; nothing to match
            continue
        if args and isinstance(args[0], str):
            ids.add(args[0])
    return ids
