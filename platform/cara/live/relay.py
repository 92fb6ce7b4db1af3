"""One consultation: the browser's socket relayed to a Gemini Live session.

Two tasks run side by side:

* the browser loop reads validated frames (messages.py) and forwards audio,
  video and typed questions upstream; while the upstream is being replaced it
  keeps the last few seconds of audio and the typed questions, and sends them
  once the new connection is up;
* the upstream loop owns the Gemini connection (google-genai SDK). It turns
  server messages into browser messages, keeps the latest resumption handle,
  runs tool calls, gates replies on the wake state, and closes transcript
  lines, which are stored as they complete.

When the provider says `goAway`, or the connection drops, the open transcript
lines are stored, the old connection is closed and a new one is opened with
the latest resumption handle (with backoff). If resuming is refused or keeps
failing, a fresh session is opened and primed with the transcript so far.
The browser's socket stays open throughout; it only sees `reconnecting` and
then `connected`. Only a failure of the very first connection, or of every
retry, ends the consultation with an error status.

Beside them, the doctor's right to the assistant is checked again every
`LIVE_RECHECK_SECONDS` with the check the socket was opened with. A token
signed out or expired, an account deactivated or removed or a subscription
lapsed ends the consultation like a refusal at connect: an error status at
once, then, once the transcript is stored, the close (4401/4403). A check that cannot run
(database or Redis down) does not end it.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
import uuid
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from google.genai import errors as genai_errors
from google.genai import types
from opentelemetry import trace

from cara.clinical import tool as dose_tool
from cara.config import Settings
from cara.consultations import service as consultations
from cara.kit import gemini, throttle
from cara.kit.gemini import provider_message
from cara.live import messages as m
from cara.live import opus, rejoin, usage
from cara.live.assistant_profiles import AssistantProfile, live_config
from cara.live.browser import BrowserGone, BrowserLink
from cara.live.transcript import Line, LineAssembler, TranscriptWriter
from cara.live.upstream import Upstream, open_upstream
from cara.live.wake import WakeEvent, WakeState
from tenants.sessions import TenantScope, TenantTransactions

log = logging.getLogger("cara.live")
# Spans carry the console, counts and outcomes only: never transcript text nor patient details.
_tracer = trace.get_tracer("cara.live")

# About ten seconds of microphone audio (8 chunks a second) is kept while reconnecting.
PENDING_AUDIO_CHUNKS = 80
PENDING_TEXTS = 10
# Pings remembered for the link's lag (one a second): past this, the oldest is forgotten and the lag
# reads at most this many seconds, which is already far past any threshold of the console.
LINK_PINGS_KEPT = 120
# Decoded Opus microphone audio goes upstream in chunks of 100 ms (16 kHz, 16-bit).
MIC_CHUNK_BYTES = 3_200
# How long a rejoining socket waits for the socket it replaces to store its lines.
TAKEOVER_WAIT_SECONDS = 6.0
# A fresh session is primed with at most this much of the transcript (the latest lines).
PRIMING_MAX_CHARS = 24_000
PRIMING_INTRO = (
    "The live connection was renewed. This is the transcript of the consultation so far, for context; "
    "do not answer it, continue from where it ends.\n\n"
)
SPEAKER_LABELS = {"user": "Clinician", "assistant": "Cara", "tool": "Dose-constraint tool"}
# Close codes with which the provider refuses what was sent (policy, bad payload): retrying
# the same handle cannot help.
_REFUSAL_CODES = {1007, 1008}
# Refusals of the periodic re-check that end a running consultation (messages.CLOSE_CODES keys).
_WITHDRAWN = frozenset({"unauthorized", "forbidden"})


class Refused(Exception):
    """The doctor may not use the assistant (or no longer may). The browser gets a `status` of
    state `error` with `code` = `kind`, a key of messages.CLOSE_CODES, then the close with its code."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@dataclass(frozen=True)
class Ending:
    """Why the relay ended the consultation itself (the browser's socket is closed with it)."""

    code: int
    message: str


def _is_refusal(exc: BaseException) -> bool:
    return isinstance(exc, genai_errors.APIError) and (
        exc.code in _REFUSAL_CODES or isinstance(exc, genai_errors.ClientError)
    )


