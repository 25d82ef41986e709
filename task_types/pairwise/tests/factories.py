"""Pairwise items and answers for tests: numbered pairs, a valid answer, an items file, and
topics and arguments of the corpus."""

import factory

from task_types.pairwise.models import Argument, Topic

REASON = "A1 gives a concrete example, A2 only repeats its claim."


def pair_payload(n: int, topic: str = "uniforms_good") -> dict:
    return {
        "topic": topic,
        "prompt": "Is the school uniform a good idea?",
        "stance": "Good",
        "arg1": {"id": f"a{n}x", "text": f"Uniforms save families money, argument {n}."},
        "arg2": {"id": f"a{n}y", "text": f"Uniforms reduce bullying over clothes, argument {n}."},
    }


def item_payload(n: int) -> dict:
    """What ``tests.factories.ItemFactory`` gives a pairwise project's n-th item."""
    return pair_payload(n)


def answer(label: str = "a1", standpoint: str = "none", reason: str = REASON) -> dict:
    return {"label": label, "standpoint": standpoint, "reason": reason}


def items_file(n: int, *, bad_line: int | None = None) -> bytes:
    """A CSV of ``n`` pairwise items; ``bad_line`` (a file line number) lacks its prompt."""
    lines = ["id,topic,prompt,stance,arg1_id,arg1_text,arg2_id,arg2_text"]
    for i in range(n):
        prompt = "" if bad_line == i + 2 else "Is the school uniform a good idea?"
        lines.append(f"p{i},uniforms,{prompt},Good,a{i},Uniforms save money number {i},b{i},They stop bullying {i}")
    return ("\n".join(lines) + "\n").encode()


class TopicFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Topic

    external_id = factory.Sequence(lambda n: f"topic-{n}")
    prompt = "Is the school uniform a good idea?"
    stance = "Good"


class ArgumentFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Argument

    external_id = factory.Sequence(lambda n: f"arg{n}")
    topic = factory.SubFactory(TopicFactory)
    text = factory.Sequence(lambda n: " ".join(["word"] * 12) + f" number {n}")
