"""Two consecutive chunks of an interview transcript, the second cut mid-turn: what the key-fact tests of local
(test_turns.py) and of global's reduce (test_global.py) read a speaker from when the passage itself names none."""

from __future__ import annotations

EARLIER = (
    "KEVIN SCOTT: So tell us how you got into biology.\n\n"
    "DAPHNE KOLLER: It was a long road. My father was a biologist, and I steered away from it for years."
)
#: The next chunk: it overlaps the end of EARLIER and opens mid-turn, with no label before its first words.
LATER = (
    "I steered away from it for years. And the reason I got into biology and medicine was that the machine "
    "learning data sets were boring.\n\nKEVIN SCOTT: Yeah."
)
