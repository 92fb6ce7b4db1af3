"""Browser security headers on every HTTP response: the apps, the API, errors and files.

One policy for both web apps and the API documentation page:

- scripts, styles, fonts and workers from this origin only, no inline script and no inline style
  text: the one hash allowed in `style-src` is that of the empty string, for the empty `<style>`
  elements the admin console's CSS-in-JS (Emotion) creates and then fills through the CSSOM
  (`insertRule`), which the policy does not govern;
- network calls to this origin and its live socket (ws:// or wss:// on the same host);
- images and media also from `data:` and `blob:` (icons, downloaded files, recorded audio);
- no framing by any site (`frame-ancestors 'none'`, and `X-Frame-Options: DENY` for old browsers);
- `nosniff`, `Referrer-Policy: strict-origin-when-cross-origin`, the microphone and camera for
  this origin only, and HSTS when the request came over TLS.

The middleware wraps every route, static file and error answer; a 500, which Starlette sends from
its outermost middleware, gets the same headers from its handler (`cara.kit.handlers`).
WebSocket handshakes are left alone (no document is rendered).
"""

from __future__ import annotations

from functools import lru_cache

from starlette.types import ASGIApp, Message, Receive, Scope, Send

# base64(sha256(b"")): only a <style> element with no text matches it.
EMPTY_STYLE_HASH = "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
HSTS = "max-age=63072000; includeSubDomains"
REFERRER_POLICY = "strict-origin-when-cross-origin"
PERMISSIONS_POLICY = (
    "microphone=(self), camera=(self), geolocation=(), payment=(), usb=(), interest-cohort=()"
)


def content_security_policy(*, host: str, tls: bool) -> str:
    """The policy for a response served to `host` (the request's Host header)."""
    socket = f"{'wss' if tls else 'ws'}://{host}" if _plain_host(host) else ""
    directives = [
        "default-src 'self'",
        "script-src 'self'",
        f"style-src 'self' '{EMPTY_STYLE_HASH}'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "media-src 'self' blob:",
        "worker-src 'self' blob:",
        f"connect-src 'self' {socket}".rstrip(),
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    ]
    return "; ".join(directives)


def _plain_host(host: str) -> bool:
    """A host[:port] with nothing that could end or extend a CSP directive."""
    return bool(host) and all(ch.isalnum() or ch in ".-:[]" for ch in host)


def security_headers(scope: Scope) -> list[tuple[bytes, bytes]]:
    host = b""
    for name, value in scope.get("headers") or ():
        if name == b"host":
            host = value
            break
    return list(headers_for(host, scope.get("scheme") == "https"))


@lru_cache(maxsize=256)
def headers_for(host_bytes: bytes, tls: bool) -> tuple[tuple[bytes, bytes], ...]:
    """Built once per (host, scheme): a replica answers for a handful of host names."""
    host = host_bytes.decode("latin-1")
    result = [
        (b"content-security-policy", content_security_policy(host=host, tls=tls).encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"x-frame-options", b"DENY"),
        (b"referrer-policy", REFERRER_POLICY.encode()),
        (b"permissions-policy", PERMISSIONS_POLICY.encode()),
        (b"cross-origin-opener-policy", b"same-origin"),
    ]
    if tls:
        result.append((b"strict-transport-security", HSTS.encode()))
    return tuple(result)


# Every name the middleware sets (HSTS included): any of them the app set is replaced.
HEADER_NAMES = frozenset(name for name, _ in headers_for(b"", True))


class SecurityHeaders:
    """Adds `security_headers` to every HTTP response, replacing any of the same name."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        extra = security_headers(scope)
        names = HEADER_NAMES

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message["headers"] = kept + extra
            await send(message)

        await self.app(scope, receive, send_with_headers)
