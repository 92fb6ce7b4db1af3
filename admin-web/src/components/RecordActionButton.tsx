import { useMutation } from '@tanstack/react-query';
import { useState, type MouseEvent, type ReactElement } from 'react';
import {
    Button,
    Confirm,
    useDataProvider,
    useNotify,
    useRecordContext,
    useRefresh,
    type RaRecord,
} from 'react-admin';
import type { AdminDataProvider, RecordAction } from '../lib/dataProvider';
import { serverMessage } from '../lib/http';

export interface RecordActionButtonProps {
    resource: 'hospitals' | 'doctors';
    action: RecordAction;
    /** i18n key of the button text. */
    label: string;
    icon: ReactElement;
    /** i18n key of the success toast. */
    success: string;
    /** i18n keys of a confirmation dialog; none means no confirmation. */
    confirm?: { title: string; content: string };
    color?: 'primary' | 'secondary' | 'error' | 'success' | 'warning';
}

/**
 * One POST /api/admin/{resource}/{id}/{action} on the current record, then the
 * page's data is refetched and a toast says it worked. Used in list rows (the
 * click must not open the row) and in show pages.
 */
export const RecordActionButton = ({
    resource,
    action,
    label,
    icon,
    success,
    confirm,
    color = 'primary',
}: RecordActionButtonProps) => {
    const record = useRecordContext<RaRecord & { name?: string }>();
    const dataProvider = useDataProvider<AdminDataProvider>();
    const notify = useNotify();
    const refresh = useRefresh();
    const [confirming, setConfirming] = useState(false);

    const { mutate, isPending } = useMutation({
        mutationFn: (id: RaRecord['id']) => dataProvider.runAction(resource, id, action),
        onSuccess: () => {
            notify(success, { type: 'success' });
            refresh();
        },
        onError: error => {
            notify(serverMessage(error) ?? 'cara.errors.action_failed', { type: 'error' });
        },
        onSettled: () => setConfirming(false),
    });

    if (!record) return null;

    const run = () => mutate(record.id);
    const onClick = (event: MouseEvent) => {
        event.stopPropagation();
        if (confirm) setConfirming(true);
        else run();
    };

    // The dialog renders in a portal, but React still bubbles its clicks through
    // this component: stop them here so a list row does not open underneath.
    return (
        <span onClick={event => event.stopPropagation()}>
            <Button
                label={label}
                onClick={onClick}
                disabled={isPending}
                color={color}
                data-testid={`${action}-button`}
            >
                {icon}
            </Button>
            {confirm && (
                <Confirm
                    isOpen={confirming}
                    loading={isPending}
                    title={confirm.title}
                    titleTranslateOptions={{ name: record.name ?? '' }}
                    content={confirm.content}
                    confirm={label}
                    confirmColor="warning"
                    onConfirm={run}
                    onClose={() => setConfirming(false)}
                />
            )}
        </span>
    );
};
