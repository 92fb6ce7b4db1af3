/**
 * The assistant consoles (spec §2 "Assistant console screens"). `key` is the
 * server's console name (`/api/live?specialty=`), which builds the assistant's
 * instructions, voice and tools itself: the browser only chooses a console.
 * `title` and `intro` are English translation keys of the `consoles` namespace.
 */
export type ConsoleKey = 'radiologist' | 'radiotherapist' | 'cardiologist' | 'general-practitioner' | 'nurse' | 'generic';

export interface ConsoleProfile {
    key: ConsoleKey;
    title: string;
    intro: string;
    /** 'Hey Cara' wakes the assistant (the specialty consoles; the generic one is always awake). */
    wakePhrase: boolean;
    /** 'Go to sleep' silences it until the next 'Hey Cara' (cardiology and primary care). */
    obeysSleep: boolean;
    /**
     * The generic console's request behaviour (spec §5): summary and report buttons work whenever
     * connected and warn by toast when there is nothing to summarise; the specialty consoles disable
     * them until there is a conversation.
     */
    generic: boolean;
}

export const CONSOLES: Record<ConsoleKey, ConsoleProfile> = {
    radiologist: {
        key: 'radiologist',
        title: 'Radiology Assistant',
        intro: 'Show an image with the camera or by sharing your screen, and ask Cara to review it or to draft the report.',
        wakePhrase: true,
        obeysSleep: false,
        generic: false,
    },
    radiotherapist: {
        key: 'radiotherapist',
        title: 'Radiotherapy Assistant',
        intro: 'Review a treatment plan with Cara: dose constraints, DVH metrics, fractionation and plan adaptation.',
        wakePhrase: true,
        obeysSleep: false,
        generic: false,
    },
    cardiologist: {
        key: 'cardiologist',
        title: 'Cardiology Assistant',
        intro: 'Discuss a case with Cara: history, ECG, echocardiography, biomarkers and next steps.',
        wakePhrase: true,
        obeysSleep: true,
        generic: false,
    },
    'general-practitioner': {
        key: 'general-practitioner',
        title: 'Primary Care Assistant',
        intro: 'Discuss a case with Cara: symptoms, examination, results, red flags and management in primary care.',
        wakePhrase: true,
        obeysSleep: true,
        generic: false,
    },
    nurse: {
        key: 'nurse',
        title: 'Nursing Assistant',
        intro: 'Ask Cara about assessment, triage, care plans, medication checks and patient education.',
        wakePhrase: true,
        obeysSleep: false,
        generic: false,
    },
    generic: {
        key: 'generic',
        title: 'Clinical Assistant',
        intro: 'Talk with Cara, then ask for a concise summary or a report draft of the conversation.',
        wakePhrase: false,
        obeysSleep: false,
        generic: true,
    },
};
