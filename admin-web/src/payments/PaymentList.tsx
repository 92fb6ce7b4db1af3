import { DataTable, List, SearchInput, SelectInput } from 'react-admin';
import { LocalizedDate } from '../components/LocalizedDate';
import { PaymentStatusChip } from '../components/StatusChips';
import type { Payment } from '../lib/api/records';
import { formatDollars } from '../lib/format';

// Payment rows' amounts are in dollars.
const PAYMENT_STATUSES = ['succeeded', 'pending', 'failed', 'refunded', 'canceled'];

const filters = [
    <SearchInput key="q" source="q" alwaysOn />,
    <SelectInput
        key="status"
        source="status"
        choices={PAYMENT_STATUSES.map(status => ({ id: status, name: `cara.payment_status.${status}` }))}
    />,
];

const Column = DataTable.Col<Payment>;

export const PaymentList = () => (
    <List filters={filters} sort={{ field: 'date', order: 'DESC' }} perPage={25}>
        <DataTable bulkActionButtons={false}>
            <Column source="userName" />
            <Column source="plan" />
            <Column source="amount" align="right" render={payment => formatDollars(payment.amount)} />
            <Column source="status" render={payment => <PaymentStatusChip status={payment.status} />} />
            <Column source="date" render={payment => <LocalizedDate value={payment.date} />} />
        </DataTable>
    </List>
);
