"""Conversations over the Engine: a user's threads (`thread`), the memories they are kept in (`memory`), reading a
follow-up question against the earlier turns (`followups`) and suggesting a mode for a question
(`question_kind`)."""
