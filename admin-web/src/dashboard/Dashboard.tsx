import AttachMoneyIcon from '@mui/icons-material/AttachMoney';
import CardMembershipIcon from '@mui/icons-material/CardMembership';
import LocalHospitalIcon from '@mui/icons-material/LocalHospital';
import MedicalServicesIcon from '@mui/icons-material/MedicalServices';
import {
    Box,
    Card,
    CardContent,
    CardHeader,
    CircularProgress,
    LinearProgress,
    List,
    ListItem,
    ListItemText,
    ToggleButton,
    ToggleButtonGroup,
    Typography,
} from '@mui/material';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Title, useLocaleState, useTranslate } from 'react-admin';
import { isRightToLeft } from '../i18n/locales';
import type { TimeRange } from '../lib/dataProvider';
import { formatDollars } from '../lib/format';
import { StatCard } from './StatCard';
import { revenueLabels } from './stats';
import { useAdminStats, useSubscriptionAnalytics } from './useDashboardData';

// chart.js stays out of the entry chunk (spec: lazily loaded charts).
const RevenueChart = lazy(() => import('./Charts').then(module => ({ default: module.RevenueChart })));
const PlanDistributionChart = lazy(() =>
    import('./Charts').then(module => ({ default: module.PlanDistributionChart })),
);

const TIME_RANGES: TimeRange[] = ['weekly', 'monthly', 'yearly'];

/** Spec §9: chart height 300 px. */
const CHART_HEIGHT = 300;

const ChartCard = ({ title, testId, children }: { title: string; testId: string; children: ReactNode }) => (
    <Card data-testid={testId}>
        <CardHeader title={title} slotProps={{ title: { variant: 'h6', component: 'h2' } }} />
        <CardContent>
            <Box sx={{ position: 'relative', height: CHART_HEIGHT }}>
                <Suspense fallback={<CircularProgress size={24} />}>{children}</Suspense>
            </Box>
        </CardContent>
    </Card>
);

