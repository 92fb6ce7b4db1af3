import { useMemo } from 'react';
import { RouterProvider } from 'react-router';

import { ToastProvider } from '@/components/ui/Toasts';
import { SessionProvider } from '@/lib/session/SessionProvider';
import { createRouter } from './router';

export const App = () => {
    const router = useMemo(createRouter, []);
    return (
        <ToastProvider>
            <SessionProvider>
                <RouterProvider router={router} />
            </SessionProvider>
        </ToastProvider>
    );
};
