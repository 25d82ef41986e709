"""``kill -9`` of a job worker while it stores each kind of job's outcome: the job's own writes,
made but not committed, vanish with it; the job ends failed with the reason (or is resumed by
another worker), never stays running; and once restarted it finishes and writes everything once.

The kinds of job come from the job registry (every ``Job`` model, and each model's own kinds);
a kind this file cannot start fails ``test_every_kind_of_job_is_probed``."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings

from analysis.models import AnalysisRun
from analysis.services import analysis_run_create
from annotation.models import Annotation, ImportJob, Item, MediaFile
from jobs.healing import jobs_heal
from jobs.models import Job, JobStatus
from jobs.selectors import job_models
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.support.runtime import ROOT, is_postgres

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
BEATS = {"JOB_HEARTBEAT_SECONDS": "0.3", "JOB_DEAD_SECONDS": "3"}


@dataclass(frozen=True)
class Probe:
    """How to start one kind of job, what it writes, and how much a finished one wrote."""

    model: type[Job]
    kind: str
    start: Callable[[], Job]
    written: Callable[[Job], Any]  # what the job wrote (0 / None before it finished)
    done: Callable[[Job, Any], bool]  # whether that is the whole of a finished job's writes


ITEMS_CSV = "id,topic,prompt,stance,arg1_id,arg1_text,arg2_id,arg2_text\n" + "".join(
    f"k{n},t,Uniforms?,good,a{n},first text {n},b{n},second text {n}\n" for n in range(30))


def _items_job() -> Job:
    from annotation.services.imports import import_upload

    project = ProjectFactory()
    with override_settings(IMPORT_INLINE_MAX_BYTES=10):
        return import_upload(project=project, kind="items", upload=SimpleUploadedFile("items.csv", ITEMS_CSV.encode()),
                             options={}).job


CROWD_TSV = "topic\tpair_id\targ1\targ2\tworker\tlabel\treason\tsubmitted_at\n" + "".join(
    f"t\tx1_x2\tx1\tx2\tW{n}\ta1\ta reason of worker {n}\t2016-01-31 16:53:19\n" for n in range(12))


def _crowd_job() -> Job:
    from annotation.services.imports import import_upload
    from task_types.pairwise.arguments_file import parse_arguments
    from task_types.pairwise.corpus import arguments_import

    arguments_import(rows=parse_arguments(b"arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n"
                                          b"x1\tt\tU?\tGood\ta\tone\nx2\tt\tU?\tGood\tb\ttwo\n"))
    project = ProjectFactory()
    with override_settings(IMPORT_INLINE_MAX_BYTES=10):
        return import_upload(project=project, kind="crowd", upload=SimpleUploadedFile("r.tsv", CROWD_TSV.encode()),
                             options={}).job


def _files_job() -> Job:
    """A task type's own files (the key-point corpus in its published layout), as the admin's
    *Import key-point data* page queues them."""
    from annotation.services.imports import files_import_upload
    from task_types.key_points.tests.test_corpus import ARGUMENTS, KEY_POINTS, LABELS

    project = ProjectFactory(task_type="key_points")
    files = {name: SimpleUploadedFile(f"{name}.csv", text.encode())
             for name, text in (("arguments", ARGUMENTS), ("key_points", KEY_POINTS), ("labels", LABELS))}
    return files_import_upload(project=project, name="corpus", files=files, options={})


def _media_job() -> Job:
    """A zip of audio files with its manifest, as *Upload audio* and the media API queue it."""
    from annotation.services.media.jobs import media_upload_import
    from tests.support import audio

    clips = audio.zip_of({"a.wav": audio.wav(), "b.mp3": audio.mp3_frames()},
                         manifest="key,file\nclip_a.wav,a.wav\nclip_b.mp3,b.mp3\n")
    job = media_upload_import(project=ProjectFactory(), upload=SimpleUploadedFile("clips.zip", clips)).job
    assert job is not None
    return job


def _analysis_job() -> Job:
    from annotation.services import annotation_submit, assignment_next
    from task_types.pairwise.tests.factories import answer

    project = ProjectFactory(redundancy=2)
    ItemFactory.create_batch(3, project=project)
    for worker in UserFactory.create_batch(2):
        while (held := assignment_next(project=project, worker=worker).assignment) is not None:
            annotation_submit(assignment=held, worker=worker, data=answer("a1"), client={"elapsed_ms": 3000})
    return analysis_run_create(project=project, kind="agreement", params={"n_boot": 20})


def _evaluation_job() -> Job:
    from task_types.key_points.corpus import read_corpus
    from task_types.key_points.evaluation import evaluation_upload
    from task_types.key_points.services import corpus_import
    from task_types.key_points.tests.test_corpus import ARGUMENTS, KEY_POINTS, LABELS

    project = ProjectFactory(task_type="key_points")
    corpus_import(project=project, corpus=read_corpus(ARGUMENTS, KEY_POINTS, LABELS))
    data = json.dumps({"a1": {"k1": 0.9, "k2": 0.2}, "a2": {"k3": 0.7}, "a3": {"k2": 0.4, "k1": 0.1}}).encode()
    import io

    return evaluation_upload(project=project, upload=io.BytesIO(data), filename="p.json", size=len(data), inline=False)


def _result(job: Job) -> Any:
    return type(job)._default_manager.get(pk=job.pk).result


PROBES = [
    Probe(ImportJob, ImportJob.Kind.ITEMS, _items_job,
          lambda job: Item.objects.filter(project_id=job.project_id).count(), lambda job, n: n == 30),
    Probe(ImportJob, ImportJob.Kind.CROWD, _crowd_job,
          lambda job: Annotation.objects.filter(assignment__project_id=job.project_id).count(), lambda job, n: n == 12),
    Probe(ImportJob, ImportJob.Kind.FILES, _files_job,
          lambda job: Item.objects.filter(project_id=job.project_id).count(), lambda job, n: n == 3),
    Probe(ImportJob, ImportJob.Kind.MEDIA, _media_job,
          lambda job: MediaFile.objects.filter(project_id=job.project_id).count(), lambda job, n: n == 2),
    Probe(AnalysisRun, "agreement", _analysis_job, _result, lambda job, r: r["figures"]["n_workers"] == 2),
]
with contextlib.suppress(ImportError):  # the key-points type may not be installed
    from task_types.key_points.models import PredictionEvaluation

    PROBES.append(Probe(PredictionEvaluation, "", _evaluation_job, _result, lambda job, r: "strict" in r))


def kinds_of(model: type[Job]) -> set[str]:
    """A model's own kinds of job: the choices of its ``kind`` field, when they are fixed."""
    field = next((f for f in model._meta.fields if f.name == "kind"), None)
    return {str(v) for v, _ in field.choices} if field is not None and field.choices else {""}


