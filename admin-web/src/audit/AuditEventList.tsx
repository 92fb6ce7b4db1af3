import { DataTable, List, SearchInput } from 'react-admin';
import { LocalizedDate } from '../components/LocalizedDate';
import type { AuditEvent } from '../lib/api/records';

// The audit log is filtered by action only; its search box is that filter.
const filters = [<SearchInput key="action" source="action" alwaysOn />];

const Column = DataTable.Col<AuditEvent>;

export const AuditEventList = () => (
    <List filters={filters} sort={{ field: 'createdAt', order: 'DESC' }} perPage={50}>
        <DataTable bulkActionButtons={false}>
            <Column source="createdAt" render={event => <LocalizedDate value={event.createdAt} withTime />} />
            <Column source="action" />
            <Column source="actorEmail" disableSort />
            <Column source="actorRole" disableSort />
            <Column source="targetType" disableSort />
            <Column source="targetId" disableSort />
            <Column source="tenantSchema" disableSort />
        </DataTable>
    </List>
);
