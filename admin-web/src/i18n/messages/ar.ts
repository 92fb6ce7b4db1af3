import type { ConsoleMessages } from './en';

/*
 * Polyglot's Arabic plural rule has six forms (0, 1, 2, 3-10, 11-99, 100+);
 * react-admin asks for a resource name with smart_count 1 (singular) or 2
 * (list titles), so the "two" form holds the plural, as a title reads.
 */
const plural = (one: string, many: string) => [many, one, many, many, many, many].join(' |||| ');

export const ar: ConsoleMessages = {
    cara: {
        app_title: 'إدارة كارا',
        login: {
            title: 'تسجيل دخول المسؤول',
            subtitle: 'وحدة تحكم منصة كارا',
            email: 'البريد الإلكتروني',
            password: 'كلمة المرور',
            submit: 'تسجيل الدخول',
            submitting: 'جارٍ تسجيل الدخول...',
            welcome: 'مرحبًا بعودتك أيها المسؤول!',
            failed: 'فشل تسجيل الدخول. يرجى المحاولة مرة أخرى.',
            no_token: 'لم يتم استلام رمز في استجابة تسجيل الدخول',
            back: 'العودة إلى اختيار الدور',
        },
        validation: {
            email_required: 'البريد الإلكتروني مطلوب',
            email_invalid: 'صيغة البريد الإلكتروني غير صالحة',
            password_required: 'كلمة المرور مطلوبة',
            password_min_length: 'يجب أن تتكون كلمة المرور من 8 أحرف على الأقل',
        },
        dashboard: {
            title: 'نظرة عامة',
            hospitals: 'المستشفيات',
            doctors: 'الأطباء',
            active_subscriptions: 'الاشتراكات النشطة',
            monthly_revenue: 'الإيرادات (شهريًا)',
            revenue_growth: 'نمو الإيرادات',
            plan_distribution: 'توزيع الخطط',
            revenue: 'الإيرادات',
            no_plans: 'لا توجد اشتراكات بعد',
            total_revenue: 'إجمالي الإيرادات',
            revenue_by_plan: 'الإيرادات حسب الخطة',
            subscriptions: 'الاشتراكات',
            subscriptions_summary: 'نشطة: %{active}، منتهية: %{expired}، المجموع: %{total}',
            loading: 'جارٍ تحميل الإحصاءات...',
            time_range: 'الفترة الزمنية',
            weekly: 'أسبوعي',
            monthly: 'شهري',
            yearly: 'سنوي',
        },
        status: {
            verified: 'موثَّق',
            pending: 'قيد الانتظار',
            active: 'نشط',
            suspended: 'موقوف',
            inactive: 'غير نشط',
        },
        payment_status: {
            succeeded: 'ناجح',
            pending: 'قيد الانتظار',
            failed: 'فاشل',
            refunded: 'مسترد',
            canceled: 'ملغى',
        },
        independent: 'مستقل',
        actions: {
            verify: 'توثيق',
            suspend: 'إيقاف',
            reinstate: 'إعادة التفعيل',
            actions: 'الإجراءات',
        },
        hospitals: {
            verified: 'تم توثيق المستشفى',
            suspended: 'تم إيقاف المستشفى',
            reinstated: 'تمت إعادة تفعيل المستشفى',
            suspend_title: 'إيقاف %{name}؟',
            suspend_content: 'سيتم تسجيل خروج موظفيه وأطبائه ورفض دخولهم حتى تتم إعادة تفعيل المستشفى.',
            reinstate_title: 'إعادة تفعيل %{name}؟',
            reinstate_content: 'سيتمكن موظفوه وأطباؤه من تسجيل الدخول مجددًا.',
        },
        doctors: {
            verified: 'تم توثيق الطبيب',
        },
        specialties: {
            Radiologist: 'أخصائي أشعة',
            Radiotherapist: 'أخصائي علاج إشعاعي',
            Cardiologist: 'طبيب قلب',
            'General Practitioner': 'طبيب عام',
            Nurse: 'ممرض/ممرضة',
        },
        errors: {
            admin_unauthorized: 'غير مصرح: يرجى تسجيل الدخول مرة أخرى',
            admin_forbidden: 'محظور: ليس لديك إذن للوصول إلى هذا المورد',
            hospitals_failed: 'فشل جلب المستشفيات',
            doctors_failed: 'فشل جلب الأطباء',
            payments_unauthorized: 'فشلت المصادقة. يرجى تسجيل الدخول مرة أخرى.',
            payments_forbidden: 'ليس لديك إذن للوصول إلى هذا المورد.',
            payments_failed: 'فشل جلب سجل المدفوعات',
            load_failed: 'فشل تحميل البيانات',
            action_failed: 'فشل الإجراء. يرجى المحاولة مرة أخرى.',
        },
    },
    resources: {
        hospitals: {
            name: plural('مستشفى', 'المستشفيات'),
            fields: {
                q: 'بحث',
                name: 'الاسم',
                email: 'البريد الإلكتروني',
                city: 'المدينة',
                country: 'البلد',
                isVerified: 'الحالة',
                status: 'حالة الحساب',
                doctorsCount: 'الأطباء',
                createdAt: 'تاريخ التسجيل',
            },
        },
        doctors: {
            name: plural('طبيب', 'الأطباء'),
            fields: {
                q: 'بحث',
                name: 'الاسم',
                email: 'البريد الإلكتروني',
                specialization: 'التخصص',
                hospitalName: 'المستشفى',
                isVerified: 'الحالة',
                isActive: 'الحساب',
                createdAt: 'تاريخ التسجيل',
            },
        },
        'payment-history': {
            name: plural('دفعة', 'المدفوعات'),
            fields: {
                q: 'بحث',
                userName: 'المستخدم',
                plan: 'الخطة',
                amount: 'المبلغ',
                status: 'الحالة',
                date: 'التاريخ',
            },
        },
        'audit-events': {
            name: plural('سجل التدقيق', 'سجل التدقيق'),
            fields: {
                action: 'الإجراء',
                actorEmail: 'المنفِّذ',
                actorRole: 'الدور',
                targetType: 'نوع الهدف',
                targetId: 'الهدف',
                tenantSchema: 'المستأجر',
                createdAt: 'الوقت',
            },
        },
    },
};
