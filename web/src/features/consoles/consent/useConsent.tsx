import { useCallback, useState } from 'react';

import { ConsentDialog } from './ConsentDialog';

/**
 * The console's consent step: `request()` (from the Connect click) shows the
 * consent dialog; once the doctor confirmed and the server opened the
 * consultation, `start` receives its id. Cancelling starts nothing.
 */
export const useConsent = (console: string, start: (consultationId: string) => void) => {
    const [asking, setAsking] = useState(false);
    const request = useCallback(() => setAsking(true), []);
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
