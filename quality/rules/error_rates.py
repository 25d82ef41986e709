"""How often the quality rules err, as measured by ``bench/quality/rules_simulation.py --write``
(written by it; the rules page shows it)."""

from __future__ import annotations

from typing import Any

MEASURED: dict[str, Any] | None = {'command': 'python bench/quality/rules_simulation.py --write',
 'studies': 2000,
 'seed': 20261201,
 'setup': 'N = 5 answers per item, 10% gold, 2000 answers (200 gold) a study, 2000 studies per worker, rules '
          'at their defaults; competence (bar 0.4, after 20 answers): MACE after every 20 answers to real '
          'items, 200 replicates, among 20 honest workers, over the first 300 studies of each worker (MACE '
          'is costly); its medians are over those studies',
 'competence_studies': 300,
 'workers': [{'worker': 'at the bar',
              'gold': '4.00%',
              'too_fast': '1.95%',
              'position': '4.50%',
              'competence': '0.00%',
              'median': 'never (most studies)'},
             {'worker': '5 points above the bar',
              'gold': '0.40%',
              'too_fast': '0.00%',
              'position': '4.40%',
              'competence': '0.00%',
              'median': 'never (most studies)'},
             {'worker': 'random clicker',
              'gold': '100.00%',
              'too_fast': '0.00%',
              'position': '3.65%',
              'competence': '100.00%',
              'median': '43'},
             {'worker': 'always first',
              'gold': '99.95%',
              'too_fast': '0.00%',
              'position': '100.00%',
              'competence': 'not simulated',
              'median': '11'},
             {'worker': 'speeder',
              'gold': '100.00%',
              'too_fast': '100.00%',
              'position': '4.15%',
              'competence': 'not simulated',
              'median': '5'}],
 'competence': {'replicates': 200, 'workers': 400, 'coverage': '95.8%'},
 'goals': [{'rule': 'gold accuracy',
            'worker': 'at the bar',
            'goal': 'decided about in ≤ 5% of studies',
            'met': 'yes'},
           {'rule': 'gold accuracy', 'worker': '5 points above the bar', 'goal': '≤ 1%', 'met': 'yes'},
           {'rule': 'too fast', 'worker': 'at the bar', 'goal': '≤ 5%', 'met': 'yes'},
           {'rule': 'position bias', 'worker': 'at the bar', 'goal': '≤ 5% (unbiased worker)', 'met': 'yes'},
           {'rule': 'competence', 'worker': 'at the bar', 'goal': '≤ 5%', 'met': 'yes'},
           {'rule': 'competence', 'worker': '5 points above the bar', 'goal': '≤ 1%', 'met': 'yes'},
           {'rule': 'any rule',
            'worker': 'always first',
            'goal': 'median answers to the first decision ≤ 20',
            'met': 'yes'},
           {'rule': 'any rule',
            'worker': 'speeder',
            'goal': 'median answers to the first decision ≤ 15',
            'met': 'yes'},
           {'rule': 'any rule',
            'worker': 'random clicker',
            'goal': 'median answers to the first decision ≤ 60',
            'met': 'yes'},
           {'rule': 'competence interval',
            'worker': '400 workers',
            'goal': '95% interval covers ≥ 94%',
            'met': 'yes'}]}


def error_rates() -> dict[str, Any] | None:
    return MEASURED
