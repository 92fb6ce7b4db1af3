import { useLocaleState } from 'react-admin';
import { formatDate } from '../lib/format';

export const LocalizedDate = ({ value, withTime = false }: { value: unknown; withTime?: boolean }) => {
    const [locale] = useLocaleState();
    return <>{formatDate(value, locale, withTime)}</>;
};
