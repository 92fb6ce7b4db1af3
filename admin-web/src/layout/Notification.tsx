import { Notification as RaNotification } from 'react-admin';

/** App-shell toasts: bottom right, 3 s (spec §9). */
export const Notification = () => (
    <RaNotification autoHideDuration={3000} anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }} />
);
