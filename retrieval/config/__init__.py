"""DriftLens settings: one `Settings` object read from the environment, declared in groups (graph, search,
indexing, model, service) so each can be read on its own."""

from retrieval.config.graph import DEFAULT_DATA_DIR
from retrieval.config.settings import Settings, load_settings

__all__ = ["DEFAULT_DATA_DIR", "Settings", "load_settings"]
