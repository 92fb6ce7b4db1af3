import { DataTable, List, NumberField, SelectInput, useRecordContext } from 'react-admin';
import type { AiUsage } from '../lib/api/records';

// The period is counted back from today (UTC); the server keeps 40 days of counts.
const filters = [
    <SelectInput
        key="days"
        source="days"
        alwaysOn
        emptyText="resources.ai-usage.fields.last30"
        choices={[
            { id: 1, name: 'resources.ai-usage.fields.today' },
            { id: 7, name: 'resources.ai-usage.fields.last7' },
            { id: 30, name: 'resources.ai-usage.fields.last30' },
        ]}
    />,
];

const Column = DataTable.Col<AiUsage>;

const Period = () => {
    const usage = useRecordContext<AiUsage>();
    return usage ? (
        <span>
            {usage.fromDate} – {usage.toDate}
        </span>
    ) : null;
};

/** Live AI minutes and tokens per hospital (the independent doctors as one row), most tokens first. */
export const AiUsageList = () => (
    <List filters={filters} sort={{ field: 'tokens', order: 'DESC' }} perPage={25} exporter={false}>
        <DataTable bulkActionButtons={false}>
            <Column source="name" />
            <Column source="aiMinutes">
                <NumberField source="aiMinutes" options={{ maximumFractionDigits: 1 }} />
            </Column>
            <Column source="tokens">
                <NumberField source="tokens" />
            </Column>
            <Column source="fromDate" disableSort>
                <Period />
            </Column>
        </DataTable>
    </List>
);
