import type { ReactNode } from 'react';
import { Trans, useTranslation } from 'react-i18next';

import '../legal.css';

/**
 * The layout of the two legal pages: one h1, the 'last updated' line (today,
 * per spec §2, written the current language's way), a table of contents and
 * numbered sections with anchors so a section can be linked to directly.
 * Texts arrive translated; the pages build them with literal t() calls so
 * the translation check sees every key.
 */
export interface LegalSection {
    /** Anchor of the section (stable across languages). */
    id: string;
    title: string;
    paragraphs?: string[];
    items?: string[];
    /** Paragraphs after the list. */
    closing?: ReactNode[];
}

/** Today as YYYY-MM-DD in local time, for the machine-readable <time>. */
const isoDate = (date: Date): string =>
    [date.getFullYear(), String(date.getMonth() + 1).padStart(2, '0'), String(date.getDate()).padStart(2, '0')].join(
        '-',
    );

export const LegalPage = ({
    title,
    intro,
    sections,
    related,
}: {
    title: string;
    intro: string;
    sections: LegalSection[];
    /** A closing pointer to the other legal page. */
    related: ReactNode;
}) => {
    const { t, i18n } = useTranslation('legal');
    const today = new Date();
    const formatted = new Intl.DateTimeFormat(i18n.resolvedLanguage ?? 'en', { dateStyle: 'long' }).format(today);
    return (
        <main className="page page-narrow legal">
            <article>
                <header>
                    <h1>{title}</h1>
                    <p className="legal-updated" data-testid="legal-updated">
                        <Trans
                            t={t}
                            i18nKey="Last updated: <date>{{date}}</date>"
                            values={{ date: formatted }}
                            components={{ date: <time dateTime={isoDate(today)} /> }}
                        />
                    </p>
                    <p>{intro}</p>
                </header>
                <nav className="legal-contents" aria-labelledby="legal-contents-title">
                    <h2 id="legal-contents-title">{t('Contents')}</h2>
                    <ol>
                        {sections.map(section => (
                            <li key={section.id}>
                                <a href={`#${section.id}`}>{section.title}</a>
                            </li>
                        ))}
                    </ol>
                </nav>
                {sections.map((section, index) => (
                    <section key={section.id} id={section.id} aria-labelledby={`${section.id}-title`}>
                        <h2 id={`${section.id}-title`}>
                            {/* The number as the reader's locale writes it. */}
                            {new Intl.NumberFormat(i18n.resolvedLanguage ?? 'en').format(index + 1)}
                            {'. '}
                            {section.title}
                        </h2>
                        {section.paragraphs?.map(paragraph => (
                            <p key={paragraph}>{paragraph}</p>
                        ))}
                        {section.items && (
                            <ul>
                                {section.items.map(item => (
                                    <li key={item}>{item}</li>
                                ))}
                            </ul>
                        )}
                        {section.closing?.map((paragraph, position) => (
                            <p key={position}>{paragraph}</p>
                        ))}
                    </section>
                ))}
                <p className="legal-related">{related}</p>
            </article>
        </main>
    );
};
