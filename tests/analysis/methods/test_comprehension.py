"""Listening-comprehension figures over binary (speech, argument title) questions."""

import json
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from analysis.methods.comprehension import comprehension_figures, mode_comparison
from analysis.methods.comprehension_votes import question_votes

EXACT = 1e-9

# Hand example: three speeches of one motion; s1 and s3 support it (titles a, b, c), s2 opposes
# it (titles d, e). Four workers answer every question; columns are the eight questions
#      (s1,a) (s1,b) (s1,c) | (s2,d) (s2,e) | (s3,a) (s3,b) (s3,c)
HAND_QUESTIONS = [
    ("s1", "a"),
    ("s1", "b"),
    ("s1", "c"),
    ("s2", "d"),
    ("s2", "e"),
    ("s3", "a"),
    ("s3", "b"),
    ("s3", "c"),
]
HAND_LABELS = {
    "w1": [1, 0, 0, 1, 0, 0, 1, 0],
    "w2": [1, 0, 1, 1, 0, 0, 0, 0],
    "w3": [1, 1, 0, 0, 0, 0, 1, 0],
    "w4": [1, 0, 0, 1, 1, 0, 0, 1],
}
HAND_STANCE = pd.Series({"s1": "pro", "s2": "con", "s3": "PRO"})  # case does not matter


def hand_frame() -> pd.DataFrame:
    rows = [
        (item, option, worker, labels[q])
        for worker, labels in HAND_LABELS.items()
        for q, (item, option) in enumerate(HAND_QUESTIONS)
    ]
    return pd.DataFrame(rows, columns=["item", "option", "worker", "label"])


def test_question_votes_of_the_hand_example():
    votes = question_votes(hand_frame())
    # Positive votes per question, m = 4: 4, 1, 1, 3, 1, 0, 2, 1.
    assert votes["votes"].tolist() == [4, 1, 1, 3, 1, 0, 2, 1]
    assert votes["annotators"].tolist() == [4] * 8
    assert votes["share"].tolist() == pytest.approx([1, 0.25, 0.25, 0.75, 0.25, 0, 0.5, 0.25])
    # Majority needs votes > m/2 = 2: (s1,a) and (s2,d). The 2-2 tie on (s3,b) is negative.
    assert votes["majority"].tolist() == [1, 0, 0, 1, 0, 0, 0, 0]
    # High confidence: max(votes, 4 - votes) >= 3 fails only on the tie (s3,b).
    assert votes["high_confidence"].tolist() == [True] * 6 + [False, True]


