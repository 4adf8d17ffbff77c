"""The application's settings."""

from dataclasses import dataclass

from .env import env_flag, env_int, env_str


@dataclass(frozen=True)
class Settings:
    debug: bool = False
    workers: int = 2
    log_level: str = "INFO"
    maintenance: bool = False

    @classmethod
    def from_env(cls, prefix="", environ=None):
        return cls(
            debug=env_flag(prefix + "DEBUG", cls.debug, environ),
            workers=env_int(prefix + "WORKERS", cls.workers, environ),
            log_level=env_str(prefix + "LOG_LEVEL", cls.log_level, environ).upper(),
            maintenance=env_flag(prefix + "MAINTENANCE", cls.maintenance, environ),
        )
