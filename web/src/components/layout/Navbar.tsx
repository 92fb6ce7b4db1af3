import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, useLocation, useNavigate } from 'react-router';

import { paths } from '@/config/paths';
import { useClinicalAccess } from '@/lib/gating';
import { useSession } from '@/lib/session/SessionProvider';
import type { SessionUser } from '@/lib/session/storage';
import { LogoMark } from '../ui/Logo';
import { useToast } from '../ui/Toasts';
import { homePath, navigationFor } from './navigation';
import { LanguageSelect, ThemeToggle } from './Preferences';

/** Initials of the first letters of up to two name words (spec §2 "Navbar"). */
export const initials = (name: string): string =>
    name
        .trim()
        .split(/\s+/)
        .filter(Boolean)
        .slice(0, 2)
        .map(word => word[0]?.toUpperCase() ?? '')
        .join('');

const ProfileMenu = ({ user, reduced }: { user: SessionUser; reduced: boolean }) => {
    const { t } = useTranslation();
    const { signOut } = useSession();
    const notify = useToast();
    const navigate = useNavigate();
    const [open, setOpen] = useState(false);
    const roleLabel = (role: SessionUser['role']) =>
        ({ doctor: t('Doctor'), hospital: t('Hospital'), admin: t('Admin') })[role];
    const root = useRef<HTMLDivElement>(null);

    useEffect(() => {
        if (!open) return;
        const close = (event: MouseEvent | KeyboardEvent) => {
            if (event instanceof KeyboardEvent ? event.key === 'Escape' : !root.current?.contains(event.target as Node))
                setOpen(false);
        };
        document.addEventListener('mousedown', close);
        document.addEventListener('keydown', close);
        return () => {
            document.removeEventListener('mousedown', close);
            document.removeEventListener('keydown', close);
        };
    }, [open]);

    const logout = async () => {
        setOpen(false);
        await signOut();
        notify(t('Logged out successfully'), 'success');
        navigate(paths.roleSelection);
    };

    return (
        <div className="profile-menu" ref={root}>
            <button
                type="button"
                className="profile-trigger"
                aria-haspopup="menu"
                aria-expanded={open}
                onClick={() => setOpen(value => !value)}
                title={user.name}
                data-testid="profile-menu"
            >
                {user.profilePicture ? (
                    <img className="avatar" src={user.profilePicture} alt="" />
                ) : (
                    <span className="avatar avatar-initials" aria-hidden="true">
                        {initials(user.name)}
                    </span>
                )}
                <span className="profile-name">{user.name}</span>
            </button>
            {open && (
                <div className="menu" role="menu">
                    {!reduced && <div className="menu-header">{roleLabel(user.role).toUpperCase()}</div>}
                    {!reduced && (
                        <Link role="menuitem" className="menu-item" to={paths.profile} onClick={() => setOpen(false)}>
                            {t('Profile')}
                        </Link>
                    )}
                    {!reduced && user.role === 'admin' && (
                        <a role="menuitem" className="menu-item" href={paths.adminConsole}>
                            {t('Admin Panel')}
                        </a>
                    )}
                    <button type="button" role="menuitem" className="menu-item" onClick={() => void logout()}>
                        {t('Logout')}
                    </button>
                </div>
            )}
        </div>
    );
};

/** The top bar (spec §2 "Navbar"): links by role and specialty (`navigationFor`), the profile menu. */
export const Navbar = () => {
    const { t } = useTranslation();
    const { user } = useSession();
    const access = useClinicalAccess(user);
    // A doctor without an active (or trialing) subscription gets the reduced menu.
    const reduced = user?.role === 'doctor' && access.state !== 'allowed';
    // Below 1200 px the links and preferences fold behind a menu button (styles.css).
    const [menuOpen, setMenuOpen] = useState(false);
    const menuId = useId();
    const toggleRef = useRef<HTMLButtonElement>(null);
    const collapseRef = useRef<HTMLDivElement>(null);
    const { pathname } = useLocation();
    useEffect(() => setMenuOpen(false), [pathname]);
    useEffect(() => {
        if (!menuOpen) return;
        const onKey = (event: KeyboardEvent) => {
            if (event.key !== 'Escape') return;
            setMenuOpen(false);
            toggleRef.current?.focus();
        };
        const onDown = (event: MouseEvent) => {
            const target = event.target as Node;
            if (!collapseRef.current?.contains(target) && !toggleRef.current?.contains(target)) setMenuOpen(false);
        };
        document.addEventListener('keydown', onKey);
        document.addEventListener('mousedown', onDown);
        return () => {
            document.removeEventListener('keydown', onKey);
            document.removeEventListener('mousedown', onDown);
        };
    }, [menuOpen]);

    return (
        <header className="navbar">
            <nav className="navbar-inner" aria-label={t('Main')}>
                <Link className="brand" to={user ? homePath(user) : paths.roleSelection}>
                    <LogoMark size={30} />
                    Cara
                </Link>
                <button
                    ref={toggleRef}
                    type="button"
                    className="nav-toggle icon-btn"
                    aria-expanded={menuOpen}
                    aria-controls={menuId}
                    aria-label={t('Menu')}
                    onClick={() => setMenuOpen(open => !open)}
                    data-testid="nav-toggle"
                >
                    <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
                        <path
                            d={menuOpen ? 'M6 6l12 12M18 6L6 18' : 'M4 7h16M4 12h16M4 17h16'}
                            stroke="currentColor"
                            strokeWidth="2"
                            strokeLinecap="round"
                        />
                    </svg>
                </button>
                <div id={menuId} ref={collapseRef} className="nav-collapse" data-open={menuOpen}>
                    {user && (
                        <ul className="nav-links">
                            {navigationFor(user, t).map(item => (
                                <li key={item.id}>
                                    {/* The menu closes on any link, the current page's too. */}
                                    <NavLink to={item.to} data-nav={item.id} onClick={() => setMenuOpen(false)}>
                                        {item.label}
                                    </NavLink>
                                </li>
                            ))}
                        </ul>
                    )}
                    <div className="navbar-end">
                        <LanguageSelect />
                        <ThemeToggle />
                        {user ? (
                            <ProfileMenu user={user} reduced={reduced} />
                        ) : (
                            <Link className="btn btn-secondary" to={paths.roleSelection}>
                                {t('Login')}
                            </Link>
                        )}
                    </div>
                </div>
            </nav>
        </header>
    );
};