def test_every_figure_of_the_hand_example():
    figures = comprehension_figures(hand_frame(), HAND_STANCE, n_boot=0)
    assert (figures.n_speeches, figures.n_questions, figures.n_titles) == (3, 8, 5)
    assert (figures.n_workers, figures.n_annotations) == (4, 32)
    # Positive by majority: 2 of 8 questions.
    assert figures.positive_share.value == pytest.approx(2 / 8, abs=EXACT)
    # Titles per speech: (3 + 2 + 3) / 3.
    assert figures.titles_per_speech.value == pytest.approx(8 / 3, abs=EXACT)
    # Speeches with a pair positive by majority: s1 (a) and s2 (d), not s3.
    assert figures.speeches_with_majority.value == pytest.approx(2 / 3, abs=EXACT)
    # Speeches where some annotator ticked a title (the paper's count): all three.
    assert figures.speeches_with_positive.value == pytest.approx(1.0, abs=EXACT)
    # Titles a..e; labelled positive (by majority) somewhere, the paper's count: a (in s1, though
    # not in s3) and d.
    assert figures.titles_labelled_positive_once.value == pytest.approx(2 / 5, abs=EXACT)
    # Ticked by at least one annotator somewhere: a, b (w3), c (w2), d, e (w4).
    assert figures.titles_ticked_once.value == pytest.approx(5 / 5, abs=EXACT)
    assert figures.titles_ticked_once.n == figures.titles_labelled_positive_once.n == 5
    # Titles are resampled by group: s1 and s3 share a, b, c; s2 has d, e. Two groups.
    assert figures.titles_ticked_once.unit == "title group"
    assert figures.positive_share.unit == "speech"
    # High confidence: 7 of 8 questions (all but the tie).
    assert figures.high_confidence_share.value == pytest.approx(7 / 8, abs=EXACT)
    assert figures.high_confidence_share.n == 8
    # Figure 1, m = 4: 0 votes (s3,a); 1 vote (s1,b) (s1,c) (s2,e) (s3,c); 2 votes (s3,b);
    # 3 votes (s2,d); 4 votes (s1,a).
    assert figures.positive_votes.counts == {4: (1, 4, 1, 1, 1)}
    assert figures.to_dict()["positive_votes"]["shares"] == {
        "4": [1 / 8, 4 / 8, 1 / 8, 1 / 8, 1 / 8]
    }

    # Cohen's kappa over the 8 questions. w1, w2, w3 tick 3 of 8, w4 ticks 4 of 8, so
    # p_e = (3/8)² + (5/8)² = 17/32 among w1..w3 and (3/8)(4/8) + (5/8)(4/8) = 1/2 with w4.
    #   w1-w2 agree 6/8: (24/32 - 17/32) / (15/32) = 7/15   w1-w4 5/8: (5/8 - 1/2) / (1/2) = 1/4
    #   w1-w3 agree 6/8: 7/15                               w2-w4 5/8: 1/4
    #   w2-w3 agree 4/8: (16/32 - 17/32) / (15/32) = -1/15  w3-w4 3/8: -1/4
    # mean = (7/15 + 7/15 - 1/15 + 1/4 + 1/4 - 1/4) / 6 = 67/360
    assert figures.cohen_kappa.value == pytest.approx(67 / 360, abs=EXACT)
    assert figures.cohen_kappa.n_pairs == 6
    # Supporting speeches s1, s3 (6 questions): w1 = 100010, w2 = 101000, w3 = 110010, w4 = 100001.
    #   w1-w2 4/6, p_e = 5/9: 1/4     w1-w3 5/6, p_e = 1/2: 2/3     w1-w4 4/6, p_e = 5/9: 1/4
    #   w2-w3 3/6, p_e = 1/2: 0       w2-w4 4/6, p_e = 5/9: 1/4     w3-w4 3/6, p_e = 1/2: 0
    # mean = (1/4 + 2/3 + 1/4 + 0 + 1/4 + 0) / 6 = 17/72
    assert figures.cohen_kappa_pro.value == pytest.approx(17 / 72, abs=EXACT)
    # Opposing speech s2 (2 questions): w1 = w2 = 10, w3 = 00, w4 = 11.
    #   w1-w2 agree fully, p_e = 1/2: 1; every other pair agrees on 1 of 2 with p_e = 1/2, or
    #   (w3-w4) on none with p_e = 0: 0.  mean = 1/6
    assert figures.cohen_kappa_con.value == pytest.approx(1 / 6, abs=EXACT)
    # Fleiss: P_i = [v(v-1) + (4-v)(3-v)] / 12 is 1 for v in {0, 4}, 1/2 for v in {1, 3}, 1/3
    # for v = 2, so P̄ = (1 + 1/2·5 + 1 + 1/3) / 8 = 29/48; p_1 = 13/32, P_e = (13² + 19²)/32²
    # = 265/512; kappa = (29/48 - 265/512) / (1 - 265/512) = (133/1536) / (741/1536) = 7/39.
    assert figures.fleiss_kappa.value == pytest.approx(7 / 39, abs=EXACT)
    assert figures.fleiss_kappa.p_observed == pytest.approx(29 / 48, abs=EXACT)
    assert figures.fleiss_kappa.fixed_ratings


def test_high_confidence_share_leaves_out_questions_where_it_holds_trivially():
    # With m = 3 binary answers at least 2 always agree; only m >= 4 counts by default.
    frame = hand_frame()
    three = frame[frame["worker"] != "w4"]
    figures = comprehension_figures(three, HAND_STANCE, n_boot=0)
    assert figures.high_confidence_share.n == 0
    assert figures.to_dict()["high_confidence_share"]["value"] is None
    every = comprehension_figures(three, HAND_STANCE, n_boot=0, high_confidence_min_annotators=3)
    assert every.high_confidence_share.value == 1.0
    assert question_votes(three)["high_confidence"].all()


