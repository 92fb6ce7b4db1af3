import { Box } from '@mui/material';
import { useEffect, type ReactNode } from 'react';
import {
    AppBar,
    Layout as RaLayout,
    LoadingIndicator,
    LocalesMenuButton,
    TitlePortal,
    ToggleThemeButton,
    UserMenu,
    useGetIdentity,
    useLogoutIfAccessDenied,
    useNotify,
} from 'react-admin';
import { session } from '../lib/session';
import { LogoMark } from './Logo';

/**
 * Who is signed in is asked of the server on every load: a token that no
 * longer works leads to the login page, a non-admin to the role selection
 * page (authProvider.getIdentity).
 */
const IdentityGuard = () => {
    const logoutIfAccessDenied = useLogoutIfAccessDenied();
    // Same freshness as react-admin's own user menu, so both share one request.
    useGetIdentity({ staleTime: 5 * 60 * 1000, onError: error => void logoutIfAccessDenied(error) });
    return null;
};

/** The welcome message of a sign-in on the login screen that main.tsx shows before the console. */
const Greeting = () => {
    const notify = useNotify();
    useEffect(() => {
        if (session.takeGreeting()) notify('cara.login.welcome', { type: 'success' });
    }, [notify]);
    return null;
};

const Toolbar = () => (
    <>
        <span data-testid="language-switcher">
            <LocalesMenuButton />
        </span>
        <ToggleThemeButton />
        <LoadingIndicator />
    </>
);

// The user menu's button shows the admin's name: its accessible name says the same.
const NamedUserMenu = () => {
    const { identity } = useGetIdentity();
    return <UserMenu label={identity?.fullName ?? 'ra.auth.user_menu'} />;
};

// The brand colour (design tokens), the logo mark before the page title.
const CaraAppBar = () => (
    <AppBar color="primary" toolbar={<Toolbar />} userMenu={<NamedUserMenu />}>
        <Box sx={{ display: 'flex', marginInlineEnd: 1 }}>
            <LogoMark size={28} inverse />
        </Box>
        <TitlePortal />
    </AppBar>
);

export const Layout = ({ children }: { children: ReactNode }) => (
    <RaLayout appBar={CaraAppBar}>
        <IdentityGuard />
        <Greeting />
        {children}
    </RaLayout>
);
