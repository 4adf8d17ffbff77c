from appsettings import Settings


def test_defaults():
    assert Settings.from_env(environ={}) == Settings()


def test_prefix_and_types():
    settings = Settings.from_env("SHOP_", {"SHOP_WORKERS": "8", "SHOP_LOG_LEVEL": "debug", "SHOP_DEBUG": "yes"})
    assert (settings.workers, settings.log_level, settings.debug) == (8, "DEBUG", True)
