"""Quality rules judged on stored data: after every analysis run (MACE competence, position
bias, too-fast answers, automated browsers) and when staff check every rule at once (adding gold
accuracy from the workers' running gold counts). The decisions themselves are recorded by
``quality.services.rules.decisions.rule_decide``."""