def test_figure_one_counts_each_number_of_annotators_separately():
    frame = hand_frame()
    # w4 skips s2: its questions have m = 3 (votes d: 2, e: 0); the others keep m = 4.
    frame = frame[~((frame["worker"] == "w4") & (frame["item"] == "s2"))]
    figures = comprehension_figures(frame, HAND_STANCE, n_boot=0)
    assert figures.positive_votes.counts == {3: (1, 0, 1, 0), 4: (1, 3, 1, 0, 1)}
    shares = figures.to_dict()["positive_votes"]["shares"]
    assert shares == {"3": [0.5, 0, 0.5, 0], "4": [1 / 6, 3 / 6, 1 / 6, 0, 1 / 6]}
    assert not figures.fleiss_kappa.fixed_ratings


def random_study(seed, *, n_speeches=24, n_workers=8, m=(3, 6)) -> tuple[pd.DataFrame, pd.Series]:
    """Speeches with 2-5 titles each, answered by a random subset of workers of varying care."""
    rng = np.random.default_rng(seed)
    care = rng.uniform(0.55, 0.95, n_workers)
    rows, stance = [], {}
    for speech in range(n_speeches):
        item = f"s{speech:02d}"
        stance[item] = "pro" if speech % 2 else "con"
        titles = rng.choice(12, size=rng.integers(2, 6), replace=False)
        truth = rng.random(titles.size) < 0.4
        for worker in rng.choice(n_workers, size=rng.integers(m[0], m[1] + 1), replace=False):
            for title, argued in zip(titles, truth, strict=True):
                label = argued if rng.random() < care[worker] else not argued
                rows.append((item, f"t{title:02d}", f"w{worker}", int(label)))
    frame = pd.DataFrame(rows, columns=["item", "option", "worker", "label"])
    return frame, pd.Series(stance)


def mean_pairwise_kappa(frame: pd.DataFrame, min_overlap: int) -> float:
    answers = frame.set_index(["item", "option", "worker"])["label"].unstack("worker")
    kappas = []
    for a, b in combinations(answers.columns, 2):
        shared = answers[[a, b]].dropna()
        if len(shared) < min_overlap or len(set(shared[a]) | set(shared[b])) < 2:
            continue  # too few shared questions, or kappa 0/0
        kappas.append(cohen_kappa_score(shared[a], shared[b], labels=[0, 1]))
    return float(np.mean(kappas))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kappas_match_scikit_learn_per_pair(seed):
    frame, stance = random_study(seed)
    figures = comprehension_figures(frame, stance, min_overlap=5, n_boot=0)
    pro = frame["item"].map(stance) == "pro"
    assert figures.cohen_kappa.value == pytest.approx(mean_pairwise_kappa(frame, 5), abs=1e-12)
    assert figures.cohen_kappa_pro.value == pytest.approx(
        mean_pairwise_kappa(frame[pro], 5), abs=1e-12
    )
    assert figures.cohen_kappa_con.value == pytest.approx(
        mean_pairwise_kappa(frame[~pro], 5), abs=1e-12
    )


@pytest.mark.parametrize("seed", [4, 5])
def test_fleiss_matches_statsmodels_with_a_fixed_number_of_annotators(seed):
    frame, stance = random_study(seed, m=(5, 5))
    votes = question_votes(frame)
    table = np.column_stack([votes["annotators"] - votes["votes"], votes["votes"]])
    figures = comprehension_figures(frame, stance, n_boot=0)
    assert figures.fleiss_kappa.value == pytest.approx(sm_fleiss_kappa(table), abs=1e-12)


def paper_study(seed, *, n_motions=20, n_workers=10, m=5, max_titles=6):
    """The paper's design: per motion and side, two speeches asked the side's 1..max_titles
    titles, each answered by ``m`` of ``n_workers`` workers of varying care."""
    rng = np.random.default_rng(seed)
    care = rng.uniform(0.6, 0.95, n_workers)
    rows, stance = [], {}
    for motion in range(n_motions):
        for side in ("pro", "con"):
            titles = [f"m{motion}-{side}-t{t}" for t in range(rng.integers(1, max_titles + 1))]
            for copy in range(2):
                item = f"m{motion}-{side}-{copy}"
                stance[item] = side
                truth = rng.random(len(titles)) < 0.4
                for worker in rng.choice(n_workers, size=m, replace=False):
                    for title, argued in zip(titles, truth, strict=True):
                        label = argued if rng.random() < care[worker] else not argued
                        rows.append((item, title, f"w{worker}", int(label)))
    return pd.DataFrame(rows, columns=["item", "option", "worker", "label"]), pd.Series(stance)


