import { StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from '@/app/App';
import { createRouter, namespacesFor } from '@/app/router';
import { initI18n } from '@/lib/i18n/i18n';
import { registerServiceWorker } from '@/lib/offline/serviceWorker';
import '@/styles.css';

const root = createRoot(document.getElementById('root') as HTMLElement);
// The first page's chunk and its translations load side by side (on a slow link each
// round trip waited for the one before); nothing renders before the translations, so no
// screen ever flashes untranslated keys.
const router = createRouter();
void initI18n(namespacesFor(window.location.pathname)).then(() =>
    root.render(
        <StrictMode>
            <Suspense fallback={null}>
                <App router={router} />
            </Suspense>
        </StrictMode>,
    ),
);
registerServiceWorker();
