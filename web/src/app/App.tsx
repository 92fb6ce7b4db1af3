import { RouterProvider } from 'react-router';

import { ToastProvider } from '@/components/ui/Toasts';
import { SessionProvider } from '@/lib/session/SessionProvider';
import type { createRouter } from './router';

/** The app around a router made by createRouter() (main.tsx makes it before the translations load). */
export const App = ({ router }: { router: ReturnType<typeof createRouter> }) => {
    return (
        <ToastProvider>
            <SessionProvider>
                <RouterProvider router={router} />
            </SessionProvider>
        </ToastProvider>
    );
};
