"""Judging an answer: how well its cited passages support it (`confidence`) and whether the documents answer the
question at all (`answerability`). The Engine runs both on every answer, in every mode."""
