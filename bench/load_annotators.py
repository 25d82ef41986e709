"""The simulated annotators of ``bench/load.py``: threads, each with its own keep-alive
connection, looping next → submit as fast as the server answers, against this platform's API
(``Annotator``) or Label Studio's (``LabelStudioAnnotator``)."""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from urllib.parse import urlparse

REASON = "A1 names a concrete cost of the policy, A2 repeats the claim."  # 60 characters


class Annotator(threading.Thread):
    def __init__(self, url: str, token: str, slug: str, stop_at: float, seed: int, combined: bool,
                 think: float = 0.0) -> None:
        super().__init__(daemon=True)
        self.combined = combined
        # Mean seconds spent on an item between receiving it and answering (0: none): each pause
        # drawn uniformly from half to one and a half times it, so that annotators fall out of step.
        self.think = think
        self.url, self.token, self.slug, self.stop_at = urlparse(url), token, slug, stop_at
        self.rng = random.Random(seed)
        self.times: dict[str, list[float]] = {"next": [], "submit": []}
        self.errors: list[str] = []
        # Answers the server said it stored (201); a repeat of a stored answer (200) is not one.
        self.submits = 0

    def request(self, conn: http.client.HTTPConnection, kind: str, path: str, body: dict | None,
                method: str = "POST") -> tuple[int, dict] | None:
        data = json.dumps(body or {}).encode() if method == "POST" else None
        headers = {"Authorization": f"Token {self.token}"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        start = time.perf_counter()
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.errors.append(f"{kind}: {type(exc).__name__}")
            conn.close()
            return None
        self.times[kind].append(time.perf_counter() - start)
        if response.status >= 400:
            self.errors.append(f"{kind}: HTTP {response.status}")
            return None
        return response.status, json.loads(payload)

    def run(self) -> None:
        conn = http.client.HTTPConnection(self.url.hostname, self.url.port or 80, timeout=30)
        nxt = None
        while time.perf_counter() < self.stop_at:
            if nxt is None:
                got = self.request(conn, "next", f"/api/projects/{self.slug}/assignments/next/", None)
                if got is None:
                    continue
                nxt = got[1]
            if nxt.get("assignment") is None:
                break  # nothing left for this annotator
            if self.think:
                pause = self.rng.uniform(0.5 * self.think, 1.5 * self.think)
                if time.perf_counter() + pause >= self.stop_at:
                    break  # an answer the run would not wait for
                time.sleep(pause)
            answer = {"label": self.rng.choice(["a1", "a2", "equal"]), "standpoint": "none", "reason": REASON}
            path = f"/api/assignments/{nxt['assignment']['id']}/submit/" + ("?next=1" if self.combined else "")
            done = self.request(conn, "submit", path, answer)
            if done is not None and done[0] == 201:
                self.submits += 1
            # One request per item: the answer to a submit carries the next assignment.
            nxt = done[1].get("next") if (self.combined and done is not None) else None
        conn.close()


class LabelStudioAnnotator(Annotator):
    """The same annotator against Label Studio: its next task, then an annotation of it (the
    choice and the reason), as its editor does; the project is the slug's place."""

    def run(self) -> None:
        conn = http.client.HTTPConnection(self.url.hostname, self.url.port or 80, timeout=30)
        while time.perf_counter() < self.stop_at:
            task = self.request(conn, "next", f"/api/projects/{self.slug}/next/", None, method="GET")
            if task is None:
                if self.errors and self.errors[-1] == "next: HTTP 404":
                    self.errors.pop()  # no task left for this annotator
                    break
                continue
            label = self.rng.choice(["a1", "a2", "equal"])
            body = {"lead_time": 10.0, "result": [
                {"from_name": "label", "to_name": "arg1", "type": "choices", "value": {"choices": [label]}},
                {"from_name": "reason", "to_name": "arg1", "type": "textarea", "value": {"text": [REASON]}}]}
            done = self.request(conn, "submit", f"/api/tasks/{task[1]['id']}/annotations/", body)
            if done is not None and done[0] == 201:
                self.submits += 1
        conn.close()