# Jobs that talk to a marketplace commit each step on purpose (a bulk payment's id before the pay
# call, each submission as it is applied), so "nothing half-written" is not their guarantee: a
# kill -9 between the steps is settled once, and their own tests prove it by killing the process.
PROBED_ELSEWHERE = {
    ("BonusPayJob", "pay"): "tests/recruiting/services/bonus_payments/test_payment_crashes.py",
    ("BonusPayJob", "reconcile"): "tests/recruiting/services/bonus_payments/test_payment_crashes.py",
    ("ProlificSyncJob", ""): "tests/recruiting/services/prolific/test_sync_crash.py",
}


def test_every_kind_of_job_is_probed():
    probed = {(p.model, p.kind or "") for p in PROBES}
    for (name, kind), test_file in PROBED_ELSEWHERE.items():
        assert "SIGKILL" in (ROOT / test_file).read_text(), test_file
        probed |= {(m, kind) for m in job_models() if m.__name__ == name}
    for model in job_models():
        # An analysis run's kind is a report; the report's code, not the job's lifecycle, differs.
        wanted = {"agreement"} if model is AnalysisRun else kinds_of(model)
        missing = {k for k in wanted if (model, k) not in probed}
        assert not missing, f"{model._meta.label} kinds {sorted(missing)} have no kill -9 probe here"


