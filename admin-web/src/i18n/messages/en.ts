/**
 * The console's own texts in English. The other languages follow this shape
 * (checked by the type `ConsoleMessages`); react-admin's built-in texts come
 * from ra-language-* or from ra-*.ts beside this file.
 */
export const en = {
    cara: {
        app_title: 'Cara Admin',
        login: {
            title: 'Administrator sign in',
            subtitle: 'Cara platform console',
            email: 'Email',
            password: 'Password',
            submit: 'Sign in',
            submitting: 'Signing in...',
            welcome: 'Welcome back, Administrator!',
            failed: 'Failed to login. Please try again.',
            no_token: 'No token received in login response',
            back: 'Back to role selection',
        },
        validation: {
            email_required: 'Email is required',
            email_invalid: 'Invalid email format',
            password_required: 'Password is required',
            password_min_length: 'Password must be at least 8 characters long',
        },
        dashboard: {
            title: 'Overview',
            hospitals: 'Hospitals',
            doctors: 'Doctors',
            active_subscriptions: 'Active Subs',
            monthly_revenue: 'Monthly recurring revenue',
            monthly_revenue_hint: 'Annual plans / 12',
            revenue_growth: 'Revenue Growth',
            plan_distribution: 'Plan Distribution',
            revenue: 'Revenue',
            no_plans: 'No subscriptions yet',
            total_revenue: 'Total revenue',
            revenue_by_plan: 'Revenue by plan',
            subscriptions: 'Subscriptions',
            subscriptions_summary: '%{active} active, %{expired} expired, %{total} in all',
            loading: 'Loading statistics...',
            time_range: 'Time range',
            weekly: 'Weekly',
            monthly: 'Monthly',
            yearly: 'Yearly',
            as_of: 'As of %{time}',
            not_computed: 'Not computed yet',
        },
        plans: {
            trial: 'Trial',
            other: 'Other plan',
            'hospital-bronze': 'Hospital · Bronze',
            'hospital-silver': 'Hospital · Silver',
            'hospital-gold': 'Hospital · Gold',
            'doctor-basic': 'Doctor · Basic',
            'doctor-professional': 'Doctor · Professional',
        },
        status: {
            verified: 'Verified',
            pending: 'Pending',
            active: 'Active',
            suspended: 'Suspended',
            inactive: 'Inactive',
        },
        payment_status: {
            succeeded: 'Succeeded',
            pending: 'Pending',
            failed: 'Failed',
            refunded: 'Refunded',
            canceled: 'Canceled',
        },
        independent: 'Independent',
        actions: {
            verify: 'Verify',
            suspend: 'Suspend',
            reinstate: 'Reinstate',
            actions: 'Actions',
        },
        hospitals: {
            verified: 'Hospital verified',
            suspended: 'Hospital suspended',
            reinstated: 'Hospital reinstated',
            suspend_title: 'Suspend %{name}?',
            suspend_content:
                'Its staff and doctors will be signed out and refused until the hospital is reinstated.',
            reinstate_title: 'Reinstate %{name}?',
            reinstate_content: 'Its staff and doctors will be able to sign in again.',
        },
        doctors: {
            verified: 'Doctor verified',
        },
        specialties: {
            Radiologist: 'Radiologist',
            Radiotherapist: 'Radiotherapist',
            Cardiologist: 'Cardiologist',
            'General Practitioner': 'General Practitioner',
            Nurse: 'Nurse',
        },
        errors: {
            admin_unauthorized: 'Unauthorized: Please log in again',
            admin_forbidden: 'Forbidden: You do not have permission to access this resource',
            hospitals_failed: 'Failed to fetch hospitals',
            doctors_failed: 'Failed to fetch doctors',
            payments_unauthorized: 'Authentication failed. Please log in again.',
            payments_forbidden: 'You do not have permission to access this resource.',
            payments_failed: 'Failed to fetch payment history',
            load_failed: 'Failed to load the data',
            action_failed: 'The action failed. Please try again.',
        },
    },
    resources: {
        hospitals: {
            name: 'Hospital |||| Hospitals',
            fields: {
                q: 'Search',
                name: 'Name',
                email: 'Email',
                city: 'City',
                country: 'Country',
                isVerified: 'Status',
                status: 'Tenant status',
                doctorsCount: 'Doctors',
                createdAt: 'Registered',
            },
        },
        doctors: {
            name: 'Doctor |||| Doctors',
            fields: {
                q: 'Search',
                name: 'Name',
                email: 'Email',
                specialization: 'Specialization',
                hospitalName: 'Hospital',
                isVerified: 'Status',
                isActive: 'Account',
                createdAt: 'Registered',
            },
        },
        'payment-history': {
            name: 'Payment |||| Payments',
            fields: {
                q: 'Search',
                userName: 'User',
                plan: 'Plan',
                amount: 'Amount',
                status: 'Status',
                date: 'Date',
            },
        },
        'audit-events': {
            name: 'Audit log |||| Audit log',
            fields: {
                action: 'Action',
                actorEmail: 'Actor',
                actorRole: 'Role',
                targetType: 'Target type',
                targetId: 'Target',
                tenantSchema: 'Tenant',
                createdAt: 'When',
            },
        },
        'ai-usage': {
            name: 'AI usage |||| AI usage',
            fields: {
                name: 'Hospital',
                aiMinutes: 'AI minutes',
                tokens: 'Tokens',
                fromDate: 'Period',
                days: 'Period',
                today: 'Today',
                last7: 'Last 7 days',
                last30: 'Last 30 days',
            },
        },
    },
};

type Shape<T> = { [K in keyof T]: T[K] extends string ? string : Shape<T[K]> };

/** Every language provides every key of the English messages. */
export type ConsoleMessages = Shape<typeof en>;
