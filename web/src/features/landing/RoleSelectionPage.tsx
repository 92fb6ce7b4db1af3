import { useRef, useState, type ComponentType, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';

import { Button } from '@/components/ui/Button';
import { Logo } from '@/components/ui/Logo';
import { paths } from '@/config/paths';
import { CHOICES, type Choice } from './roles';

import './landing.css';

const DoctorIcon = () => (
    <svg viewBox="0 0 48 48" aria-hidden="true" focusable="false">
        <circle cx="24" cy="14" r="8" fill="none" stroke="currentColor" strokeWidth="3" />
        <path d="M8 42c0-9 7-15 16-15s16 6 16 15" fill="none" stroke="currentColor" strokeWidth="3" />
        <path d="M24 31v8M20 35h8" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
    </svg>
);

const HospitalIcon = () => (
    <svg viewBox="0 0 48 48" aria-hidden="true" focusable="false">
        <path d="M8 42V14h32v28M4 42h40" fill="none" stroke="currentColor" strokeWidth="3" />
        <path d="M24 19v12M18 25h12" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
        <path d="M20 42v-6h8v6" fill="none" stroke="currentColor" strokeWidth="3" />
    </svg>
);

const ICONS: Record<Choice, ComponentType> = { doctor: DoctorIcon, hospital: HospitalIcon };

/**
 * `/` and `/login`: choose Doctor or Hospital, then Next (spec §2). The cards
 * are a radio group after the WAI-ARIA pattern: one tab stop, arrow keys move
 * the choice (mirrored in right-to-left), Space or Enter chooses.
 */
const RoleSelectionPage = () => {
    const { t, i18n } = useTranslation('auth');
    const navigate = useNavigate();
    const [choice, setChoice] = useState<Choice | null>(null);
    const cards = useRef<(HTMLButtonElement | null)[]>([]);
    const selected = CHOICES.find(option => option.value === choice);

    const choose = (index: number) => {
        setChoice(CHOICES[index].value);
        cards.current[index]?.focus();
    };

    const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
        const current = Math.max(
            0,
            CHOICES.findIndex(option => option.value === choice),
        );
        const rtl = i18n.dir() === 'rtl';
        const forward = rtl ? 'ArrowLeft' : 'ArrowRight';
        const backward = rtl ? 'ArrowRight' : 'ArrowLeft';
        let next: number | null = null;
        if (event.key === forward || event.key === 'ArrowDown') next = (current + 1) % CHOICES.length;
        else if (event.key === backward || event.key === 'ArrowUp')
            next = (current - 1 + CHOICES.length) % CHOICES.length;
        else if (event.key === 'Home') next = 0;
        else if (event.key === 'End') next = CHOICES.length - 1;
        if (next === null) return;
        event.preventDefault();
        choose(next);
    };

    return (
        <main className="auth-page">
            <div className="card auth-card landing-card">
                <Logo />
                <h1>{t('Welcome to Cara')}</h1>
                <p className="auth-subtitle">{t('Your AI clinical assistant. Choose how you want to sign in.')}</p>

                <div className="role-cards" role="radiogroup" aria-label={t('Select your role')} onKeyDown={onKeyDown}>
                    {CHOICES.map((option, index) => {
                        const checked = option.value === choice;
                        const Icon = ICONS[option.value];
                        // One tab stop: the chosen card, or the first while none is chosen.
                        const tabbable = choice ? checked : index === 0;
                        return (
                            <button
                                key={option.value}
                                ref={element => {
                                    cards.current[index] = element;
                                }}
                                type="button"
                                role="radio"
                                aria-checked={checked}
                                aria-labelledby={`role-${option.value}-title`}
                                aria-describedby={`role-${option.value}-description`}
                                tabIndex={tabbable ? 0 : -1}
                                className="role-card"
                                onClick={() => choose(index)}
                                data-testid={`role-${option.value}`}
                            >
                                <span className="role-card-icon">
                                    <Icon />
                                </span>
                                <span className="role-card-title" id={`role-${option.value}-title`}>{t(option.title)}</span>
                                <span className="role-card-description" id={`role-${option.value}-description`}>
                                    {t(option.description)}
                                </span>
                            </button>
                        );
                    })}
                </div>

                <Button
                    className="btn-block"
                    disabled={!selected}
                    onClick={() => selected && navigate(selected.login)}
                >
                    {t('Next')}
                </Button>

                <section className="landing-register" aria-labelledby="landing-register-title">
                    <h2 id="landing-register-title">{t('New to Cara?')}</h2>
                    <div className="landing-register-links">
                        <Link to={paths.doctorRegister}>{t('Register as Doctor')}</Link>
                        <Link to={paths.hospitalRegister}>{t('Register as Hospital')}</Link>
                    </div>
                </section>
                <p className="landing-admin">
                    <Link to={paths.adminLogin}>{t('Administrator login')}</Link>
                </p>
            </div>
        </main>
    );
};

export default RoleSelectionPage;
