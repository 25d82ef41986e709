"""Background jobs: Celery's settings and the job lifecycle's timings and limits."""

from config.settings.base import VAR_DIR
from config.settings.env import env_float, env_int, env_str
from config.settings.marketplaces import PROLIFIC_POLL_TICK_SECONDS

# Job state lives in the database (and live progress in the cache); Celery's own results are
# never read.
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_DEFAULT_QUEUE = env_str("CELERY_QUEUE", "argcrowd")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A web request that queues a job must not hang when the broker is down: it fails fast and the
# job is marked failed with the reason.
CELERY_BROKER_CONNECTION_TIMEOUT = 3
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.5}
CELERY_BEAT_SCHEDULE = {
    "expire-leases": {"task": "annotation.expire_leases", "schedule": 60.0},
    "reap-dead-jobs": {"task": "annotation.reap_dead_jobs", "schedule": 15.0},
    # Queues a sync of each linked Prolific study whose poll interval has passed.
    "prolific-poll": {"task": "annotation.prolific_poll", "schedule": float(PROLIFIC_POLL_TICK_SECONDS)},
}
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# A running job refreshes its heartbeat this often; one whose heartbeat is older than
# JOB_DEAD_SECONDS is taken for dead (its worker was killed) and can be restarted at once.
JOB_HEARTBEAT_SECONDS = env_float("JOB_HEARTBEAT_SECONDS", 5.0)
JOB_DEAD_SECONDS = env_float("JOB_DEAD_SECONDS", 45.0)
# Attempts a job gets (each claim by a worker counts, a redelivered message's too); once they
# are used up the job fails with the last attempt's error. A restart gives it as many again.
JOB_MAX_ATTEMPTS = env_int("JOB_MAX_ATTEMPTS", 3, minimum=1)
# A queued job that no worker has taken for this long while no other job runs lost its message:
# the scheduler sends it again, up to JOB_MAX_ATTEMPTS times, then fails it with the reason.
JOB_QUEUED_SECONDS = env_float("JOB_QUEUED_SECONDS", 300.0)
# Staff pages count a project's workers and answers per hour as they render up to this many
# assignments; above it they show the tally a background job counts, at most this many seconds
# old (annotation.selectors.tallies).
STAFF_LIVE_ASSIGNMENTS = env_int("STAFF_LIVE_ASSIGNMENTS", 250_000)
STAFF_TALLY_SECONDS = env_float("STAFF_TALLY_SECONDS", 60.0)
# MACE in analysis runs refuses (with advice) data that would need more memory than this.
MACE_MAX_MEMORY_BYTES = env_int("MACE_MAX_MEMORY_MB", 4096) * 2**20
# Uploads up to this size are imported within the request; larger ones become a job.
IMPORT_INLINE_MAX_BYTES = env_int("IMPORT_INLINE_MAX_BYTES", 64 * 1024)