INTERVAL_FIGURES = (
    "positive_share",
    "titles_per_speech",
    "speeches_with_positive",
    "speeches_with_majority",
    "titles_ticked_once",
    "titles_labelled_positive_once",
    "high_confidence_share",
    "cohen_kappa",
    "cohen_kappa_pro",
    "cohen_kappa_con",
    "fleiss_kappa",
)


@pytest.mark.parametrize(
    ("study", "seed"),
    [
        (lambda: paper_study(0), 0),
        (lambda: paper_study(1, n_motions=50), 3),
        (lambda: paper_study(2, n_motions=6, m=3), 1),
        (lambda: paper_study(3, n_motions=10, max_titles=2), 7),
        (lambda: paper_study(4, n_workers=6, m=6), 2),
        (lambda: random_study(5, n_speeches=30), 4),
    ],
)
def test_every_interval_contains_its_estimate(study, seed):
    frame, stance = study()
    figures = comprehension_figures(frame, stance, n_boot=200, seed=seed)
    for name in INTERVAL_FIGURES:
        figure = getattr(figures, name)
        low, high = figure.interval
        if np.isnan(figure.value):  # undefined (no question with m >= 4): so is its interval
            assert np.isnan(low) and np.isnan(high), name
            continue
        assert low <= figure.value <= high, (name, figure.value, figure.interval)


def test_titles_are_resampled_by_group_of_titles_and_speeches():
    # Each replicate equals the title figures recomputed on the drawn groups (a side's titles
    # with the speeches that were asked them), a group drawn twice entering as two groups.
    frame, stance = paper_study(9, n_motions=5)
    n_boot, seed, level = 30, 5, 0.9
    result = comprehension_figures(frame, stance, n_boot=n_boot, seed=seed, level=level)
    groups = sorted(frame["option"].str.rsplit("-", n=1).str[0].unique())
    assert result.n_title_groups == len(groups) == 10
    # Groups are numbered in the order of their first question (questions sorted by speech).
    order = groups
    draws = np.random.default_rng(seed).integers(0, len(order), size=(n_boot, len(order)))
    names = ["titles_ticked_once", "titles_labelled_positive_once"]
    replicates = {name: [] for name in names}
    for draw in draws:
        parts, copies = [], {}
        for copy, index in enumerate(draw):
            part = frame[frame["option"].str.startswith(order[index] + "-")]
            part = part.assign(item=part["item"] + f"#{copy}", option=part["option"] + f"#{copy}")
            parts.append(part)
            copies.update({item: stance[item.split("#")[0]] for item in part["item"]})
        again = comprehension_figures(pd.concat(parts), pd.Series(copies), n_boot=0)
        for name in names:
            replicates[name].append(getattr(again, name).value)
    for name in names:
        expected = np.quantile(np.array(replicates[name]), [0.05, 0.95])
        assert getattr(result, name).interval == pytest.approx(tuple(expected), abs=EXACT), name


def test_intervals_bracket_the_estimates_and_follow_the_seed():
    frame, stance = paper_study(7, n_motions=10)
    first = comprehension_figures(frame, stance, n_boot=300, seed=11)
    assert first.to_dict() == comprehension_figures(frame, stance, n_boot=300, seed=11).to_dict()
    assert first.to_dict() != comprehension_figures(frame, stance, n_boot=300, seed=12).to_dict()
    for name in INTERVAL_FIGURES:
        figure = getattr(first, name)
        low, high = figure.interval
        assert low <= figure.value <= high, name
        # Every speech has a ticked title in this study: that share is 1 in every resample.
        assert low < high or figure.value == 1.0, name
    json.dumps(first.to_dict(), allow_nan=False)


