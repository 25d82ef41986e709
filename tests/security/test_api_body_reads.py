"""No view reads a request body around the safe parser: every module a route of the URLconf
reaches (its view's module and, through imports, every project module that one uses) is searched
for code that reads a body itself (``request.body``, ``request.read()``, the request's stream,
``wsgi.input``) or decodes JSON itself (``json.loads``/``json.load``). Each such place must be in
ALLOWED with the reason it is safe; a new one fails this test until it goes through
``annotation.api.parsers.SafeJSONParser`` (``request.data``) or
``annotation.value_checks.json_document``, or is added here with its reason."""

from __future__ import annotations

import ast
import inspect
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import networkx as nx

from annotation.task_types import task_types
from tests.support.url_routes import Route, routes
from tests.test_layout import import_graph, modules

JSON_MODULES = {"json", "simplejson", "ujson", "orjson"}
JSON_READS = {"loads", "load"}
BODY_READS = {"body", "_body", "stream", "_stream", "read", "readline", "readlines", "raw_post_data"}
REQUEST = re.compile(r"(^|\.)_?request$")

# (module:function, what, why it is safe). One row per place; a place that reads twice is listed twice.
ALLOWED: list[tuple[str, str, str]] = [
    ("annotation.value_checks:json_document", "json.loads",
     "the rule itself: size limit, RecursionError caught, values checked; SafeJSONParser calls it"),
    ("recruiting.api.prolific.views:Webhook.post", "request.body",
     "a signed delivery: the HMAC is computed over the raw bytes, then the service reads them with json_document"),
    ("recruiting.api.prolific.views:Webhook.get_throttles", "request.body",
     "the raw bytes (at most 64 KB without a login, annotation.body_limits) go to the HMAC only, to count signed deliveries apart"),
    ("annotation.task_types.answers:AnswerData.document", "json.loads",
     "a form field of an answer, decoded inside a try that catches ValueError and RecursionError; the answer then passes field_problems"),
    ("annotation.importers:_records", "json.loads",
     "a JSONL line of an uploaded import file, decoded inside a try that catches ValueError and RecursionError (a row error)"),
    ("annotation.importers:_records", "json.loads",
     "an uploaded JSON import file, decoded inside a try that catches ValueError and RecursionError (a row error)"),
    ("annotation.gold_columns:clean_check_columns", "json.loads",
     "the gold_answer column of an import row, inside a try that catches ValueError and RecursionError"),
    ("analysis.methods.keypoint_eval.predictions:parse_predictions", "json.loads",
     "an uploaded predictions file, inside a try that catches decoding errors and RecursionError"),
    ("task_types.comprehension.corpus:_json_list", "json.loads",
     "a JSON-list column of an import row, inside a try that catches ValueError and RecursionError"),
    ("task_types.counter_speech.task:CounterSpeech.clean_item", "json.loads",
     "the candidates column of an import row, inside a try that catches ValueError and RecursionError"),
    ("task_types.counter_speech.task:CounterSpeech.clean_item", "json.loads",
     "the gold column of an import row, inside a try that catches ValueError and RecursionError"),
    ("task_types.key_point_sets.task:KeyPointSets.clean_item", "json.loads",
     "the sets column of an import row, inside a try that catches ValueError and RecursionError"),
    ("task_types.key_points.task:_key_points", "json.loads",
     "the key_points column of an import row, inside a try that catches ValueError and RecursionError"),
    ("task_types.key_points.task:_gold", "json.loads",
     "the gold column of an import row, inside a try that catches ValueError and RecursionError"),
    ("task_types.response_scoring.corpus:_references", "json.loads",
     "the references column of an import row, inside a try that catches ValueError and RecursionError"),
    ("task_types.comprehension.corpus:fixture_questions", "json.loads",
     "the demo's own fixture files, shipped with the code"),
    ("task_types.comprehension.corpus:fixture_questions", "json.loads",
     "the demo's own fixture files, shipped with the code"),
    ("task_types.comprehension.corpus:fixture_questions", "json.loads",
     "the demo's own fixture files, shipped with the code"),
    ("annotation.exports:_json_reader.read", "json.loads",
     "a JSON column the database stored after the rule of value_checks, read back for an export"),
    ("annotation.exports:_shown_order_text", "json.loads",
     "a shown order the platform drew and stored, read back for an export"),
    ("annotation.admin.paging:_estimate", "json.loads",
     "PostgreSQL's own EXPLAIN output"),
    ("annotation.admin.task_options:json_safe", "json.loads",
     "json.dumps of cleaned form values, read back as plain JSON values"),
    ("annotation.services.projects:project_change", "json.loads",
     "json.dumps of options a task type's form cleaned, read back as plain JSON values"),
    ("recruiting.providers.prolific.http:prolific_call", "json.loads",
     "the body of an error answer of Prolific's API, not a request to this server; garbage and "
     "too-deep bodies are caught (tests/security/test_marketplace_answers.py)"),
    ("recruiting.providers.prolific.http:prolific_call", "json.loads",
     "the body of an answer of Prolific's API, not a request to this server; garbage and too-deep "
     "bodies are a MarketplaceError (tests/security/test_marketplace_answers.py)"),
]


