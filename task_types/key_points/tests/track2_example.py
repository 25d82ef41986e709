"""A hand-made system for track 2: one topic, 4 pro and 2 con arguments, 5 key points per stance."""

import pandas as pd

from task_types.key_points.system_files import SystemOutput

T = "We should ban boxing"
ARGUMENTS = pd.DataFrame({"arg_id": ["p1", "p2", "p3", "p4", "c1", "c2"],
                          "argument": ["boxing damages the brain", "boxers get hurt", "it is violent",
                                       "children copy it", "adults may choose", "it gives discipline"],
                          "topic": [T] * 6, "stance": [1, 1, 1, 1, -1, -1]})
KEY_POINTS = pd.DataFrame({"key_point_id": [f"kp{i}" for i in range(5)] + [f"kc{i}" for i in range(5)],
                           "key_point": ["Boxing harms health", "Boxing is violent", "A bad example", "Costly",
                                         "Other pro", "Freedom of choice", "Discipline", "Jobs", "Fitness",
                                         "Other con"],
                           "topic": [T] * 10, "stance": [1] * 5 + [-1] * 5})
# Top half: pro ⌊4/2⌋ = 2 → p1 (0.9, kp0) and p2 (0.8, kp0); con ⌊2/2⌋ = 1 → c2 (0.7, kc1).
PREDICTIONS = {"p1": {"kp0": 0.9, "kp1": 0.2}, "p2": {"kp0": 0.8}, "p3": {"kp1": 0.3}, "p4": {"kp2": 0.1},
               "c1": {"kc0": 0.4}, "c2": {"kc1": 0.7, "kc0": 0.1}}
SYSTEM = SystemOutput("hand-made", KEY_POINTS, PREDICTIONS)