def test_bootstrap_draws_whole_speeches():
    # Each replicate equals the figures recomputed on a frame of the drawn speeches, a speech
    # drawn twice entering as two speeches: its questions move together.
    frame, stance = random_study(8, n_speeches=10)
    n_boot, seed, level = 30, 5, 0.9
    result = comprehension_figures(frame, stance, n_boot=n_boot, seed=seed, level=level)
    speeches = sorted(frame["item"].unique())
    draws = np.random.default_rng(seed).integers(0, len(speeches), size=(n_boot, len(speeches)))
    names = ["positive_share", "speeches_with_positive", "speeches_with_majority"]
    names += ["high_confidence_share", "cohen_kappa", "cohen_kappa_pro", "fleiss_kappa"]
    replicates = {name: [] for name in names}
    for draw in draws:
        parts, copies = [], {}
        for copy, index in enumerate(draw):
            name = f"{speeches[index]}#{copy}"
            parts.append(frame[frame["item"] == speeches[index]].assign(item=name))
            copies[name] = stance[speeches[index]]
        again = comprehension_figures(pd.concat(parts), pd.Series(copies), n_boot=0)
        for name in names:
            replicates[name].append(getattr(again, name).value)
    for name in names:
        values = np.array(replicates[name])
        expected = np.quantile(values[np.isfinite(values)], [0.05, 0.95])
        assert getattr(result, name).interval == pytest.approx(tuple(expected), abs=EXACT), name


def test_titles_per_speech_does_not_vary_when_every_speech_has_as_many_titles():
    frame = hand_frame()
    frame = frame[frame["option"].isin(["a", "b", "d", "e"])]  # two titles per speech
    figures = comprehension_figures(frame, HAND_STANCE, n_boot=50)
    assert figures.titles_per_speech.interval == (2.0, 2.0)


def test_a_side_without_speeches_has_no_kappa():
    frame = hand_frame()
    figures = comprehension_figures(frame[frame["item"] != "s2"], HAND_STANCE, n_boot=20)
    assert np.isnan(figures.cohen_kappa_con.value)
    assert figures.cohen_kappa_con.n_pairs == 0
    assert figures.to_dict()["cohen_kappa_con"]["value"] is None
    json.dumps(figures.to_dict(), allow_nan=False)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda f: f.assign(label=f["label"] * 2), "0/1"),
        (lambda f: pd.concat([f, f.iloc[:1]]), "twice"),
        (lambda f: f.drop(columns="option"), "option"),
        (lambda f: f.assign(mode=["listening", "reading"] * 16), "several modes"),
    ],
)
def test_bad_frames_are_refused(change, message):
    with pytest.raises(ValueError, match=message):
        comprehension_figures(change(hand_frame()), HAND_STANCE, n_boot=0)


def test_every_speech_needs_a_known_stance():
    with pytest.raises(ValueError, match="no stance for speech.*s3"):
        comprehension_figures(hand_frame(), HAND_STANCE.drop("s3"), n_boot=0)
    with pytest.raises(ValueError, match="unknown stance"):
        comprehension_figures(hand_frame(), HAND_STANCE.replace("con", "neutral"), n_boot=0)


def mode_frame() -> pd.DataFrame:
    # s1 (titles a, b) and s2 (c, d) are done in both modes; s3 only by listeners.
    #            (s1,a) (s1,b) (s2,c) (s2,d)
    listening = {"l1": [1, 0, 1, 0], "l2": [1, 0, 0, 0], "l3": [1, 1, 1, 0]}
    reading = {"r1": [1, 0, 1, 0], "r2": [1, 0, 1, 1], "r3": [0, 0, 1, 1]}
    questions = [("s1", "a"), ("s1", "b"), ("s2", "c"), ("s2", "d")]
    rows = [
        (item, option, worker, labels[q], mode)
        for mode, answers in (("listening", listening), ("reading", reading))
        for worker, labels in answers.items()
        for q, (item, option) in enumerate(questions)
    ]
    rows += [("s3", "e", "l1", 1, "listening"), ("s3", "e", "l2", 1, "listening")]
    rows += [("s3", "e", "l3", 0, "listening")]
    return pd.DataFrame(rows, columns=["item", "option", "worker", "label", "mode"])