class LiveRelay:
    def __init__(
        self,
        browser: BrowserLink,
        profile: AssistantProfile,
        scope: TenantScope,
        settings: Settings,
        *,
        consultation_id: uuid.UUID,
        recheck: Callable[[], object],
        audio: str = "pcm",
        video_allowed: bool = True,
    ) -> None:
        """`recheck` is the check the socket was opened with (blocking: database and Redis),
        raising Refused when the doctor may no longer use the assistant."""
        self.browser = browser
        self.profile = profile
        self.scope = scope
        # The relay owns its writes' transactions: each one in the doctor's tenant, under its role.
        self._transactions = TenantTransactions.of(scope)
        self.settings = settings
        self._recheck = recheck
        self.wake = WakeState(
            wake_phrase_required=profile.wake_phrase_required, obeys_sleep=profile.obeys_sleep
        )
        self.lines = LineAssembler()
        self.upstream: Upstream | None = None
        self.handle: str | None = None
        self.reconnects = 0
        self.consultation_id = consultation_id
        # Opus both ways (binary frames), negotiated in the first frame; else base64 PCM in JSON.
        self.audio = audio
        # Camera and screen frames, when the doctor's plan includes them; else refused, once said.
        self._video_allowed = video_allowed
        self._video_refused = False
        self._codec = opus.Transcoder(settings.live_opus_threads) if audio == "opus" else None
        self._mic_pcm = bytearray()  # decoded microphone audio not yet sent upstream
        self.tokens = 0  # the provider's usageMetadata, summed (counted per tenant and day at the end)
        self.socket_id = uuid.uuid4().hex  # this socket's claim on the consultation (rejoin.hold)
        self._restored = False  # lines were stored before this socket: a fresh session is primed
        self._last_pong: float | None = None  # monotonic time of the browser's latest pong
        # The `at` (ms) of pings sent and not answered yet, oldest first, and the last round trip.
        self._unanswered: deque[int] = deque(maxlen=LINK_PINGS_KEPT)
        self._rtt_ms: int | None = None
        self._writer: TranscriptWriter | None = None
        self._pending_audio: deque[str] = deque(maxlen=PENDING_AUDIO_CHUNKS)  # base64 chunks
        self._pending_texts: deque[str] = deque(maxlen=PENDING_TEXTS)
        self._unsent: list[Line] = []  # closed lines not yet shown to the browser
        self._heard_from_upstream = False
        self._restarting = asyncio.Event()
        self.loop: asyncio.AbstractEventLoop | None = None  # the loop that runs it, for drain()

    # ------------------------------------------------------------ the consultation

    async def run(self) -> Ending | None:
        """Relay until the browser leaves (None), the upstream cannot be (re)established, or the
        server drains (an Ending with code 1012: the browser reconnects to another replica)."""
        self.loop = asyncio.get_running_loop()
        _running.add(self)
        started = time.monotonic()
        attributes = {"cara.live.console": self.profile.key, "cara.live.audio": self.audio}
        with _tracer.start_as_current_span("live consultation", attributes=attributes) as span:
            try:
                ending = await self._run()
                span.set_attribute("cara.live.ending", ending.code if ending else 1000)
                return ending
            finally:
                span.set_attribute("cara.live.reconnects", self.reconnects)
                span.set_attribute("cara.live.tokens", self.tokens)
                span.set_attribute("cara.live.rejoined", self._restored)
                seconds = int(time.monotonic() - started)
                try:
                    await asyncio.to_thread(usage.add, self.scope.schema, tokens=self.tokens, seconds=seconds)
                finally:
                    # Last, after the final await: a drain waits for this, and the endpoint closes
                    # the socket with the ending's reason as soon as run() returns. Left earlier, a
                    # slow usage write let the server's shutdown close it first, without a reason.
                    _running.discard(self)

    def restart(self) -> None:
        """End the consultation for a server restart, once its transcript is stored."""
        self._restarting.set()

    async def _take_over(self) -> None:
        """Hold the consultation, wait for a socket that held it before to store its lines, and
        carry on from what is stored: transcript, wake state, the provider's resumption handle."""
        previous = await asyncio.to_thread(rejoin.hold, self.consultation_id, self.socket_id)
        if previous is not None:
            deadline = time.monotonic() + TAKEOVER_WAIT_SECONDS
            while time.monotonic() < deadline and not await asyncio.to_thread(
                rejoin.released, self.consultation_id, previous
            ):
                await asyncio.sleep(0.1)
        stored = await asyncio.to_thread(
            self._transactions.run, consultations.rejoin_live, self.scope.account_id, self.consultation_id
        )
        self.lines.restore([Line(seq=r.seq, speaker=r.speaker, text=r.text, at=r.at) for r in stored])
        self._restored = bool(stored)
        saved = await asyncio.to_thread(rejoin.load, self.consultation_id)
        self.handle = saved.handle
        if saved.awake is not None:
            self.wake.awake = saved.awake

    async def _run(self) -> Ending | None:
        await self._take_over()
        self._writer = TranscriptWriter(self.scope, self.consultation_id)
        log.info(
            "live consultation started",
            extra={
                "console": self.profile.key,
                "consultation": str(self.consultation_id),
                "rejoined": self._restored or self.handle is not None,
            },
        )
        client = gemini.client()
        upstream = asyncio.create_task(self._upstream_loop(client), name="live-upstream")
        downstream = asyncio.create_task(self._browser_loop(), name="live-browser")
        restart = asyncio.create_task(self._restarting.wait(), name="live-restart")
        recheck = asyncio.create_task(self._recheck_loop(), name="live-recheck")
        holding = asyncio.create_task(self._hold_loop(), name="live-hold")
        tasks = (upstream, downstream, restart, recheck, holding)
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            results = await asyncio.gather(upstream, downstream, recheck, holding, return_exceptions=True)
            self._store(self.lines.close_all())
            await self._writer.close()
            try:
                await asyncio.to_thread(
                    self._transactions.run,
                    consultations.end_live,
                    self.scope.account_id,
                    self.consultation_id,
                    self.reconnects,
                    self.scope.schema,
                )
            except Exception as exc:  # the lines are stored; only the end time is missing
                log.warning("could not close the consultation", extra={"error": type(exc).__name__})
            await client.aio.aclose()
            await asyncio.to_thread(rejoin.release, self.consultation_id, self.socket_id)
            log.info(
                "live consultation ended",
                extra={
                    "console": self.profile.key,
                    "consultation": str(self.consultation_id),
                    "reconnects": self.reconnects,
                },
            )
        for result in results:
            if isinstance(result, BaseException) and not isinstance(
                result, BrowserGone | asyncio.CancelledError
            ):
                log.error("live relay failed", exc_info=result)
        # The upstream loop (provider failure), the re-check (access withdrawn) or a newer socket
        # (taken over) ends it.
        for ending in (results[0], results[2], results[3]):
            if isinstance(ending, Ending):
                return ending
        if self._restarting.is_set():
            try:
                await self.browser.send(m.status("reconnecting", m.RESTARTING))
            except BrowserGone:
                return None
            return Ending(m.SERVICE_RESTART, m.RESTARTING)
        return None

    # ------------------------------------------------------------ rejoin and heartbeat

    async def _hold_loop(self) -> Ending:
        """Every second: ping the browser, and check no newer socket took the consultation over."""
        while True:
            await asyncio.sleep(m.PING_SECONDS)
            await self.browser.send(self._ping(int(time.monotonic() * 1000)))
            if not await rejoin.still_held_soon(self.consultation_id, self.socket_id):
                log.info("live consultation taken over", extra={"consultation": str(self.consultation_id)})
                with contextlib.suppress(BrowserGone):
                    await self.browser.send(m.status("error", m.REPLACED, code="replaced"))
                return Ending(m.CLOSE_CODES["replaced"], m.REPLACED)

    def _ping(self, now_ms: int) -> dict[str, Any]:
        """A ping with what the server measures of the link: `lag`, how long the oldest ping not
        answered yet has waited (ms; 0 when every one was), and `rtt`, the latest round trip. A
        pong queued behind the doctor's uplink (camera frames on a slow link) shows as a growing
        lag within a second, long before the socket's own buffers say anything."""
        lag = now_ms - self._unanswered[0] if self._unanswered else 0
        self._unanswered.append(now_ms)
        ping: dict[str, Any] = {"type": "ping", "at": now_ms, "lag": max(0, lag)}
        if self._rtt_ms is not None:
            ping["rtt"] = self._rtt_ms
        return ping

    def _ponged(self, at: int | None) -> None:
        now = time.monotonic()
        self._last_pong = now
        if at is None:
            return
        while self._unanswered and self._unanswered[0] <= at:
            if self._unanswered.popleft() == at:
                self._rtt_ms = max(0, int(now * 1000) - at)

    def _link_stale(self) -> bool:
        """The browser answers pings but has not for a while: replies would only pile up."""
        return self._last_pong is not None and time.monotonic() - self._last_pong > m.STALE_AFTER_SECONDS

    async def _save_wake(self) -> None:
        # Awaited, so two changes in quick succession are saved in their order.
        await asyncio.to_thread(rejoin.save, self.consultation_id, awake=self.wake.awake)

    # ------------------------------------------------------------ access

    async def _recheck_loop(self) -> Ending:
        """Check the doctor's token and access again every LIVE_RECHECK_SECONDS; an Ending once
        they are withdrawn (the browser has been told why)."""
        while True:
            # One check at a time: the next interval starts when a (slow) check is over.
            await asyncio.sleep(self.settings.live_recheck_seconds)
            try:
                await asyncio.to_thread(self._recheck)
            except Refused as refused:
                if refused.kind in _WITHDRAWN:
                    log.info(
                        "live access withdrawn",
                        extra={"consultation": str(self.consultation_id), "kind": refused.kind},
                    )
                    await self.browser.send(m.status("error", refused.message, code=refused.kind))
                    return Ending(m.CLOSE_CODES[refused.kind], refused.message)
                # The check could not run (database or Redis down). The consultation goes on:
                # cutting clinicians off in the middle of a consultation on an infrastructure blip
                # is worse than enforcing a revocation an interval or two late. The next interval
                # checks again. (New sockets and HTTP calls fail closed meanwhile.)
                log.warning(
                    "live access re-check could not run",
                    extra={"consultation": str(self.consultation_id), "error": _root_type(refused)},
                )
            except Exception as exc:
                # Not a refusal either: the consultation goes on, as it does through an outage.
                log.error(
                    "live access re-check failed",
                    extra={"consultation": str(self.consultation_id), "error": type(exc).__name__},
                )

    # ------------------------------------------------------------ upstream

    async def _upstream_loop(self, client: Any) -> Ending:
        failures = 0
        connected_once = False
        while True:
            handle = self.handle
            prime = (connected_once or self._restored) and handle is None
            self._heard_from_upstream = False
            opened = False
            try:
                config = live_config(
                    self.profile, lab_name=self.settings.ai_lab_name, resumption_handle=handle
                )
                async with open_upstream(client, self.settings.gemini_live_model, config) as upstream:
                    opened = True
                    trace.get_current_span().add_event(
                        "live connect", {"cara.live.resumed": handle is not None, "cara.live.primed": prime}
                    )
                    if prime:
                        await self._prime(upstream)
                    self.upstream = upstream
                    await self.browser.send(
                        m.status(
                            "connected",
                            m.CONNECTED,
                            consultationId=str(self.consultation_id),
                            console=self.profile.key,
                            voice=self.profile.voice,
                            awake=self.wake.awake,
                            wakePhraseRequired=self.profile.wake_phrase_required,
                            resumed=handle is not None,
                            rejoin=True,
                            audio=self.audio,
                            lines=len(self.lines.lines),
                            demo=self.settings.cara_demo_ai,
                        )
                    )
                    connected_once = True
                    await self._send_pending(upstream)
                    await self._pump(upstream)
                # goAway: the context above closed the old connection; resume now.
                self.upstream = None
                failures = 0
                log.info(
                    "live upstream going away; resuming", extra={"consultation": str(self.consultation_id)}
                )
            except (asyncio.CancelledError, BrowserGone):
                raise
            except Exception as exc:
                self.upstream = None
                message = provider_message(exc)
                code = getattr(exc, "code", None)
                log.warning(
                    "live upstream failed",
                    extra={
                        "consultation": str(self.consultation_id),
                        "error": type(exc).__name__,
                        "code": code,
                    },
                )
                if not connected_once and handle is not None and not opened:
                    # The handle kept from an earlier socket did not work: start afresh, primed.
                    self.handle = None
                    await asyncio.to_thread(rejoin.forget_handle, self.consultation_id)
                    continue
                if not connected_once:
                    await self.browser.send(m.status("error", message, code="upstream"))
                    return Ending(m.CLOSE_CODES["upstream"], message)
                # A connection that worked for a while starts the count again; one that keeps
                # failing at once uses up the attempts.
                failures = 1 if self._heard_from_upstream else failures + 1
                if handle is not None and not opened and (_is_refusal(exc) or failures >= 2):
                    # The handle is refused or keeps failing: start afresh, primed with the transcript.
                    self.handle = None
                if failures > self.settings.live_reconnect_attempts:
                    await self.browser.send(m.status("error", message, code="upstream"))
                    return Ending(m.CLOSE_CODES["upstream"], message)
                await self._before_reconnect()
                await asyncio.sleep(self.settings.live_reconnect_backoff_seconds * 2 ** (failures - 1))
                continue
            await self._before_reconnect()

    async def _before_reconnect(self) -> None:
        # Nothing heard so far may wait on a connection that is gone.
        self._store(self.lines.close_all())
        await self._send_lines_closed()
        self.reconnects += 1
        await self.browser.send(m.status("reconnecting", m.RECONNECTING))

    async def _prime(self, upstream: Upstream) -> None:
        lines: list[str] = []
        size = 0
        for line in reversed(self.lines.lines):
            text = f"{SPEAKER_LABELS.get(line.speaker, line.speaker)}: {line.text}"
            size += len(text) + 1
            if size > PRIMING_MAX_CHARS:
                break
            lines.append(text)
        if lines:
            await upstream.prime(PRIMING_INTRO + "\n".join(reversed(lines)))

    async def _send_pending(self, upstream: Upstream) -> None:
        while self._pending_audio:
            await upstream.send_audio(self._pending_audio[0])
            self._pending_audio.popleft()
        while self._pending_texts:
            await upstream.send_text(self._pending_texts[0])
            self._pending_texts.popleft()

    async def _pump(self, upstream: Upstream) -> None:
        """Relay server messages until goAway (returns); a closed connection raises."""
        while True:
            message = await upstream.receive()
            self._heard_from_upstream = True
            if await self._on_server_message(upstream, message):
                return

    async def _on_server_message(self, upstream: Upstream, message: dict[str, Any]) -> bool:
        """One server message (the wire's camelCase JSON); True on goAway."""
        update = _object(message.get("sessionResumptionUpdate"))
        if update.get("resumable") and isinstance(update.get("newHandle"), str) and update["newHandle"]:
            self.handle = update["newHandle"]
            await asyncio.to_thread(rejoin.save, self.consultation_id, handle=self.handle)
        metadata = _object(message.get("usageMetadata"))
        if metadata:
            self.tokens += usage.tokens_of(metadata)
        if "goAway" in message:
            return True
        if "toolCall" in message:
            await self._on_tool_call(upstream, _object(message["toolCall"]))
        content = _object(message.get("serverContent"))
        if not content:
            return False
        heard = _object(content.get("inputTranscription")).get("text")
        if isinstance(heard, str) and heard:
            await self._on_user_speech(heard)
        if self.wake.awake:
            # While the browser does not answer pings, speech is dropped: played in a burst later
            # it would be stale (the transcript still arrives).
            stale = self._link_stale()
            for part in _object(content.get("modelTurn")).get("parts") or []:
                blob = _object(_object(part).get("inlineData"))
                mime, data = blob.get("mimeType"), blob.get("data")
                if isinstance(mime, str) and mime.startswith("audio/") and isinstance(data, str) and data:
                    if stale:
                        continue
                    await self._audio_down(data, mime)
            said = _object(content.get("outputTranscription")).get("text")
            if isinstance(said, str) and said:
                await self._fragment("assistant", said)
        if content.get("interrupted"):
            if self._codec is not None:
                self._codec.reset()
            self._store(self.lines.close_all())
            await self._send_lines_closed()
            await self.browser.send({"type": "interrupted"})
        if content.get("turnComplete"):
            if self._codec is not None and not self._link_stale():
                for packet in await self._codec.flush():
                    await self.browser.send_bytes(packet)
            self._store(self.lines.close_all())
            await self._send_lines_closed()
            self.wake.end_of_turn()
            await self.browser.send({"type": "turnComplete"})
        return False

    async def _on_user_speech(self, fragment: str) -> None:
        await self._fragment("user", fragment)
        for event in self.wake.hear(fragment):
            await self._on_wake_event(event)

    async def _on_wake_event(self, event: WakeEvent) -> None:
        await self._save_wake()
        if event is WakeEvent.SLEPT:
            # Go silent at once: stop what is playing and drop the rest of the reply.
            self._store(self.lines.close("assistant"))
            await self._send_lines_closed()
            await self.browser.send({"type": "interrupted"})
            await self.browser.send({"type": "wake", "awake": False, "message": m.ASLEEP})
        else:
            await self.browser.send({"type": "wake", "awake": True, "message": m.AWAKE})

    async def _on_tool_call(self, upstream: Upstream, call: dict[str, Any]) -> None:
        responses: list[types.FunctionResponse] = []
        for function_call in call.get("functionCalls") or []:
            function_call = _object(function_call)
            name = str(function_call.get("name") or "")
            if name == dose_tool.FUNCTION_NAME and self.profile.dose_constraint_tool:
                args = function_call.get("args")
                with _tracer.start_as_current_span("live tool_call", attributes={"cara.live.tool": name}):
                    outcome = dose_tool.run(args if isinstance(args, dict) else None)
                self._store(self.lines.whole("tool", outcome.transcript))
                await self._send_lines_closed()
                await self.browser.send({"type": "toolResult", "name": name, "result": outcome.response})
                response = outcome.response
            else:
                response = {"error": f"Unknown function '{name}'."}
            # The service always names its calls; an empty id still gets an answer.
            call_id = str(function_call.get("id") or "")
            responses.append(types.FunctionResponse(id=call_id, name=name, response=response))
        if responses:
            await upstream.send_tool_responses(responses)

    # ------------------------------------------------------------ transcript

    async def _fragment(self, speaker: str, fragment: str) -> None:
        closed, interim = self.lines.add(speaker, fragment)
        self._store(closed)
        await self._send_lines_closed()
        if interim is not None:
            await self.browser.send(interim)

    def _store(self, lines: list[Line]) -> None:
        """Queue lines for storage and for the browser (sent by _send_lines_closed)."""
        if not lines:
            return
        if self._writer is not None:
            self._writer.put(lines)
        self._unsent.extend(lines)

    async def _send_lines_closed(self) -> None:
        while self._unsent:
            await self.browser.send(self._unsent.pop(0).as_message())

    # ------------------------------------------------------------ browser

    async def _audio_down(self, data_base64: str, mime: str) -> None:
        if self._codec is None or not mime.startswith("audio/pcm"):
            await self.browser.send_audio(data_base64, mime)
            return
        for packet in await self._codec.encode(base64.b64decode(data_base64)):
            await self.browser.send_bytes(packet)

    async def _opus_up(self, packet: bytes) -> None:
        """A microphone packet: decoded, and sent upstream in chunks of about 100 ms."""
        assert self._codec is not None
        try:
            self._mic_pcm += await self._codec.decode(packet)
        except ValueError as exc:
            await self.browser.send(m.error(str(exc).capitalize() + "."))
            return
        if len(self._mic_pcm) >= MIC_CHUNK_BYTES:
            pcm, self._mic_pcm = bytes(self._mic_pcm), bytearray()
            await self._audio_up(base64.b64encode(pcm).decode())

    async def _browser_loop(self) -> None:
        while True:
            raw = await self.browser.receive()
            if isinstance(raw, bytes) and self._codec is not None:
                await self._opus_up(raw)
                continue
            try:
                message = m.parse(raw)
            except m.BadFrame as exc:
                await self.browser.send(m.error(str(exc)))
                continue
            if isinstance(message, m.AudioIn):
                await self._audio_up(message.data)
            elif isinstance(message, m.VideoIn):
                await self._video_up(message.data)
            elif isinstance(message, m.TextIn):
                await self._text_up(message.text)
            elif isinstance(message, m.AudioStreamEndIn):
                await self._stream_end_up()
            elif isinstance(message, m.PongIn):
                self._ponged(message.at)
            else:
                await self.browser.send(m.error("Already authenticated."))

    async def _audio_up(self, data_base64: str) -> None:
        upstream = self.upstream
        if upstream is None:
            self._pending_audio.append(data_base64)
            return
        try:
            await upstream.send_audio(data_base64)
        except Exception:
            # The connection is going; the upstream loop reconnects and sends this then.
            self._pending_audio.append(data_base64)

    async def _text_up(self, text: str) -> None:
        # Each typed turn has the model answer: a doctor's turns are limited per minute (across
        # sockets and replicas, in Redis). One past the limit is neither stored nor sent.
        limit, who = self.settings.rate_limit_live_turns, str(self.scope.account_id)
        if not await asyncio.to_thread(throttle.allow, "live-turns", limit, who):
            wait = await asyncio.to_thread(throttle.retry_after, "live-turns", limit, who)
            await self.browser.send(
                m.error(m.TURNS_TOO_FAST.format(wait=throttle.wait_text(wait)), m.TURNS_LIMITED)
            )
            return
        for event in self.wake.wake():
            await self._on_wake_event(event)
        self._store(self.lines.whole("user", text))
        await self._send_lines_closed()
        upstream = self.upstream
        if upstream is None:
            self._pending_texts.append(text)
            return
        try:
            await upstream.send_text(text)
        except Exception:
            self._pending_texts.append(text)

    # Video frames and stream ends are only worth sending live: while reconnecting they are dropped.

    async def _video_up(self, jpeg: bytes) -> None:
        if not self._video_allowed:
            if not self._video_refused:
                self._video_refused = True
                await self.browser.send(m.error(m.NO_CAMERA_IN_PLAN, m.CAMERA_NOT_IN_PLAN))
            return
        upstream = self.upstream
        if upstream is not None:
            with contextlib.suppress(Exception):
                await upstream.send_video(jpeg)

    async def _stream_end_up(self) -> None:
        upstream = self.upstream
        if upstream is not None:
            with contextlib.suppress(Exception):
                await upstream.send_audio_stream_end()


