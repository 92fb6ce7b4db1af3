import { useId, useRef, type KeyboardEvent, type ReactNode } from 'react';

/**
 * WAI-ARIA tabs with automatic activation: one tab stop (the selected tab),
 * arrow keys move and select (mirrored under right-to-left), Home and End
 * jump to the ends. Every panel stays mounted (hidden when not selected),
 * so work in progress in one (an upload) goes on while another is shown.
 */
export interface TabItem<Id extends string> {
    id: Id;
    label: string;
    /** Shown as a marker on the tab, and read out, when the panel holds errors. */
    errorCount?: number;
    errorLabel?: string;
}

export const Tabs = <Id extends string>({
    label,
    tabs,
    selected,
    onSelect,
    panels,
}: {
    label: string;
    tabs: readonly TabItem<Id>[];
    selected: Id;
    onSelect: (id: Id) => void;
    panels: Record<Id, ReactNode>;
}) => {
    const base = useId();
    const list = useRef<HTMLDivElement>(null);
    const tabId = (id: Id) => `${base}-tab-${id}`;
    const panelId = (id: Id) => `${base}-panel-${id}`;

    const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
        const index = tabs.findIndex(tab => tab.id === selected);
        const rtl = getComputedStyle(event.currentTarget).direction === 'rtl';
        const step = { ArrowRight: rtl ? -1 : 1, ArrowLeft: rtl ? 1 : -1 }[event.key];
        let next: number | undefined;
        if (step !== undefined) next = (index + step + tabs.length) % tabs.length;
        else if (event.key === 'Home') next = 0;
        else if (event.key === 'End') next = tabs.length - 1;
        if (next === undefined) return;
        event.preventDefault();
        onSelect(tabs[next].id);
        list.current?.querySelector<HTMLElement>(`#${CSS.escape(tabId(tabs[next].id))}`)?.focus();
    };

    return (
        <div className="profile-tabs">
            <div ref={list} className="profile-tablist" role="tablist" aria-label={label} onKeyDown={onKeyDown}>
                {tabs.map(tab => {
                    const active = tab.id === selected;
                    return (
                        <button
                            key={tab.id}
                            type="button"
                            role="tab"
                            id={tabId(tab.id)}
                            aria-selected={active}
                            aria-controls={panelId(tab.id)}
                            tabIndex={active ? 0 : -1}
                            className="profile-tab"
                            data-tab={tab.id}
                            onClick={() => onSelect(tab.id)}
                        >
                            {tab.label}
                            {tab.errorCount ? (
                                <span className="profile-tab-errors" data-testid="tab-errors">
                                    <span aria-hidden="true">{tab.errorCount}</span>
                                    <span className="visually-hidden">{tab.errorLabel}</span>
                                </span>
                            ) : null}
                        </button>
                    );
                })}
            </div>
            {tabs.map(tab => (
                <div
                    key={tab.id}
                    className="profile-tabpanel"
                    role="tabpanel"
                    id={panelId(tab.id)}
                    aria-labelledby={tabId(tab.id)}
                    hidden={tab.id !== selected}
                    tabIndex={0}
                    data-panel={tab.id}
                >
                    {panels[tab.id]}
                </div>
            ))}
        </div>
    );
};