def test_mode_comparison_of_a_hand_example():
    comparison = mode_comparison(mode_frame())
    assert (comparison.n_speeches, comparison.n_questions) == (2, 4)
    listening, reading = comparison.listening, comparison.reading
    assert (listening.n_speeches, listening.n_questions, listening.n_workers) == (2, 4, 3)
    # Listening (s3 left out): l1 = 1010, l2 = 1000, l3 = 1110.
    #   l1-l2 agree 3/4, p_e = (2/4)(1/4) + (2/4)(3/4) = 1/2: 1/2
    #   l1-l3 agree 3/4, p_e = 1/2: 1/2
    #   l2-l3 agree 2/4, p_e = (1/4)(3/4) + (3/4)(1/4) = 3/8: (1/2 - 3/8) / (5/8) = 1/5
    # mean = 2/5. Fleiss: votes 3, 1, 2, 0 give P_i = 1, 1/3, 1/3, 1, P̄ = 2/3; p_1 = 6/12,
    # P_e = 1/2; kappa = 1/3.
    assert listening.cohen_kappa.value == pytest.approx(2 / 5, abs=EXACT)
    assert listening.fleiss_kappa.value == pytest.approx(1 / 3, abs=EXACT)
    # Reading: r1 = 1010, r2 = 1011, r3 = 0011.
    #   r1-r2 agree 3/4, p_e = 1/2: 1/2;  r1-r3 agree 2/4, p_e = 1/2: 0;  r2-r3 3/4, 1/2: 1/2
    # mean = 1/3. Fleiss: votes 2, 0, 3, 2 give P̄ = 2/3; p_1 = 7/12, P_e = (49 + 25)/144
    # = 37/72; kappa = (48/72 - 37/72) / (35/72) = 11/35.
    assert reading.cohen_kappa.value == pytest.approx(1 / 3, abs=EXACT)
    assert reading.fleiss_kappa.value == pytest.approx(11 / 35, abs=EXACT)
    # Majorities (votes > 1.5): listening 1, 0, 1, 0; reading 1, 0, 1, 1: 3 of 4 the same.
    assert comparison.same_majority_share == pytest.approx(3 / 4, abs=EXACT)
    assert listening.positive_share == pytest.approx(2 / 4, abs=EXACT)
    assert reading.positive_share == pytest.approx(3 / 4, abs=EXACT)
    out = json.loads(json.dumps(comparison.to_dict(), allow_nan=False))
    assert out["listening"]["cohen_kappa"]["value"] == pytest.approx(2 / 5, abs=EXACT)


def test_mode_comparison_needs_speeches_in_both_modes():
    frame = mode_frame()
    with pytest.raises(ValueError, match="both modes"):
        mode_comparison(frame[frame["item"] == "s3"])
    with pytest.raises(ValueError, match="unknown mode"):
        mode_comparison(frame.assign(mode="watching"))


def test_figure_one_shares_with_intervals_over_speeches():
    from analysis.methods.comprehension_votes import vote_distribution

    votes = pd.DataFrame({"item": ["s1", "s1", "s2", "s3", "s3", "s3"], "option": list("abcdef"),
                          "votes": [0, 3, 3, 1, 0, 2], "annotators": [3, 3, 3, 3, 3, 2]})
    dist = vote_distribution(votes, n_boot=300, seed=1)
    # m = 3: five questions with 0, 3, 3, 1, 0 votes; m = 2: one question with 2 votes.
    assert dist["3"]["counts"] == [2, 1, 0, 2] and dist["2"]["counts"] == [0, 0, 1]
    assert dist["3"]["shares"] == pytest.approx([0.4, 0.2, 0.0, 0.4])
    for share, (low, high) in zip(dist["3"]["shares"], dist["3"]["intervals"], strict=True):
        assert low <= share <= high
    # Only s3 has an m = 2 question: every resample that has it gives a share of 1.
    assert dist["2"]["intervals"][2] == [1.0, 1.0]
    assert vote_distribution(votes, n_boot=300, seed=1) == dist
    assert vote_distribution(votes, n_boot=0)["3"]["intervals"] == [None] * 4
