"""Questions about the demo corpus (the "Behind the Tech" interviews) that the benchmarks send.

One list per purpose, shared: the service load test, the UI timings and the ranking snapshot ask the same things.
"""

from __future__ import annotations

#: The load benchmark's questions, sent in turn (common words, one name).
SERVICE = (
    "Who founded the company?",
    "What did Steve build at Microsoft?",
    "How did the guests get into computing?",
    "What do they say about artificial intelligence?",
    "Which programming languages are mentioned?",
    "What advice is given to young engineers?",
)
#: Questions naming a guest.
NAMED = (
    "What did Bill Gates say about vaccines?",
    "How did Fei-Fei Li build ImageNet?",
    "What does Lisa Su say about chips?",
    "What did Mae Jemison do at NASA?",
    "What is Reid Hoffman's view on AI?",
)
#: Topics across the episodes.
TOPICS = (
    "Who talks about open source software?",
    "What is said about education and teaching?",
    "How do the guests describe failure?",
    "What role does curiosity play in their careers?",
    "What is said about quantum computing?",
    "Who worked on video games?",
    "What do guests say about diversity in tech?",
    "How did Kevin Scott grow up?",
    "What are the risks of machine learning?",
)
