import type { ReactNode } from 'react';
import {
    AppBar,
    Layout as RaLayout,
    LoadingIndicator,
    LocalesMenuButton,
    ToggleThemeButton,
    useGetIdentity,
    useLogoutIfAccessDenied,
} from 'react-admin';

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

const Toolbar = () => (
    <>
        <span data-testid="language-switcher">
            <LocalesMenuButton />
        </span>
        <ToggleThemeButton />
        <LoadingIndicator />
    </>
);

const CaraAppBar = () => <AppBar toolbar={<Toolbar />} />;

export const Layout = ({ children }: { children: ReactNode }) => (
    <RaLayout appBar={CaraAppBar}>
        <IdentityGuard />
        {children}
    </RaLayout>
);
