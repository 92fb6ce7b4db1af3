import { Suspense, useCallback, useEffect, useRef, useState } from 'react';

import { consentMandatory, openConsultation, type PatientReference } from './api';
import { ConsentDialog } from './ConsentDialog';

/**
 * The console's consent step: `request()` (from the Connect click) shows the
 * consent dialog; once the doctor confirmed and the server opened the
 * consultation, `start` receives its id. Cancelling starts nothing. Where the
 * tenant made consent not mandatory, the consultation opens without the
 * dialog (recorded as the tenant's policy); while that is unknown, or if it
 * fails, the dialog is shown.
 */
export const useConsent = (
    console: string,
    start: (consultationId: string) => void,
    /** The server could not be reached and the patient agreed to a recording on this device. */
    recordInstead?: (patientReference: PatientReference | null) => void,
) => {
    const [asking, setAsking] = useState(false);
    const mandatory = useRef(true);

    useEffect(() => {
        let cancelled = false;
        void consentMandatory().then(value => {
            if (!cancelled) mandatory.current = value;
        });
        return () => {
            cancelled = true;
        };
    }, []);

    const request = useCallback(() => {
        if (mandatory.current) {
            setAsking(true);
            return;
        }
        void openConsultation(console, null, false).then(result => {
            if (result.ok) start(result.data.id);
            else setAsking(true);
        });
    }, [console, start]);

    // The dialog's own Suspense boundary: were its texts still loading, only the
    // dialog waits for them. Left to the page's boundary (AppLayout), the wait
    // would unmount the whole console under preact/compat (it does not keep a
    // mounted tree's state through a suspension as React does), so the dialog
    // would vanish with the consent request, before the doctor could confirm.
    const dialog = asking ? (
        <Suspense fallback={null}>
            <ConsentDialog
                console={console}
                onConsented={id => {
                    setAsking(false);
                    start(id);
                }}
                onRecordInstead={
                    recordInstead &&
                    (patientReference => {
                        setAsking(false);
                        recordInstead(patientReference);
                    })
                }
                onCancel={() => setAsking(false)}
            />
        </Suspense>
    ) : null;
    return { request, dialog, asking };
};
