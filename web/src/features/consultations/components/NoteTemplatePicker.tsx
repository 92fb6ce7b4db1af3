import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/Button';
import { listTemplates, type NoteTemplate } from '../api';

/**
 * The template the note is written in (the console's default first) and the button that has
 * Cara write the note in it from the stored transcript. The list comes from the server, which
 * also checks the choice.
 */
export const NoteTemplatePicker = ({
    console: consoleKey,
    busy,
    disabled,
    onWrite,
    onLoaded,
}: {
    console: string;
    busy: boolean;
    disabled: boolean;
    onWrite: (template: NoteTemplate) => void;
    onLoaded?: (templates: readonly NoteTemplate[]) => void;
}) => {
    const { t } = useTranslation('consultations');
    const [templates, setTemplates] = useState<readonly NoteTemplate[] | null>(null);
    const [failed, setFailed] = useState(false);
    const [chosen, setChosen] = useState('');

    useEffect(() => {
        let live = true;
        void listTemplates(consoleKey).then(result => {
            if (!live) return;
            if (!result.ok) {
                setFailed(true);
                return;
            }
            setTemplates(result.data);
            setChosen(result.data[0]?.id ?? '');
            onLoaded?.(result.data);
        });
        return () => {
            live = false;
        };
    }, [consoleKey, onLoaded]);

    if (failed) return <p className="cons-muted">{t('Templates could not be loaded.')}</p>;
    const template = templates?.find(item => item.id === chosen);
    return (
        <div className="cons-template" data-testid="note-template">
            <label className="cons-template-label">
                <span>{t('Template')}</span>
                <select
                    value={chosen}
                    onChange={event => setChosen(event.target.value)}
                    disabled={!templates || busy}
                    data-testid="note-template-select"
                >
                    {(templates ?? []).map(item => (
                        <option key={item.id} value={item.id}>
                            {t(item.title)}
                        </option>
                    ))}
                </select>
            </label>
            <Button
                busy={busy}
                disabled={disabled || !template}
                onClick={() => template && onWrite(template)}
                data-testid="write-note"
            >
                {t('Write the note')}
            </Button>
        </div>
    );
};
