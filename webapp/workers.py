"""Recognition on separate workers: with ``REDIS_URL`` (``MELDCAM_REDIS_URL``) a web node puts
each photo on a Redis queue (RQ) and waits for a ``meldcam worker`` to read it
(``vision.jobs.recognise_job``), so recognition scales apart from the web nodes and can move to
a GPU machine. Without it, photos are read in the web process (the embedded default).

Every way this can fail is a 503 with a message, never a 500: no worker running, the shared
queue over ``RECOGNISE_QUEUE_LIMIT`` jobs, no answer within ``RECOGNISE_WAIT_S``, Redis down, a
job that crashed. A node keeps up to ``RECOGNISE_IN_FLIGHT`` photos at the workers at once
(``webapp.photos``' gate). Redis carries the photos' bytes and pickled jobs: keep it private to
the nodes and workers.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any

from flask import Flask

from vision.jobs import QUEUE_NAME, recognise_job
from webapp.i18n import lazy_gettext

log = logging.getLogger(__name__)

EXTENSION_KEY = "meldcam_recognise_queue"  # settings REDIS_URL, RECOGNISE_*: webapp.settings


class QueueUnavailable(RuntimeError):
    """No worker can take the photo now (503 with ``Retry-After``)."""

    def __init__(self, message: Any, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass
class RecognitionQueue:
    queue: Any  # rq.Queue
    in_flight: int
    limit: int
    wait_s: float
    job_timeout_s: int
    retry_after: int

    def read(
        self, kind: str, data: bytes, set_name: str | None, untold: str | None = None
    ) -> dict[str, Any]:
        """A worker's answer for the photo (``vision.jobs.recognise_job``), or QueueUnavailable."""
        from redis.exceptions import RedisError
        from rq import Worker
        from rq.results import Result

        wait = max(1, math.ceil(self.wait_s))
        try:
            if Worker.count(queue=self.queue) == 0:
                raise QueueUnavailable(
                    lazy_gettext(
                        "no photo reader is running: enter the pieces by tapping, "
                        "or try again later"
                    ),
                    self.retry_after,
                )
            if self.queue.count >= self.limit:
                raise QueueUnavailable(
                    lazy_gettext(
                        "the photo readers are busy with other photos: try again in a few seconds"
                    ),
                    self.retry_after,
                )
            job = self.queue.enqueue(
                recognise_job,
                kind,
                data,
                set_name,
                untold,
                job_timeout=self.job_timeout_s,
                ttl=wait,  # not started by then: dropped, the player was answered 503
                result_ttl=60,
                failure_ttl=600,
            )
            result = job.latest_result(timeout=wait)
        except RedisError as error:
            log.error("recognition queue unreachable: %s", error)
            raise QueueUnavailable(
                lazy_gettext(
                    "the photo readers cannot be reached: enter the pieces by tapping, or try again"
                ),
                self.retry_after,
            ) from None
        if result is None:
            raise QueueUnavailable(
                lazy_gettext(
                    "the photo readers did not answer in time: try again in a few seconds"
                ),
                self.retry_after,
            )
        if result.type != Result.Type.SUCCESSFUL:
            log.error("recognition job %s failed: %s", job.id, result.exc_string)
            raise QueueUnavailable(
                lazy_gettext("the photo reader failed on this photo: enter the pieces by tapping"),
                self.retry_after,
            )
        return dict(result.return_value)


def init_queue(app: Flask) -> RecognitionQueue | None:
    """The app's recognition queue when ``REDIS_URL`` is set (no connection is made yet)."""
    url = app.config["REDIS_URL"]
    if not url:
        return None
    from redis import Redis
    from rq import Queue

    wait_s = float(app.config["RECOGNISE_WAIT_S"])
    connection = Redis.from_url(url, socket_connect_timeout=5, socket_timeout=wait_s + 10)
    queue = RecognitionQueue(
        Queue(QUEUE_NAME, connection=connection),
        in_flight=int(app.config["RECOGNISE_IN_FLIGHT"]),
        limit=int(app.config["RECOGNISE_QUEUE_LIMIT"]),
        wait_s=wait_s,
        job_timeout_s=int(app.config["RECOGNISE_JOB_TIMEOUT_S"]),
        retry_after=int(app.config["RECOGNISE_RETRY_AFTER"]),
    )
    app.extensions[EXTENSION_KEY] = queue
    return queue
