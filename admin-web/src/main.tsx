import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import { App } from './App';
import { applyDocumentLocale, detectLocale } from './i18n/locales';

// Before the first paint, so Arabic never flashes left to right.
applyDocumentLocale(detectLocale());

/**
 * Real paths under /admin/ (the API answers index.html for any of them). A
 * data router, as react-admin would create itself for hash URLs, so features
 * that need one (navigation blocking) keep working.
 */
const router = createBrowserRouter([{ path: '*', element: <App /> }], { basename: '/admin' });

createRoot(document.getElementById('root')!).render(
    <StrictMode>
        <RouterProvider router={router} />
    </StrictMode>,
);
