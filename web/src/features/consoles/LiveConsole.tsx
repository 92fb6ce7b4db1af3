/**
 * A live assistant console (spec §2 "Assistant console screens"). This is
 * the generic console; each specialty route renders it with its profile
 * (consoles.ts), and the server builds the assistant from the console's name.
 *
 * What happens where:
 * - the socket, its states and the transcript: live/liveSocket.ts, rendered
 *   by live/useLiveSession.ts;
 * - microphone (AudioWorklet, 16 kHz PCM16, 2048-sample chunks):
 *   audio/microphone.ts, streamed by audio/useMicStream.ts while connected
 *   and not muted;
 * - the assistant's voice (24 kHz, gapless, 0.1 s fade on `interrupted`):
 *   audio/playback.ts through audio/useAudioOut.ts; one AudioContext, created
 *   on the Connect click so the browser's autoplay rules allow it;
 * - camera or screen share: video/useVideoSource.ts, and a JPEG frame every
 *   2 s: video/useVideoFrames.ts.
 *
 * The root element carries data attributes for the browser tests (state,
 * audio chunks sent, playback buffers scheduled, video frames sent).
 */
import { useCallback, useEffect, useId, useMemo, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { Alert } from '@/components/ui/Alert';
import { paths } from '@/config/paths';
import { sessionStore } from '@/lib/session/storage';
import { useLiveStatus, type SummaryLine } from './api';
import { createLevel } from './audio/level';
import type { CaptureError } from './audio/microphone';
import { opusSupported } from './audio/opus';
import { playSound } from './audio/sounds';
import { useAudioOut } from './audio/useAudioOut';
import { useMicStream } from './audio/useMicStream';
import { CaptureQueue, type RecordRequest } from './capture/CaptureQueue';
import { ConsoleToasts } from './components/ConsoleToasts';
import { ControlTray } from './components/ControlTray';
import { LevelBox } from './components/LevelMeter';
import { OfflineAudioNotice, ReconnectNotice } from './components/ReconnectNotice';
import { SummaryPanel } from './components/SummaryPanel';
import { TranscriptionPanel } from './components/TranscriptionPanel';
import { VoiceAssistantPanel } from './components/VoiceAssistantPanel';
import { useConsent } from './consent/useConsent';
import type { ConsoleProfile } from './consoles';
import { StudyUpload } from './imaging/StudyUpload';
import { useLowBandwidth } from './live/bandwidth';
import { useUplink } from './live/uplink';
import { useLiveSession } from './live/useLiveSession';
import { useVideoFrames } from './video/useVideoFrames';
import { useVideoSource, videoSupport, type VideoKind } from './video/useVideoSource';

import './consoles.css';

/** The error frame's code when the plan leaves out camera and screen sharing (live/messages.py). */
const CAMERA_NOT_IN_PLAN = 'camera_not_in_plan';

const NOT_CONFIGURED = 'The AI service is not configured. Please contact your administrator.';

/** `extra`: a console's own section under the stage, given the open consultation (the
 * radiotherapist's plan review); its texts are in the 'plans' namespace, loaded with the console's. */
interface ConsoleProps {
    profile: ConsoleProfile;
    extra?: (consultationId: string | null) => ReactNode;
}

export const LiveConsole = ({ profile, extra }: ConsoleProps) => (
    <ConsoleToasts>
        <ConsoleScreen profile={profile} extra={extra} />
    </ConsoleToasts>
);

const ConsoleScreen = ({ profile, extra }: ConsoleProps) => {
    // 'consultations' too: the consent dialog's texts are there before the first Connect click.
    // 'capture' is its panels' (loaded here, before anything mounts: a panel suspending later
    // would make Preact's Suspense mount the console again, repeating its status read); 'plans'
    // likewise for `extra`.
    const { t } = useTranslation(['consoles', 'consultations', 'capture', ...(extra ? ['plans'] : [])]);
    const liveStatus = useLiveStatus();
    const root = useRef<HTMLElement>(null);
    const inputLevel = useMemo(createLevel, []);
    const outputLevel = useMemo(createLevel, []);
    const [muted, setMuted] = useState(false);
    const [mediaError, setMediaError] = useState<CaptureError | null>(null);
    const [transcriptionOpen, setTranscriptionOpen] = useState(false);
    const [summaryOpen, setSummaryOpen] = useState(false);
    const ids = { transcription: useId(), summary: useId() };
    const support = useMemo(videoSupport, []);

    // Test hooks and styling hooks, written straight to the element (they change many times a second).
    const mark = useCallback((name: string, value: string | number | boolean) => {
        if (root.current) root.current.dataset[name] = String(value);
    }, []);

    const out = useAudioOut(mark, outputLevel);
    const { audio, speaking } = out;

    // Opus both ways where WebCodecs can (a tenth of the bandwidth); base64 PCM in JSON otherwise.
    const [opus, setOpus] = useState(false);
    useEffect(() => {
        let current = true;
        void opusSupported().then(ok => current && setOpus(ok));
        return () => {
            current = false;
        };
    }, []);
    const session = useLiveSession(profile.key, {
        onAudio: out.onAudio,
        onAudioPacket: out.onAudioPacket,
        onInterrupted: out.stopReply,
        onTurnComplete: out.onTurnComplete,
        onConnected: () => playSound('connect'),
        onDisconnected: () => {
            out.stop();
            playSound('disconnect');
        },
        onFailed: () => playSound('error'),
        // The reply in progress when the link dropped is stale by the time it is back.
        onDropped: out.stopReply,
        onUnauthorized: () => {
            // Like a 401 from the HTTP client: the session is over.
            sessionStore.clear();
            window.location.assign(paths.login);
        },
    }, { opus });
    const { state } = session;
    const connected = state === 'connected';
    const live = connected || state === 'reconnecting';

    // Microphone: streams while connected (or while the server renews its connection) and not muted.
    const bandwidth = useLowBandwidth(session.weak);
    const textOnly = bandwidth.textOnly;
    useMicStream({
        enabled: live && !muted && !textOnly,
        audioMode: session.audioMode,
        audio,
        sendAudio: session.sendAudio,
        sendAudioEnd: session.sendAudioEnd,
        level: inputLevel,
        mark,
        onStarted: () => setMediaError(null),
        onFailed: error => {
            setMediaError(error);
            setMuted(true);
        },
    });

    // Camera or screen: preview always, one JPEG frame every 2 s while connected.
    const video = useVideoSource(setMediaError);
    // The camera steps down (small frames, then none) as the link's measured delay grows.
    const uplink = useUplink(session.linkDelayMs, connected);
    const videoElement = useVideoFrames(video, {
        connected,
        lowBandwidth: bandwidth.low,
        small: uplink === 'low',
        paused: uplink === 'paused',
        sendVideo: session.sendVideo,
        mark,
    });

    // The plan does not include camera and screen sharing: the server dropped the frames and said
    // so once; stop sending them (the notice explains, with a link to the plans).
    const refusedCamera = session.notice?.code === CAMERA_NOT_IN_PLAN;
    const stopVideo = video.stop;
    useEffect(() => {
        if (refusedCamera) stopVideo();
    }, [refusedCamera, stopVideo]);

    const toggleVideo = (kind: VideoKind) => {
        if (video.kind === kind) video.stop();
        else void video.start(kind); // starting one stops the other
    };

    /** `consultationId`: the consultation the doctor opened (after the patient's consent), if any. */
    const connect = (consultationId?: string) => {
        audio(); // inside the click: the browser lets this context play sound
        setMediaError(null);
        session.connect(consultationId);
    };
    // Nothing is captured or relayed before the doctor confirmed the patient's consent (issue 16).
    // With the server out of reach, the consent dialog offers to record on this device instead.
    const [recordRequest, setRecordRequest] = useState<RecordRequest | null>(null);
    const consent = useConsent(
        profile.key,
        consultationId => connect(consultationId),
        patientReference => setRecordRequest({ patientReference }),
    );
    const startConsultation = () => {
        audio(); // inside the click, as in connect()
        consent.request();
    };
    const disconnect = () => {
        session.disconnect();
        video.stop();
    };

    const notConfigured = liveStatus !== null && !liveStatus.configured;
    const demo = Boolean(liveStatus?.demo) || session.demo;
    const transcript: SummaryLine[] = useMemo(
        () => [
            ...session.lines.map(({ speaker, text }) => ({ speaker, text })),
            ...(['user', 'assistant'] as const)
                .filter(speaker => session.interim[speaker]?.text)
                .map(speaker => ({ speaker, text: session.interim[speaker]!.text })),
        ],
        [session.lines, session.interim],
    );

    const statusText = {
        disconnected: t('Click to connect to Cara'),
        connecting: t('Attempting to connect to Cara...'),
        connected: t('Connected to Cara. You can now give voice commands.'),
        reconnecting: t('Reconnecting to Cara...'),
        error: t('Connection failed: {{message}}', { message: t(session.error ?? 'Connection closed') }),
    }[state];

    const wakeText = session.awake ? t('Cara is listening.') : t("Cara is asleep. Say 'Hey Cara' to wake her.");

    return (
        <main
            ref={root}
            className={`page page-console live-console console-${profile.key}`}
            data-testid="live-console"
            data-console={profile.key}
            data-state={state}
            data-consultation={session.consultationId ?? ''}
            data-audio={session.audioMode}
            data-low-bandwidth={bandwidth.low}
            data-uplink={uplink}
            data-link-delay={session.linkDelayMs ?? ''}
        >
            <header className="console-header">
                <div className="console-heading">
                    <h1>{t(profile.title)}</h1>
                    {demo && (
                        <span
                            className="console-badge console-badge-demo"
                            data-testid="demo-badge"
                            title={t('Replies come from the local demo peer, not from an AI model.')}
                        >
                            {t('Demo AI — not a medical model')}
                        </span>
                    )}
                </div>
                <p className="console-intro">{t(profile.intro)}</p>
                {profile.wakePhrase && (
                    <p className="console-hint">
                        {t("Say 'Hey Cara' to activate the assistant.")}
                        {profile.obeysSleep && ` ${t("Say 'Go to sleep' to silence it.")}`}
                    </p>
                )}
            </header>

            {notConfigured && (
                <Alert kind="warning" title={t('AI service not configured')}>
                    <p data-testid="not-configured">{t(liveStatus?.message || NOT_CONFIGURED)}</p>
                </Alert>
            )}

            <div className="console-status-row">
                <p className={`console-status status-${state}`} role="status" data-testid="console-status">
                    {statusText}
                </p>
                {session.weak && (
                    <p className="console-weak" role="status" data-testid="weak-connection">
                        {t('Weak connection')}
                    </p>
                )}
                {!session.weak && connected && video.stream && uplink === 'paused' && (
                    <p className="console-weak" role="status" data-testid="camera-paused">
                        {t('Weak connection — camera paused')}
                    </p>
                )}
                {connected && session.wakePhraseRequired && (
                    <p
                        className={`console-wake${session.awake ? ' is-awake' : ''}`}
                        aria-live="polite"
                        data-testid="wake-status"
                        data-awake={session.awake}
                    >
                        {wakeText}
                    </p>
                )}
            </div>
            {state === 'reconnecting' && (
                <ReconnectNotice retryAt={session.retryAt} onRetry={session.retryNow} />
            )}
            <OfflineAudioNotice {...session.offlineAudio} />
            <CaptureQueue
                console={profile.key}
                linkDown={state === 'error' || state === 'reconnecting'}
                liveBusy={live || state === 'connecting'}
                recordRequest={recordRequest}
                onRecordRequest={() => setRecordRequest(null)}
            />
            {textOnly && live && (
                <p className="console-notice" role="status" data-testid="text-only">
                    {t('The connection cannot carry audio right now: type your questions below.')}
                </p>
            )}
            {session.notice && (
                <Alert kind="warning" onClose={session.dismissNotice}>
                    <p data-testid="live-notice">{t(session.notice.message)}</p>
                    {session.notice.code === CAMERA_NOT_IN_PLAN && (
                        <p>
                            <Link to={paths.doctorSubscription}>{t('View plans')}</Link>
                        </p>
                    )}
                </Alert>
            )}
            {mediaError && (
                <Alert kind="error" onClose={() => setMediaError(null)}>
                    <p data-testid="media-error">{t(mediaError.message, { code: mediaError.code ?? '' })}</p>
                </Alert>
            )}

            <div className="console-body">
                <section className="console-stage" aria-label={t('Assistant')}>
                    <LevelBox
                        level={outputLevel}
                        className={`assistant-orb${speaking ? ' is-speaking' : ''}${live ? ' is-live' : ''}`}
                    >
                        <span className="assistant-orb-core" />
                    </LevelBox>
                    <video
                        ref={videoElement}
                        className="console-video"
                        hidden={!video.stream}
                        autoPlay
                        muted
                        playsInline
                        aria-label={video.kind === 'screen' ? t('Your shared screen') : t('Your camera')}
                        data-testid="console-video"
                    />
                </section>

                {/* After the stage: docked beside it on a desktop, a bottom bar on a phone (consoles.css). */}
                <ControlTray
                    state={state}
                    canConnect={!notConfigured}
                    muted={muted}
                    onToggleMute={() => setMuted(value => !value)}
                    inputLevel={inputLevel}
                    outputLevel={outputLevel}
                    speaking={speaking}
                    transcriptionOpen={transcriptionOpen}
                    onToggleTranscription={() => setTranscriptionOpen(open => !open)}
                    summaryOpen={summaryOpen}
                    onToggleSummary={() => setSummaryOpen(open => !open)}
                    video={video.kind}
                    support={support}
                    onToggleVideo={toggleVideo}
                    lowBandwidth={bandwidth.low}
                    onToggleLowBandwidth={() => bandwidth.choose(!bandwidth.low)}
                    onConnect={startConsultation}
                    onDisconnect={disconnect}
                    panelIds={ids}
                />

                <VoiceAssistantPanel
                    lines={session.lines}
                    interim={session.interim}
                    listening={live && !muted}
                    connected={connected}
                    inputLevel={inputLevel}
                    onMicrophone={() => {
                        if (!live) {
                            setMuted(false);
                            startConsultation();
                        } else setMuted(value => !value);
                    }}
                    onAsk={text => session.sendText(text)}
                />

                <div className="console-panels" data-open={transcriptionOpen || summaryOpen}>
                    <TranscriptionPanel
                        id={ids.transcription}
                        open={transcriptionOpen}
                        lines={session.lines}
                        interim={session.interim}
                        onClose={() => setTranscriptionOpen(false)}
                    />
                    {/* Kept mounted while hidden: closing the panel must not lose a generated summary.
                        A new consultation starts with none (spec §4), hence the key. */}
                    <SummaryPanel
                        key={session.epoch}
                        id={ids.summary}
                        open={summaryOpen}
                        transcript={transcript}
                        connected={connected}
                        generic={profile.generic}
                        consultationId={session.consultationId}
                        onClose={() => setSummaryOpen(false)}
                    />
                </div>
            </div>

            {profile.key === 'radiologist' && <StudyUpload consultationId={session.consultationId} />}
            {extra?.(session.consultationId ?? null)}

            {consent.dialog}
        </main>
    );
};
