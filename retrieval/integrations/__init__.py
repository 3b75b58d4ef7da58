"""DriftLens inside other frameworks: the Microsoft Agent Framework context provider (`agent_framework`)."""
