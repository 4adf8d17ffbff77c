"""Settings from environment variables."""

from .settings import Settings

__all__ = ["Settings"]
