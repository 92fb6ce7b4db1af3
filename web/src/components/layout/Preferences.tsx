import { useTranslation } from 'react-i18next';

import { changeLanguage, LANGUAGE_NAMES, LANGUAGES, type Language } from '@/lib/i18n/i18n';
import { useTheme } from '@/lib/theme';

/** Language choice (remembered) and the light/dark switch, on every screen. */
export const LanguageSelect = () => {
    const { t, i18n } = useTranslation();
    return (
        <label className="language-select">
            <span className="visually-hidden">{t('Select language')}</span>
            <select
                value={i18n.resolvedLanguage ?? 'en'}
                onChange={event => void changeLanguage(event.target.value as Language)}
                data-testid="language-select"
            >
                {LANGUAGES.map(language => (
                    <option key={language} value={language} lang={language}>
                        {LANGUAGE_NAMES[language]}
                    </option>
                ))}
            </select>
        </label>
    );
};

export const ThemeToggle = () => {
    const { t } = useTranslation();
    const [theme, toggle] = useTheme();
    const label = theme === 'dark' ? t('Switch to light theme') : t('Switch to dark theme');
    return (
        <button
            type="button"
            className="icon-btn"
            onClick={toggle}
            aria-label={label}
            title={label}
            data-testid="theme-toggle"
            aria-pressed={theme === 'dark'}
        >
            <span aria-hidden="true">{theme === 'dark' ? '☀' : '☾'}</span>
        </button>
    );
};

export const PreferencesBar = () => (
    <div className="preferences-bar">
        <LanguageSelect />
        <ThemeToggle />
    </div>
);
