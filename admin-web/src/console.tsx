import { StrictMode } from 'react';
import type { Root } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router-dom';
import { App } from './App';

/**
 * The console itself: react-admin, MUI and the screens, loaded by main.tsx
 * after the login screen (or at once when the page is not /admin/login).
 *
 * Real paths under /admin/ (the API answers index.html for any of them). A
 * data router, as react-admin would create itself for hash URLs, so features
 * that need one (navigation blocking) keep working.
 */
export const renderConsole = (root: Root): void => {
    const router = createBrowserRouter([{ path: '*', element: <App /> }], { basename: '/admin' });
    root.render(
        <StrictMode>
            <RouterProvider router={router} />
        </StrictMode>,
    );
};
