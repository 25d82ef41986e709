"""How likely a second account passes the qualification with a first account's feedback.

The first account takes ``seen_rounds`` rounds and, with feedback after each item, learns the
expected answers of the ``seen_rounds·k`` items it saw. The second account answers those right
when they come up, and the rest right with chance ``guess``; it passes a round with at least
``ceil(pass_mark·k)`` right and has ``attempts`` rounds. Rounds drawn per worker from a pool of
``n`` items (``quality.services.check_serving.training_pick``) give it the items it knows by
a hypergeometric draw; rounds served in one fixed order give it exactly the first account's
items, so it always passes. Exact, no simulation:

    python -m bench.training_copy
"""

from __future__ import annotations

import math
from functools import cache


def _binom(n: int, p: float, at_least: int) -> float:
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(max(at_least, 0), n + 1))


def copy_pass_chance(*, pool: int, k: int, known: int, pass_mark: float, guess: float, attempts: int) -> float:
    """The chance that an account knowing the answers of ``known`` of ``pool`` training items
    passes one of ``attempts`` rounds of ``k`` items drawn without items it had before."""
    need = math.ceil(pass_mark * k - 1e-9)

    @cache
    def chance(n: int, m: int, left: int) -> float:
        if left == 0 or n == 0:
            return 0.0
        size = min(k, n)
        total = 0.0
        for o in range(max(0, size - (n - m)), min(size, m) + 1):
            p_o = math.comb(m, o) * math.comb(n - m, size - o) / math.comb(n, size)
            passed = _binom(size - o, guess, need - o)
            total += p_o * (passed + (1 - passed) * chance(n - size, m - o, left - 1))
        return total

    return chance(pool, min(known, pool), attempts)


def mean_overlap(*, pool: int, k: int) -> float:
    """Items two workers' first rounds share on average (k·k/n)."""
    return k * k / pool


def main() -> None:
    k, pass_mark = 5, 0.8
    print(f"Rounds of k = {k}, pass mark {pass_mark:g}. The first account took as many rounds as the second may "
          "and saw the expected answer of every item in them.")
    print(f"{'attempts':>8} {'pool':>5} {'shared, round 1':>16} {'copier, guess 1/3':>18} {'copier, guess 1/2':>18} "
          f"{'fixed order':>12} {'no copy, 1/3':>13}")
    for attempts in (1, 2):
        for pool in (12, 24, 48, 96):
            known = attempts * k
            row = [copy_pass_chance(pool=pool, k=k, known=known, pass_mark=pass_mark, guess=g, attempts=attempts)
                   for g in (1 / 3, 1 / 2)]
            alone = copy_pass_chance(pool=pool, k=k, known=0, pass_mark=pass_mark, guess=1 / 3, attempts=attempts)
            print(f"{attempts:>8} {pool:>5} {mean_overlap(pool=pool, k=k):>16.2f} {row[0]:>18.3f} {row[1]:>18.3f} "
                  f"{1.0:>12.3f} {alone:>13.3f}")


if __name__ == "__main__":
    main()
