import { useId, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/Button';
import { PlusIcon } from '@/components/ui/icons';
import type { DoctorLimitState } from '../useDoctorLimit';

/**
 * An add-a-doctor button that says, in its tooltip (hover and keyboard focus, and its
 * accessible description), what a click will do or why it cannot: disabled while the limit
 * is checked and when no doctor can be added. It stays focusable (aria-disabled), so the
 * reason can be read.
 */
export const AddDoctorButton = ({
    limit,
    busy = false,
    onAdd,
    variant,
    children,
    testId,
}: {
    limit: DoctorLimitState;
    busy?: boolean;
    onAdd: () => void;
    variant?: 'secondary';
    children: ReactNode;
    testId?: string;
}) => {
    const { t } = useTranslation('hospitals');
    const tooltipId = useId();
    const disabled = limit.checking || !limit.canAdd || busy;
    const tooltip = limit.checking
        ? t('Checking limit...')
        : limit.reason
          ? t(limit.reason)
          : t('Add a new doctor to your hospital');
    return (
        <span className="hosp-tip">
            <Button
                variant={variant}
                aria-disabled={disabled || undefined}
                aria-describedby={tooltipId}
                className={disabled ? 'hosp-btn-disabled' : undefined}
                onClick={() => {
                    if (!disabled) onAdd();
                }}
                data-testid={testId}
            >
                <PlusIcon />
                {children}
            </Button>
            <span role="tooltip" id={tooltipId} className="hosp-tip-text">
                {tooltip}
            </span>
        </span>
    );
};