# Base64 of the URL-safe alphabet to the standard one (what browsers' atob() reads).
def _root_type(exc: BaseException) -> str:
    """The name of the error at the bottom of `exc`'s causes (e.g. ConnectionError): what failed,
    without the message, which could carry connection details."""
    while exc.__cause__ is not None:
        exc = exc.__cause__
    return type(exc).__name__


def _object(value: Any) -> dict[str, Any]:
    """A JSON object of a server message, or {} for anything else (absent, null, wrong type)."""
    return value if isinstance(value, dict) else {}


# The open consultations of this process: drained at shutdown, counted for the live-sessions gauge.
_running: set[LiveRelay] = set()


def open_consultations() -> Counter[str]:
    """Open consultations of this process by console."""
    return Counter(relay.profile.key for relay in list(_running))


async def drain(timeout_seconds: float) -> tuple[int, int]:
    """Ask every consultation on this event loop to end for a restart, and wait (at most
    `timeout_seconds`) until their transcripts are stored. Returns (asked, still open)."""
    loop = asyncio.get_running_loop()
    mine = {relay for relay in _running if relay.loop is loop}
    for relay in mine:
        relay.restart()
    deadline = loop.time() + timeout_seconds
    while mine & _running and loop.time() < deadline:
        await asyncio.sleep(0.05)
    return len(mine), len(mine & _running)