export const Dashboard = () => {
    const translate = useTranslate();
    const [locale] = useLocaleState();
    const rtl = isRightToLeft(locale);
    const [timeRange, setTimeRange] = useState<TimeRange>('weekly');
    const stats = useAdminStats(timeRange);
    const analytics = useSubscriptionAnalytics();

    const header = (
        <Box sx={{ display: 'flex', flexWrap: 'wrap', alignItems: 'center', justifyContent: 'space-between', gap: 2, my: 2 }}>
            <Typography variant="h5" component="h1">
                {translate('cara.dashboard.title')}
            </Typography>
            <ToggleButtonGroup
                size="small"
                exclusive
                value={timeRange}
                onChange={(_, value: TimeRange | null) => value && setTimeRange(value)}
                aria-label={translate('cara.dashboard.time_range')}
                data-testid="time-range"
            >
                {TIME_RANGES.map(range => (
                    <ToggleButton key={range} value={range}>
                        {translate(`cara.dashboard.${range}`)}
                    </ToggleButton>
                ))}
            </ToggleButtonGroup>
        </Box>
    );

    // Spec: a spinner until every load has finished.
    if (!stats.data || !analytics.data) {
        return (
            <Box>
                <Title title="cara.dashboard.title" />
                {header}
                <Box sx={{ display: 'flex', justifyContent: 'center', p: 6 }} data-testid="dashboard-loading">
                    <CircularProgress aria-label={translate('cara.dashboard.loading')} />
                </Box>
            </Box>
        );
    }

    const { data: current } = stats;
    const { data: subscriptions } = analytics;
    const revenuePlans = Object.entries(subscriptions.revenueByPlan);
    // Plan keys come from the server ('hospital-gold', 'doctor-basic', 'trial', ...); a plan
    // this console does not know yet keeps its key.
    const planLabel = (plan: string) => translate(`cara.plans.${plan}`, { _: plan });
    const asOf = current.computedAt
        ? translate('cara.dashboard.as_of', {
              time: new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(
                  new Date(current.computedAt),
              ),
          })
        : translate('cara.dashboard.not_computed');
    const asOfNote = (
        <Box component="time" dateTime={current.computedAt ?? undefined} data-testid="stats-as-of">
            {asOf}
        </Box>
    );

    return (
        <Box sx={{ pb: 3 }} data-testid="dashboard">
            <Title title="cara.dashboard.title" />
            {header}
            <Box sx={{ height: 4, mb: 1 }}>{stats.isFetching && <LinearProgress />}</Box>
            <Box
                sx={{
                    display: 'grid',
                    gap: 2,
                    gridTemplateColumns: { xs: '1fr', sm: 'repeat(2, 1fr)', lg: 'repeat(4, 1fr)' },
                }}
            >
                <StatCard
                    testId="stat-hospitals"
                    notes={[asOfNote]}
                    icon={LocalHospitalIcon}
                    title={translate('cara.dashboard.hospitals')}
                    value={current.totalHospitals}
                />
                <StatCard
                    testId="stat-doctors"
                    notes={[asOfNote]}
                    icon={MedicalServicesIcon}
                    title={translate('cara.dashboard.doctors')}
                    value={current.totalDoctors}
                />
                <StatCard
                    testId="stat-active-subscriptions"
                    notes={[asOfNote]}
                    icon={CardMembershipIcon}
                    title={translate('cara.dashboard.active_subscriptions')}
                    value={current.activeSubscriptions}
                />
                <StatCard
                    testId="stat-monthly-revenue"
                    notes={[translate('cara.dashboard.monthly_revenue_hint'), asOfNote]}
                    icon={AttachMoneyIcon}
                    title={translate('cara.dashboard.monthly_revenue')}
                    value={formatDollars(current.monthlyRevenue)}
                />
            </Box>
            <Box sx={{ display: 'grid', gap: 2, mt: 2, gridTemplateColumns: { xs: '1fr', md: '2fr 1fr' } }}>
                <ChartCard title={translate('cara.dashboard.revenue_growth')} testId="chart-revenue-growth">
                    <RevenueChart
                        labels={revenueLabels(current.revenue, locale)}
                        data={current.revenue.data}
                        seriesLabel={translate('cara.dashboard.revenue')}
                        rtl={rtl}
                    />
                </ChartCard>
                <ChartCard title={translate('cara.dashboard.plan_distribution')} testId="chart-plan-distribution">
                    <PlanDistributionChart byPlan={current.subscriptions.byPlan} planLabel={planLabel} rtl={rtl} />
                    {Object.keys(current.subscriptions.byPlan).length === 0 && (
                        <Typography
                            color="text.secondary"
                            sx={{ position: 'absolute', inset: 0, display: 'grid', placeItems: 'center' }}
                        >
                            {translate('cara.dashboard.no_plans')}
                        </Typography>
                    )}
                </ChartCard>
            </Box>
            <Card sx={{ mt: 2 }} data-testid="subscription-summary">
                <CardHeader
                    title={translate('cara.dashboard.subscriptions')}
                    subheader={translate('cara.dashboard.subscriptions_summary', current.subscriptions)}
                    slotProps={{ title: { variant: 'h6', component: 'h2' } }}
                />
                <CardContent sx={{ pt: 0 }}>
                    <Typography variant="body2">
                        {translate('cara.dashboard.total_revenue')}: {formatDollars(subscriptions.totalRevenue)}
                    </Typography>
                    {revenuePlans.length > 0 && (
                        <List dense aria-label={translate('cara.dashboard.revenue_by_plan')}>
                            {revenuePlans.map(([plan, amount]) => (
                                <ListItem key={plan} disableGutters>
                                    <ListItemText primary={planLabel(plan)} secondary={formatDollars(amount)} />
                                </ListItem>
                            ))}
                        </List>
                    )}
                </CardContent>
            </Card>
        </Box>
    );
};
