/**
 * The control tray (spec §2): mic mute, transcription and summary panels,
 * the volume pulse, camera and screen share (only where the browser can),
 * and connect/disconnect. Toggles are aria-pressed buttons with a constant
 * name; the tooltip says what a click will do.
 */
import { useTranslation } from 'react-i18next';

import { CameraIcon, MicIcon, PowerIcon, ScreenIcon, SignalIcon, SummaryIcon, TranscriptIcon } from '@/components/ui/icons';
import type { Level } from '../audio/level';
import type { ConnectionState } from '../live/liveSocket';
import type { VideoKind } from '../video/useVideoSource';
import { useLevelVariable, VolumePulse } from './LevelMeter';

interface ControlTrayProps {
    state: ConnectionState;
    canConnect: boolean;
    muted: boolean;
    onToggleMute: () => void;
    inputLevel: Level;
    outputLevel: Level;
    speaking: boolean;
    transcriptionOpen: boolean;
    onToggleTranscription: () => void;
    summaryOpen: boolean;
    onToggleSummary: () => void;
    video: VideoKind | null;
    support: { camera: boolean; screen: boolean };
    onToggleVideo: (kind: VideoKind) => void;
    /** Low-bandwidth mode (smaller video, camera off by default, text if audio cannot get through). */
    lowBandwidth: boolean;
    onToggleLowBandwidth: () => void;
    onConnect: () => void;
    onDisconnect: () => void;
    panelIds: { transcription: string; summary: string };
}

export const ControlTray = (props: ControlTrayProps) => {
    const { t } = useTranslation('consoles');
    const { state, muted, video, support } = props;
    const micRing = useLevelVariable<HTMLButtonElement>(props.inputLevel);
    const busy = state === 'connecting' || state === 'reconnecting';
    const live = state === 'connected' || state === 'reconnecting';
    // Spec §2 tooltips; the button's name is the same text.
    const connectLabel = busy ? t('Connecting...') : live ? t('Disconnect from Cara') : t('Connect to Cara');

    return (
        <div className="control-tray" role="group" aria-label={t('Assistant controls')}>
            <div className="control-tray-group">
                <button
                    ref={micRing}
                    type="button"
                    className={`tray-btn mic-btn${muted ? ' is-muted' : ''}`}
                    aria-pressed={muted}
                    aria-label={t('Mute microphone')}
                    title={muted ? t('Unmute microphone') : t('Mute microphone')}
                    onClick={props.onToggleMute}
                >
                    <MicIcon off={muted} size={22} />
                </button>
                <button
                    type="button"
                    className="tray-btn"
                    aria-pressed={props.transcriptionOpen}
                    aria-controls={props.panelIds.transcription}
                    aria-label={t('Transcription panel')}
                    title={props.transcriptionOpen ? t('Hide transcription') : t('Show transcription')}
                    onClick={props.onToggleTranscription}
                >
                    <TranscriptIcon size={22} />
                </button>
                <button
                    type="button"
                    className="tray-btn"
                    aria-pressed={props.summaryOpen}
                    aria-controls={props.panelIds.summary}
                    aria-label={t('Summary panel')}
                    title={props.summaryOpen ? t('Hide summary') : t('Show summary')}
                    onClick={props.onToggleSummary}
                >
                    <SummaryIcon size={22} />
                </button>
                <VolumePulse level={props.outputLevel} active={props.speaking} />
                {support.camera && (
                    <button
                        type="button"
                        className="tray-btn"
                        aria-pressed={video === 'camera'}
                        aria-label={t('Camera')}
                        title={video === 'camera' ? t('Stop camera') : t('Start camera')}
                        onClick={() => props.onToggleVideo('camera')}
                        data-testid="camera-toggle"
                    >
                        <CameraIcon off={video !== 'camera'} size={22} />
                    </button>
                )}
                {support.screen && (
                    <button
                        type="button"
                        className="tray-btn"
                        aria-pressed={video === 'screen'}
                        aria-label={t('Screen sharing')}
                        title={video === 'screen' ? t('Stop sharing your screen') : t('Share your screen')}
                        onClick={() => props.onToggleVideo('screen')}
                    >
                        <ScreenIcon size={22} />
                    </button>
                )}
                <button
                    type="button"
                    className={`tray-btn${props.lowBandwidth ? ' is-low-bandwidth' : ''}`}
                    aria-pressed={props.lowBandwidth}
                    aria-label={t('Low-bandwidth mode')}
                    title={props.lowBandwidth ? t('Low-bandwidth mode is on: click to turn it off') : t('Turn low-bandwidth mode on')}
                    onClick={props.onToggleLowBandwidth}
                    data-testid="low-bandwidth"
                >
                    <SignalIcon low={props.lowBandwidth} size={22} />
                </button>
            </div>
            <button
                type="button"
                className={`tray-connect${live ? ' is-live' : ''}${busy ? ' is-busy' : ''}`}
                aria-label={connectLabel}
                title={connectLabel}
                aria-busy={busy || undefined}
                disabled={!props.canConnect && !live && !busy}
                onClick={live || busy ? props.onDisconnect : props.onConnect}
                data-testid="connect-button"
            >
                <PowerIcon size={22} />
                <span className="tray-connect-text" aria-hidden="true">
                    {connectLabel}
                </span>
            </button>
        </div>
    );
};
