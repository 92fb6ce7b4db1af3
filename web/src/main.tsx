import { StrictMode, Suspense } from 'react';
import { createRoot } from 'react-dom/client';

import { App } from '@/app/App';
import { initI18n } from '@/lib/i18n/i18n';
import '@/styles.css';

const root = createRoot(document.getElementById('root') as HTMLElement);
// Translations first: no screen ever flashes untranslated keys.
void initI18n().then(() =>
    root.render(
        <StrictMode>
            <Suspense fallback={null}>
                <App />
            </Suspense>
        </StrictMode>,
    ),
);
