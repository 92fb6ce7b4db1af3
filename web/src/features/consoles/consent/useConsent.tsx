import { useCallback, useEffect, useRef, useState } from 'react';

import { consentMandatory, openConsultation } from './api';
import { ConsentDialog } from './ConsentDialog';

/**
 * The console's consent step: `request()` (from the Connect click) shows the
 * consent dialog; once the doctor confirmed and the server opened the
 * consultation, `start` receives its id. Cancelling starts nothing. Where the
 * tenant made consent not mandatory, the consultation opens without the
 * dialog (recorded as the tenant's policy); while that is unknown, or if it
 * fails, the dialog is shown.
 */
export const useConsent = (console: string, start: (consultationId: string) => void) => {
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

    const dialog = asking ? (
        <ConsentDialog
            console={console}
            onConsented={id => {
                setAsking(false);
                start(id);
            }}
            onCancel={() => setAsking(false)}
        />
    ) : null;
    return { request, dialog, asking };
};
