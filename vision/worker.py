"""``meldcam worker``: a recognition worker. It takes photos from the Redis queue that web nodes
with ``MELDCAM_REDIS_URL`` fill (``webapp.workers``) and reads them with the shipped models
(``vision.jobs.recognise_job``). Start as many as there are cores to spare, on any machine that
reaches Redis, a GPU one too; each loads the models once and keeps them. Imports neither Flask
nor the web app.
"""

from __future__ import annotations

import argparse
import os
import sys


def _work(args: argparse.Namespace) -> int:
    from redis import Redis
    from redis.exceptions import RedisError
    from rq import Queue, SimpleWorker

    from vision.api import get_recogniser
    from vision.errors import RecogniserUnavailable
    from vision.jobs import QUEUE_NAME

    url = args.redis or os.environ.get("MELDCAM_REDIS_URL")
    if not url:
        print("meldcam: worker needs --redis URL or MELDCAM_REDIS_URL", file=sys.stderr)
        return 2
    for kind in args.warm:  # before taking jobs, so the first photo does not wait for a model
        try:
            get_recogniser(kind)
        except RecogniserUnavailable as error:
            print(f"meldcam: worker: {kind} reader not loaded: {error}", file=sys.stderr)
    connection = Redis.from_url(url)
    # SimpleWorker reads in this process, so the models loaded above serve every job (RQ's
    # default Worker forks per job and would load them again each time)
    worker = SimpleWorker([Queue(QUEUE_NAME, connection=connection)], connection=connection)
    print(f"meldcam: worker {worker.name} reading photos from {QUEUE_NAME}", flush=True)
    try:
        worker.work(burst=args.burst, logging_level="WARNING")
    except RedisError as error:
        print(f"meldcam: worker: Redis unreachable: {error}", file=sys.stderr)
        return 2
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    worker = subparsers.add_parser(
        "worker",
        help="read photos from the Redis queue for the web nodes (docs/deploy.md)",
    )
    worker.add_argument("--redis", metavar="URL", help="default: MELDCAM_REDIS_URL")
    worker.add_argument(
        "--warm",
        nargs="*",
        default=["tiles"],
        metavar="KIND",
        help="models to load before the first job (default: tiles)",
    )
    worker.add_argument("--burst", action="store_true", help="stop when the queue is empty")
    worker.set_defaults(handler=_work)