def _owners(route: Route) -> Iterator[object]:
    """The view function of a route, and the classes its view belongs to (a DRF or Django view,
    the ModelAdmin or AdminSite of an admin page), with their bases."""
    view = inspect.unwrap(route.callback)
    yield from (route.callback, view)
    for owner in (route.view_class, getattr(view, "__self__", None)):
        if owner is not None:
            yield from inspect.getmro(owner if isinstance(owner, type) else type(owner))


def _entry_modules() -> set[str]:
    """The modules that hold the views of the URLconf's routes (the admin's included), and the
    registered task types, which those views call through the registry to read an answer."""
    found = {getattr(owner, "__module__", None) for route in routes(skip=()) for owner in _owners(route)}
    found |= {cls.__module__ for task_type in task_types() for cls in inspect.getmro(type(task_type))}
    return {name for name in found if name}


def reached_modules() -> dict[str, Path]:
    """Every project module a route's view reaches: its own module and what that imports, on."""
    known, graph = modules(), import_graph()
    starts = {m for m in _entry_modules() if m in known}
    assert len(starts) >= 20, f"the walk found the views: {sorted(starts)}"
    reached = set(starts)
    for start in starts:
        reached |= nx.descendants(graph, start)
    return {name: known[name] for name in reached}


class _Reads(ast.NodeVisitor):
    def __init__(self, module: str) -> None:
        self.module, self.scope, self.found = module, [], []
        self.json_names: set[str] = set()
        self.loads_names: dict[str, str] = {}  # alias: loads or load

    def _here(self, what: str) -> None:
        self.found.append((f"{self.module}:{'.'.join(self.scope) or '<module>'}", what))

    def _scoped(self, node) -> None:
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name in JSON_MODULES:
                self.json_names.add(alias.asname or alias.name)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if node.module in JSON_MODULES and alias.name in JSON_READS:
                self.loads_names[alias.asname or alias.name] = alias.name
            if alias.name in JSON_MODULES:  # from rest_framework.utils import json
                self.json_names.add(alias.asname or alias.name)

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr in JSON_READS and isinstance(func.value, ast.Name)
                and func.value.id in self.json_names):
            self._here(f"json.{func.attr}")
        elif isinstance(func, ast.Name) and func.id in self.loads_names:
            self._here(f"json.{self.loads_names[func.id]}")
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in BODY_READS and REQUEST.search(ast.unparse(node.value)):
            self._here(f"{ast.unparse(node.value)}.{node.attr}")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if node.value == "wsgi.input":
            self._here("wsgi.input")


def body_reads() -> Counter:
    found: Counter = Counter()
    for name, path in sorted(reached_modules().items()):
        reads = _Reads(name)
        reads.visit(ast.parse(path.read_text(encoding="utf-8")))
        found.update(reads.found)
    return found


def test_every_body_read_of_a_routed_module_is_the_safe_parser_or_allowed():
    found = body_reads()
    allowed = Counter((where, what) for where, what, _ in ALLOWED)
    assert {k: v for k, v in (found - allowed).items()} == {}, "read a body or JSON through the safe parser, or allow it here with the reason"
    assert {k: v for k, v in (allowed - found).items()} == {}, "an allowed read is gone: drop its row"


def test_the_search_finds_each_way_of_reading_a_body():
    """What the search above would meet in a view added tomorrow."""
    source = '''
import json as j
from json import loads as decode
from rest_framework.utils import json

class Hook:
    def post(self, request):
        a = j.loads(request.body)
        b = decode(self.request.read())
        c = json.load(request._request.stream)
        d = request.META["wsgi.input"]
        return request.data  # the safe parser: not a read of its own
'''
    reads = _Reads("views.hook")
    reads.visit(ast.parse(source))
    assert sorted(what for _, what in reads.found) == sorted([
        "json.loads", "request.body", "json.loads", "self.request.read", "json.load", "request._request.stream",
        "wsgi.input"])
    assert {where for where, _ in reads.found} == {"views.hook:Hook.post"}
