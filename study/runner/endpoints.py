"""The model's key and endpoint, checked before anything is created (``study.runner.preflight``):
the key's form, the base URL's form, and one TCP connection to each real model's endpoint (or the
proxy in use), which sends nothing.
"""

from __future__ import annotations

import socket
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from .preflight_error import PreflightError

#: Seconds a TCP connection to the model endpoint may take before the endpoint counts as unreachable.
PROBE_TIMEOUT_S = 5.0


# ----- the model's key and endpoint ---------------------------------------------------------------

def check_api_key(key: str, env_name: str) -> None:
    """The key's form: not empty, printable ASCII, no whitespace or control character. The key
    itself is never shown."""
    if not key or not key.strip():
        raise PreflightError(f"{env_name} is empty or blank: set it to your API key (export {env_name}=...)")
    bad = next((c for c in key if c.isspace() or not c.isprintable() or not c.isascii()), None)
    if bad is not None:
        what = "whitespace" if bad.isspace() else ("a control character" if not bad.isprintable() else "a non-ASCII character")
        raise PreflightError(f"{env_name} contains {what} (U+{ord(bad):04X}; copied with quotes or a line break?): "
                             f"set it to the key alone (export {env_name}=...)")


def check_base_url(url: str, source: str = "--base-url") -> tuple[str, int]:
    """``url`` is http(s)://host[:port][/path]; returns (host, port)."""
    hint = f"give an http:// or https:// URL with a host, e.g. https://api.anthropic.com or http://127.0.0.1:8080 ({source})"
    if not url or not url.strip() or any(c.isspace() or not c.isprintable() for c in url):
        raise PreflightError(f"base URL {url!r} is empty or contains whitespace: {hint}")
    try:
        parts = urlsplit(url)
    except ValueError as exc:   # e.g. "Invalid IPv6 URL" for http://[::1
        raise PreflightError(f"base URL {url!r} is not a URL ({exc}): {hint}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise PreflightError(f"base URL {_shown(url)!r} is not a URL with scheme http or https and a host: {hint}")
    try:
        port = parts.port
    except ValueError:
        raise PreflightError(f"base URL {_shown(url)!r} has an invalid port: {hint}") from None
    return parts.hostname, port or (443 if parts.scheme == "https" else 80)


def _shown(url: str) -> str:
    """``url`` as messages show it: without user, password or query (they may hold credentials)."""
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=netloc, query="", fragment="").geturl()


def _proxy_for(url: str) -> str | None:
    """The proxy the CLI would go through for ``url`` (HTTPS_PROXY/HTTP_PROXY, unless NO_PROXY covers it)."""
    parts = urlsplit(url)
    proxy = urllib.request.getproxies_environment().get(parts.scheme)
    if not proxy or urllib.request.proxy_bypass_environment(parts.hostname or ""):
        return None
    return proxy if "://" in proxy else f"http://{proxy}"


def probe_endpoint(url: str, timeout: float = PROBE_TIMEOUT_S) -> None:
    """Open (and close) one TCP connection to ``url``'s host and port, or to the proxy in use;
    raise PreflightError ``cannot reach <url>: ...`` if that fails. Sends nothing."""
    proxy = _proxy_for(url)
    host, port = check_base_url(proxy, "HTTPS_PROXY/HTTP_PROXY") if proxy else check_base_url(url)
    via = f" through the proxy {host}:{port}" if proxy else ""   # never the proxy's credentials
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except socket.gaierror:
        reason = f"the host name {host!r} does not resolve"
    except TimeoutError:
        reason = f"no TCP connection to {host}:{port} within {timeout:g} s"
    except OSError as exc:
        reason = f"{exc.strerror or exc} ({host}:{port})"
    else:
        return
    raise PreflightError(f"cannot reach {_shown(url)}{via}: {reason}; check the address (--base-url, ANTHROPIC_BASE_URL "
                         "or models.yaml) and that the server is running; nothing was created")


def probe_endpoints(checked: list[Any], timeout: float = PROBE_TIMEOUT_S) -> None:
    """Probe each distinct endpoint of the real models once (the simulator needs none)."""
    for url in dict.fromkeys(c.model.base_url for c in checked if not c.model.simulated and c.model.base_url):
        probe_endpoint(url, timeout)
