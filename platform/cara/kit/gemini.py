"""Gemini clients (google-genai), built in one place from the settings.

The API key lives only here and in the SDK's request headers: it is never sent
to a browser nor written to a log. `GEMINI_BASE_URL` points the same SDK at
another address (the project's Gemini double in tests and `./ops/dev
--demo-ai`), and `GEMINI_CA_FILE` adds that address's CA to the trusted ones,
so the production code path is the one under test.
"""

from __future__ import annotations

import ssl
from collections.abc import Sequence
from functools import lru_cache

import certifi
from google import genai
from google.genai import errors, types
from opentelemetry import trace

from cara.config import get_settings
from cara.kit.errors import ServiceUnavailable

_tracer = trace.get_tracer("cara.ai")

AI_NOT_CONFIGURED = "The AI service is not configured. Please contact your administrator."

# Provider pongs can be slow under load; a tight timeout would drop healthy
# consultations (the websockets default is 20 s for both).
_PING_INTERVAL_SECONDS = 20
_PING_TIMEOUT_SECONDS = 60
_MAX_MESSAGE_BYTES = 8 * 1024 * 1024


def ai_configured() -> bool:
    return bool(get_settings().gemini_api_key)


def require_ai() -> None:
    """Refuse with 503 and a clear message when no provider key is set."""
    if not ai_configured():
        raise ServiceUnavailable(AI_NOT_CONFIGURED)


@lru_cache(maxsize=8)
def _ssl_context(ca_file: str | None) -> ssl.SSLContext:
    # Building a context reads the whole CA bundle (tens of ms): once per CA file.
    context = ssl.create_default_context(cafile=certifi.where())
    if ca_file:
        context.load_verify_locations(cafile=ca_file)
    return context


def client(timeout_seconds: float | None = None) -> genai.Client:
    """A new client for the configured provider (callers close it when done).

    A client per consultation or job keeps the SDK's async HTTP pool on the
    event loop that uses it; the expensive part (the TLS context) is shared.
    """
    settings = get_settings()
    if not settings.gemini_api_key:
        raise ServiceUnavailable(AI_NOT_CONFIGURED)
    context = _ssl_context(settings.gemini_ca_file)
    options = types.HttpOptions(
        base_url=settings.gemini_base_url.rstrip("/") if settings.gemini_base_url else None,
        timeout=int(timeout_seconds * 1000) if timeout_seconds else None,
        client_args={"verify": context},
        # "ssl" and the ping/size options reach the Live websocket; httpx takes "verify".
        async_client_args={
            "verify": context,
            "ssl": context,
            "ping_interval": _PING_INTERVAL_SECONDS,
            "ping_timeout": _PING_TIMEOUT_SECONDS,
            "max_size": _MAX_MESSAGE_BYTES,
            # Base64 audio barely compresses, and deflating every frame is a large share of the relay CPU.
            "compression": None,
        },
    )
    return genai.Client(api_key=settings.gemini_api_key, http_options=options)


def provider_message(exc: BaseException) -> str:
    """The provider's own words for a failure (a Live close reason or an API error message)."""
    if isinstance(exc, errors.APIError):
        if isinstance(exc.details, str) and exc.details.strip():
            return exc.details.strip()  # a Live close reason
        if exc.message:
            return str(exc.message)
        return f"The AI service closed the connection (code {exc.code})."
    if isinstance(exc, OSError | TimeoutError):
        return "Could not reach the AI service."
    return "The AI service connection failed."


def generate_content(
    client: genai.Client,
    *,
    model: str,
    contents: Sequence[types.Content],
    config: types.GenerateContentConfig,
    purpose: str,
) -> types.GenerateContentResponse:
    """One generateContent call, traced as a model-call span.

    The span carries the model, the purpose, token counts and finish reasons,
    never the prompt nor the answer (they hold the consultation). A failure is
    recorded by its type only: a provider's error message may quote the input.
    """
    with _tracer.start_as_current_span(
        f"generate_content {model}",
        kind=trace.SpanKind.CLIENT,
        attributes={
            "gen_ai.system": "gemini",
            "gen_ai.operation.name": "generate_content",
            "gen_ai.request.model": model,
            "cara.ai.purpose": purpose,
        },
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        try:
            response = client.models.generate_content(model=model, contents=list(contents), config=config)
        except Exception as exc:
            span.set_attribute("error.type", type(exc).__name__)
            span.set_status(trace.Status(trace.StatusCode.ERROR, type(exc).__name__))
            raise
        usage = response.usage_metadata
        if usage is not None:
            if usage.prompt_token_count is not None:
                span.set_attribute("gen_ai.usage.input_tokens", usage.prompt_token_count)
            if usage.candidates_token_count is not None:
                span.set_attribute("gen_ai.usage.output_tokens", usage.candidates_token_count)
        reasons = [str(c.finish_reason.value) for c in response.candidates or [] if c.finish_reason]
        if reasons:
            span.set_attribute("gen_ai.response.finish_reasons", reasons)
        if response.model_version:
            span.set_attribute("gen_ai.response.model", response.model_version)
        return response