def start_workers(worker_processes, n: int, queue: str, extra_env: dict[str, str]) -> list[subprocess.Popen]:
    """n solo workers on ``queue``, started together (each takes one job at a time)."""
    procs, logs = [], []
    for i in range(n):
        log = worker_processes.log_dir / f"probe-{queue}-{i}.log"
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue, "--pool", "solo",
                   "--concurrency", "1", "--prefetch-multiplier", "1", "--loglevel", "INFO", "--without-gossip",
                   "--without-mingle", "--include", "tests.support.probe_stall", "-n", f"probe{i}-{uuid.uuid4().hex[:6]}@%h"]
        with log.open("w") as out:
            procs.append(subprocess.Popen(command, cwd=ROOT, env={**worker_processes.env, **BEATS, **extra_env},
                                          stdout=out, stderr=subprocess.STDOUT))
        logs.append(log)
    worker_processes.started.extend(procs)
    deadline = time.monotonic() + 90
    while not all(" ready." in log.read_text() for log in logs):
        assert time.monotonic() < deadline, "the workers did not start within 90 s"
        assert all(p.poll() is None for p in procs), "a worker exited; see " + str(worker_processes.log_dir)
        time.sleep(0.2)
    return procs


@override_settings(**{k: float(v) for k, v in BEATS.items()})
def test_kill_9_during_each_kind_of_job(worker_processes, celery_worker_process, tmp_path):
    from config.celery import app

    queue = f"{worker_processes.queue}-kill-{uuid.uuid4().hex[:8]}"
    before = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    try:
        stall = tmp_path / "stall"
        stall.mkdir()
        # On PostgreSQL every kind at once, each on a worker of its own; SQLite has one writer at
        # a time, and a held worker holds it, so there the kinds go one after the other.
        batches = [PROBES] if is_postgres() else [[p] for p in PROBES]
        jobs = []
        for batch in batches:
            started = [probe.start() for probe in batch]
            jobs += started
            doomed = start_workers(worker_processes, len(batch), queue, {"PROBE_STALL_DIR": str(stall)})
            names = {f"{job._meta.label_lower}-{job.pk}" for job in started}
            deadline = time.monotonic() + 90
            while not names <= {p.name for p in stall.iterdir()}:
                assert time.monotonic() < deadline, f"held {sorted(p.name for p in stall.iterdir())} of {sorted(names)}"
                time.sleep(0.1)
            # Each job has made its writes inside the transaction that would store its outcome.
            for proc in doomed:
                os.kill(proc.pid, signal.SIGKILL)
            for proc in doomed:
                proc.wait(timeout=10)

        for probe, job in zip(PROBES, jobs, strict=True):
            assert not probe.written(job), f"{probe.model.__name__} {probe.kind}: half-written after kill -9"
        # What the scheduler does every 15 s: a job whose worker stopped beating ends failed, with
        # the reason, or is back in the queue for another worker; none stays running.
        killed = time.monotonic()
        while True:
            jobs_heal()
            states = [type(j)._default_manager.get(pk=j.pk) for j in jobs]
            if all(s.status != JobStatus.RUNNING for s in states):
                break
            assert time.monotonic() - killed < 30, [(str(s), s.status) for s in states]
            time.sleep(0.3)
        for probe, state in zip(PROBES, states, strict=True):
            assert state.status in (JobStatus.FAILED, JobStatus.QUEUED), (probe.kind, state.status)
            if state.status == JobStatus.FAILED:
                assert state.error.strip(), f"{probe.model.__name__} {probe.kind} failed without a reason"
            assert not probe.written(state)

        # Restarted, each goes through on a healthy worker (the session's) and writes all of its
        # outcome once; a job left queued goes to a new worker of the killed workers' queue.
        from jobs.services import job_restart
        from jobs.tasks import task_send

        app.conf.task_default_queue = before

        tasks = {ImportJob: "annotation.import", AnalysisRun: "analysis.run"}
        for state in states:
            name = tasks.get(type(state), "key_points.evaluate")
            if state.status == JobStatus.FAILED:
                job_restart(job=state, send=lambda pk, name=name: task_send(name, pk))
        if any(state.status == JobStatus.QUEUED for state in states):
            start_workers(worker_processes, 1, queue, {})  # for a job left queued on the killed workers' queue
        deadline = time.monotonic() + 90
        for probe, job in zip(PROBES, jobs, strict=True):
            while (state := type(job)._default_manager.get(pk=job.pk)).status not in (JobStatus.DONE, JobStatus.FAILED):
                assert time.monotonic() < deadline, f"{probe.model.__name__} {probe.kind} still {state.status}"
                time.sleep(0.2)
            assert state.status == JobStatus.DONE, (probe.kind, state.error)
            assert probe.done(state, probe.written(state)), f"{probe.model.__name__} {probe.kind}: {probe.written(state)}"
    finally:
        app.conf.task_default_queue = before
